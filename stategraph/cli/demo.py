"""The seed scenario: a planned move that is called off, in Chinese or English.

m1 (fact) the user will move from Shanghai to Shenzhen in December 2026;
m2 (belief) commute time is computed for Shenzhen, because of m1;
m3 (action, pending) cancel the home broadband before the move, because of m1;
m4 (fact) the user prefers Cantonese food: related, but not dependent (a hard negative).
Then m1 is superseded by "the user stays in Shanghai": m2 and m3 must go, m3 is cancelled,
m4 is not touched.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by build() and run(): the parser reads SCENARIO at start-up
    from stategraph.memory import Memory
    from stategraph.model import Report

__all__ = ["SCENARIO", "build", "run"]

SCENARIO: dict[str, dict[str, str]] = {
    "en": {
        "m1": "The user plans to move from Shanghai to Shenzhen in December 2026",
        "m2": "Commute time is computed for Shenzhen Nanshan",
        "m3": "Scheduled to-do: cancel the home broadband before the move",
        "m4": "The user prefers Cantonese food",
        "m1b": "The user decided to stay in Shanghai and cancelled the move",
    },
    "zh": {
        "m1": "用户计划 2026-12 从上海搬到深圳",
        "m2": "通勤时间按深圳南山算",
        "m3": "已排待办：搬家前退宽带",
        "m4": "用户偏好粤菜",
        "m1b": "用户最终决定留在上海，取消搬迁计划",
    },
}


GROUNDER = "stategraph.rule_grounder.v1"


def build(lang: str = "en", path: str | Path | None = None, text_only: bool = False) -> Memory:
    """The memory before the change.

    Args:
        lang: ``"en"`` or ``"zh"``.
        path: a SQLite file, or None for a memory in memory.
        text_only: give the memories as text alone (no ``because``): the grounder turns each
            text into atoms and the rule packs find the dependencies.
    """
    from stategraph.memory import Memory

    t = SCENARIO[lang]
    if text_only:
        mem = Memory(path, rules="all", grounder=GROUNDER)
        because: list[str] = []
    else:
        mem = Memory(path)
        because = ["m1"]
    mem.fact("m1", t["m1"])
    mem.belief("m2", t["m2"], because=because)
    mem.action("m3", t["m3"], because=because, status="pending")
    mem.fact("m4", t["m4"])
    return mem


def run(lang: str = "en", path: str | Path | None = None, text_only: bool = False) -> Report:
    """Build the scenario and revise it: m1 is superseded by m1b."""
    mem = build(lang, path, text_only)
    try:
        return mem.supersede("m1", {"id": "m1b", "kind": "fact", "text": SCENARIO[lang]["m1b"]})
    finally:
        mem.close()
