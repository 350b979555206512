"""Traces: several changes over one memory, each scored like a case's change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from stategraph.bench.cases import CaseError, load_case, load_case_file, load_cases
from stategraph.bench.engine import StategraphSystem
from stategraph.bench.metrics import group_key, score

TRACE: dict[str, Any] = {
    "id": "tiny-en-t01",
    "lang": "en",
    "track": "declared",
    "memories": [
        {"id": "m1", "kind": "fact", "text": "a", "session": "s1"},
        {"id": "m2", "kind": "belief", "text": "b", "because": [["m1"]], "session": "s1"},
        {"id": "m3", "kind": "fact", "text": "c", "session": "s2"},
        {"id": "m4", "kind": "plan", "text": "d", "because": [["m1"], ["m3"]], "session": "s2"},
    ],
    "changes": [
        {
            "told_as": "retract",
            "change": {"retract": ["m1"]},
            "expect": {"invalidated": ["m2"], "kept": ["m4"], "depth": {"m2": 1}},
            "why": "m4 still rests on m3",
        },
        {
            "told_as": "supersede",
            "change": {
                "supersede": {"id": "m3", "with": {"id": "m3b", "kind": "fact", "text": "e"}}
            },
            "expect": {"invalidated": ["m4"]},
            "why": "m1 went in the first change: m4 had only m3 left",
        },
    ],
    "basis": {"m2": ["m1"], "m4": [["m1"], ["m3"]]},
}


_NINE = {"invalidated": ["m9"]}


def _write(tmp_path: Path, data: dict[str, Any], name: str = "tiny-en-t01.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return p


def test_a_trace_is_one_case_per_change(tmp_path: Path) -> None:
    steps = load_case_file(_write(tmp_path, TRACE))
    assert [s.id for s in steps] == ["tiny-en-t01.1", "tiny-en-t01.2"]
    assert [len(s.history) for s in steps] == [0, 1]
    assert steps[1].told_as == "supersede" and steps[1].trace == "tiny-en-t01"
    assert steps[0].memories[0].session == "s1"
    assert steps[1].batch == "t" and group_key(steps[1]) == "declared/trace-t"
    # the second change does not score what the first one's gold saw go
    assert steps[1].scored_ids() == ["m4"]
    assert load_cases([tmp_path]) == steps


def test_a_change_sees_the_memory_after_the_changes_before_it(tmp_path: Path) -> None:
    steps = load_case_file(_write(tmp_path, TRACE))
    system = StategraphSystem()
    first, second = (system.run(s) for s in steps)
    assert first.invalidated == {"m2"}
    # applied alone, the supersession would keep m4 on m1
    assert second.invalidated == {"m4"}
    s = score([(steps[0], first), (steps[1], second)])
    assert s.overall.tp == 2 and s.overall.fp == 0 and s.by_group["declared/trace-t"].cases == 2


def test_a_later_change_may_name_what_an_earlier_one_added(tmp_path: Path) -> None:
    third = {"change": {"retract": ["m3b"]}, "expect": {"invalidated": []}}
    steps = load_case_file(_write(tmp_path, {**TRACE, "changes": [*TRACE["changes"], third]}))
    assert steps[2].memory("m3b") is not None and "m3b" in steps[2].unscored()


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"basis": {"m2": ["nope"]}}, "basis.m2"),
        ({"changes": []}, "changes"),
        (
            {"changes": [{"change": {"retract": ["m3b"]}, "expect": {}}]},
            "changes[0].change.retract",
        ),
        (
            {
                "changes": [
                    TRACE["changes"][0],
                    {"change": {"retract": ["m3"]}, "expect": {"invalidated": ["m9"]}},
                ]
            },
            "changes[1].expect.invalidated",
        ),
    ],
)
def test_trace_errors_name_the_change(tmp_path: Path, patch: dict[str, Any], field: str) -> None:
    with pytest.raises(CaseError) as info:
        load_case_file(_write(tmp_path, {**TRACE, **patch}))
    assert info.value.field == field


def test_a_case_file_cannot_carry_a_steps_history(tmp_path: Path) -> None:
    case = {k: v for k, v in TRACE.items() if k not in ("changes", "basis")}
    case = {**case, "id": "tiny-en-01", "change": {"retract": ["m1"]}}
    case["expect"] = {"invalidated": ["m2"], "depth": {"m2": 1}}
    with pytest.raises(CaseError) as info:
        load_case(_write(tmp_path, {**case, "history": []}, "tiny-en-01.yaml"))
    assert info.value.field == "history"
    with pytest.raises(CaseError, match="load_case_file"):
        load_case(_write(tmp_path, TRACE))
