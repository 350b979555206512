"""A replacement the grounder misreads must never carry what the old fact supported.

"The move to Shenzhen is off" grounds to the same move atom as the fact it replaces: read
as it grounds, the rules would derive the commute belief and the broadband to-do from the
replacement and report them kept. A grounder will always miss some negations, so a
replacement whose reading leaves a negation, cancellation or reversal cue over is not
trusted: what the old fact supported is put in question (to the judge, else to confirmation),
never kept silently. A replacement read cleanly ("stays in Shanghai") is left to the rules.
"""

from __future__ import annotations

from typing import Any

import pytest

from stategraph import Memory
from stategraph.cli.demo import SCENARIO, build
from stategraph.prepare import WITHHELD

CALLED_OFF = [
    ("en", "The move to Shenzhen is off"),
    ("en", "The move to Shenzhen fell through, so the user is not moving after all"),
    ("en", "Moving to Shenzhen? That's not happening anymore"),
    ("zh", "搬家的事黄了"),
    ("zh", "搬到深圳的计划算了，还是留在上海"),
    ("zh", "去深圳的事不再考虑了"),
]


@pytest.mark.parametrize(("lang", "text"), CALLED_OFF)
def test_a_called_off_move_never_keeps_its_dependents(lang: str, text: str) -> None:
    mem = build(lang, text_only=True)
    report = mem.supersede("m1", {"id": "m1b", "text": text})
    gone = set(report.invalidated) | set(report.needs_confirmation)
    assert {"m2", "m3"} <= gone
    assert not {"m2", "m3"} & set(report.kept)
    assert "m4" in mem.holding()  # the hard negative is not touched


def test_an_unclean_reading_keeps_its_atoms_aside() -> None:
    mem = build("en", text_only=True)
    report = mem.supersede("m1", {"id": "m1b", "text": "The move to Shenzhen is off"})
    (replacement,) = [s for s in mem.states() if s.id == "m1b"]
    assert replacement.atoms == ()
    assert replacement.metadata[WITHHELD] == {
        "atoms": ["moves(user,unknown,shenzhen,unknown)"],
        "unconsumed": ["is off"],
    }
    assert report.needs_confirmation == ["m2", "m3"]  # no judge: a person decides


def test_a_clean_reading_is_left_to_the_rules() -> None:
    for lang in ("en", "zh"):
        mem = build(lang, text_only=True)
        report = mem.supersede("m1", {"id": "m1b", "text": SCENARIO[lang]["m1b"]})
        assert report.invalidated == ["m2", "m3"]


def _statin(text: str) -> tuple[Memory, Any]:
    mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
    mem.fact("f", "Alice takes atorvastatin every evening")
    mem.action("a", "Remind Alice to take her atorvastatin at 9 pm", status="pending")
    mem.fact("h", "Alice is allergic to penicillin")
    report = mem.supersede("f", {"id": "f2", "text": text})
    return mem, report


@pytest.mark.parametrize(
    "text",
    [
        "Alice's doctor took her off atorvastatin; she no longer takes any statin",
        "医生让爱丽丝停了阿托伐他汀，她现在不吃他汀了",
    ],
)
def test_a_stopped_drug_never_keeps_its_reminder(text: str) -> None:
    mem, report = _statin(text)
    assert "a" in set(report.invalidated) | set(report.needs_confirmation)
    assert "h" in mem.holding()


def test_a_plan_called_off_in_its_own_words_puts_its_conclusions_in_question() -> None:
    """The fact a belief rests on shares no word with it; with few facts, every one is a
    candidate, so superseding it asks instead of keeping the belief silently."""
    mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
    mem.fact("f1", "I'll work remotely from Lisbon from January to August")
    mem.fact("f2", "I'm buying a flat in Porto")
    mem.fact("f3", "Rita, an accountant in Lisbon, does my Portuguese paperwork")
    mem.belief("b1", "The user becomes a Portuguese tax resident this year")
    report = mem.supersede(
        "f1", {"id": "f1b", "text": "The Lisbon plan is off, I'm staying in Munich"}
    )
    assert report.needs_confirmation == ["b1"]
