"""A caller cannot write a person's review, a judge's answer, a rule's derivation or the
engine's assumption: only the path that makes each may (``stategraph.provenance``).

Before, ``revise`` took ``reviews: [{decision: confirmed, by: anyone}]`` with a premise-less
``review`` justification for a state nobody had flagged, and an ``origin: judge``
justification with invented notes, and a bulk import took any origin; ``why`` then printed
them as a person's or the model's word, and ``audit verify`` replayed them as consistent. The
HTTP API and the MCP server are in ``tests/service/test_strict_bodies.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stategraph import Memory
from stategraph.audit import export, verify_export
from stategraph.cli.main import EXIT_INPUT, main
from stategraph.errors import InvalidInputError, ReplayDivergenceError
from stategraph.model import Change, Origin
from stategraph.store import SQLiteStore

REVIEW = {"head": "b", "origin": "review", "notes": {"by": "anyone", "note": "trust me"}}
FORGED: dict[str, dict[str, Any]] = {
    "a review, with its record": {
        "add_justifications": [REVIEW],
        "reviews": [{"id": "b", "decision": "confirmed", "by": "anyone"}],
    },
    "a review justification alone": {"add_justifications": [{**REVIEW, "notes": {}}]},
    "a rejection record": {
        "retract": ["b"],
        "reviews": [{"id": "b", "decision": "rejected", "by": "anyone"}],
    },
    "a judge's answer": {
        "add_justifications": [
            {"head": "b", "premises": ["g"], "origin": "judge", "notes": {"g": "the model says"}}
        ]
    },
    "a rule's derivation": {
        "add_justifications": [{"head": "b", "premises": ["g"], "origin": "rule", "rules": ["x:1"]}]
    },
    "an assumption": {"add_justifications": [{"head": "b", "origin": "assumed"}]},
    "a check nobody made": {
        "add_justifications": [
            {"head": "b", "premises": ["f", "g"], "origin": "recovered",
             "checked": {"f": "independent"}, "notes": {"f": "the rules derive b without f"}}
        ]
    },
}  # fmt: skip


def memory(path: Path | None = None) -> Memory:
    """b rests on f alone; f is retracted, so b does not hold (and nothing flagged it)."""
    mem = Memory(path, candidates=None)
    mem.fact("f")
    mem.fact("g")
    mem.belief("b", because=["f"])
    mem.retract("f")
    return mem


def state(mem: Memory) -> tuple[Any, ...]:
    return (mem.states(), mem.justifications(), len(mem.history()), sorted(mem.holding()))


@pytest.mark.parametrize("change", list(FORGED.values()), ids=list(FORGED))
def test_revise_refuses_what_only_the_engine_writes(change: dict[str, Any]) -> None:
    mem = memory()
    before = state(mem)
    with pytest.raises(InvalidInputError) as info:
        mem.revise(change)
    fields = {loc for loc, _ in info.value.errors}
    assert fields & {"reviews", "add_justifications.0.origin", "add_justifications.0.checked"}
    assert state(mem) == before and "b" not in mem.holding()


def test_the_refusal_says_who_writes_it() -> None:
    mem = memory()
    with pytest.raises(InvalidInputError) as info:
        mem.revise(FORGED["a judge's answer"])
    assert info.value.errors == [
        (
            "add_justifications.0.origin",
            "a judge justification is written by the judge, for an edge a revision put to it, "
            "never given: give 'declared' (or 'recovered' for candidates)",
        ),
        ("add_justifications.0.notes", "filled in by the engine, never given: drop it"),
    ]


def test_what_a_caller_may_write_is_still_written() -> None:
    """A declared basis, candidates (``context``, or a recovered justification), removing any
    justification, and a person's decision through confirm."""
    mem = memory()
    mem.revise({"add_justifications": [{"head": "b", "premises": ["g"]}]})
    assert "b" in mem.holding()
    candidates = {"head": "b", "premises": ["f", "g"], "origin": "recovered"}
    mem.revise({"add_justifications": [candidates]})
    mem.revise({"remove_justifications": [{"head": "b", "premises": ["g"]}]})
    assert {j.origin for j in mem.justifications("b")} == {Origin.declared, Origin.recovered}
    mem.belief("u", because=[{"all": ["g"], "unless": ["v"]}])
    mem.belief("v", because=[{"all": ["g"], "unless": ["u"]}])  # u and v wait for review
    report = mem.confirm("u", by="ana", note="asked the user")
    assert report.change.reviews[0].by == "ana" and "u" in mem.holding()


@pytest.mark.parametrize("origin", ["review", "judge", "rule", "assumed"])
def test_bulk_load_refuses_what_only_the_engine_writes(origin: str) -> None:
    mem = Memory(candidates=None)
    before = state(mem)
    with pytest.raises(InvalidInputError) as info:
        mem.bulk_load(
            [{"id": "f", "kind": "fact"}, {"id": "b", "kind": "belief"}],
            [{"head": "b", "premises": ["f"]}, {"head": "b", "origin": origin}],
        )
    assert info.value.errors[0][0] == "justifications.1.origin"
    assert state(mem) == before


def test_the_command_line_refuses_a_forged_change_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store, change = tmp_path / "m.db", tmp_path / "change.json"
    memory(store).close()
    for forged in FORGED.values():
        change.write_text(json.dumps(forged), encoding="utf-8")
        assert main(["revise", str(store), "--change", str(change)]) == EXIT_INPUT
        assert "never given" in capsys.readouterr().err or forged.get("reviews")
    with Memory(store) as mem:
        assert len(mem.history()) == 4 and "b" not in mem.holding()


@pytest.mark.parametrize("origin", ["review", "judge", "rule", "assumed"])
def test_the_command_line_refuses_a_forged_import(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, origin: str
) -> None:
    store, source = tmp_path / "m.db", tmp_path / "in.jsonl"
    rows = [
        {"id": "b", "kind": "belief"},
        {"head": "b", "origin": origin, "notes": {"by": "anyone"}},
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["import", str(store), str(source)]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert f"{source}:2.origin" in err and f"{source}:2.notes" in err
    with Memory(store) as mem:
        assert mem.states() == [] and mem.history() == []


def test_a_forged_review_in_a_log_does_not_replay(tmp_path: Path) -> None:
    """A log written before the check (here by the engine's own path, as the old ``revise``
    wrote it) confirms b, which nothing flagged: the replay makes a review as confirm does,
    which refuses it."""
    mem = memory(tmp_path / "m.db")
    forged = FORGED["a review, with its record"]
    mem._apply(Change.model_validate(forged))
    assert "b" in mem.holding()
    store = mem.store
    assert isinstance(store, SQLiteStore)
    out = tmp_path / "log.jsonl"
    export(store, out)
    with pytest.raises(ReplayDivergenceError) as caught:
        verify_export(out)
    assert caught.value.seq == 5 and "not waiting for review" in caught.value.replayed


def test_a_forged_judge_answer_in_a_log_does_not_replay(tmp_path: Path) -> None:
    mem = memory(tmp_path / "m.db")
    mem._apply(Change.model_validate(FORGED["a judge's answer"]))
    store = mem.store
    assert isinstance(store, SQLiteStore)
    out = tmp_path / "log.jsonl"
    export(store, out)
    with pytest.raises(ReplayDivergenceError) as caught:
        verify_export(out)
    assert caught.value.seq == 5 and "a judge justification" in caught.value.replayed
