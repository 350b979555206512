"""Bulk loading gives the same memory as adding states one by one, atomically."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from stategraph import Justification, Memory, State
from stategraph.errors import InvalidChangeError, SelfJustificationError, UnknownStateError
from stategraph.store import bulk

STATES = [
    State(id="f", kind="fact"),
    State(id="g", kind="fact"),
    State(id="a", kind="belief"),
    State(id="b", kind="belief"),
    State(id="c", kind="plan"),
    State(id="d", kind="belief"),
    State(id="e", kind="belief"),
    State(id="x", kind="action"),
]
JUSTS = [
    Justification(head="a", premises=["f"]),
    Justification(head="b", premises=["a"]),
    Justification(head="a", premises=["b"]),  # a cycle with outside support
    Justification(head="c", premises=["f", "g"], unless=["zz"]),
    Justification(head="d", premises=[], unless=["e"]),  # a negative cycle
    Justification(head="e", premises=[], unless=["d"]),
    Justification(head="x", premises=["c"]),
]


def one_by_one(
    mem: Memory | None = None,
    states: list[State] = STATES,
    justs: list[Justification] = JUSTS,
) -> Memory:
    """The reference: the same states added one revision at a time."""
    mem = Memory() if mem is None else mem
    for st in states:
        mem.add(st)
    mem.revise({"add_justifications": [j.model_dump() for j in justs]})
    return mem


def test_same_model_as_incremental() -> None:
    bulk = Memory()
    summary = bulk.bulk_load(STATES, JUSTS)
    ref = one_by_one()
    assert bulk.holding() == ref.holding() == {"f", "g", "a", "b", "c", "x"}
    assert bulk.undefined() == ref.undefined() == {"d", "e"}
    assert summary["states"] == 8 and summary["holding"] == 6 and summary["undefined"] == 2
    assert bulk.state("x").status is not None  # actions get their default status
    # and revisions on top behave the same
    assert bulk.retract("f").to_json() == ref.retract("f").to_json()


def test_the_summary_counts_the_justifications_stored_not_given() -> None:
    mem = Memory()
    mem.fact("outside")
    again = [JUSTS[0], Justification(head="c", premises=["g", "f"], unless=["zz"])]
    summary = mem.bulk_load(STATES, [*JUSTS, *again])  # two given twice: each stored once
    assert summary["justifications"] == len(JUSTS) == len(mem.justifications())
    assert summary["states"] == len(STATES) == len(mem.states()) - 1


def test_bulk_on_top_of_a_store_uses_boundary_values() -> None:
    mem = Memory()
    mem.fact("old")
    mem.fact("gone")
    mem.retract("gone")
    mem.bulk_load(
        [State(id="n1", kind="belief"), State(id="n2", kind="belief")],
        [
            Justification(head="n1", premises=["old"]),
            Justification(head="n2", premises=["gone"]),
        ],
    )
    assert mem.holding() == {"old", "n1"}
    assert mem.retract("old").invalidated == ["n1"]


def test_logged_once_with_a_digest(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m.db")
    summary = mem.bulk_load(STATES, JUSTS)
    (entry,) = mem.history()
    assert entry.report is None and entry.summary == summary
    assert len(summary["sha256"]) == 64
    assert mem.verify_log() == 1


@pytest.mark.parametrize(
    ("states", "justs", "error", "names"),
    [
        ([*STATES, State(id="f")], [], InvalidChangeError, "'f' appears twice"),
        (STATES, [Justification(head="zz", premises=["f"])], InvalidChangeError, "'zz'"),
        (STATES, [Justification(head="a", premises=["ghost"])], UnknownStateError, "ghost"),
        (STATES, [Justification(head="a", premises=["a"])], SelfJustificationError, "'a'"),
        (STATES, [Justification(head="f", premises=["g"])], InvalidChangeError, "'f' is a fact"),
    ],
)
def test_bad_input_writes_nothing(
    tmp_path: Path,
    states: list[State],
    justs: list[Justification],
    error: type[Exception],
    names: str,
) -> None:
    path = tmp_path / "m.db"
    mem = Memory.open(path)
    mem.fact("keep")
    before = list(sqlite3.connect(path).iterdump())
    with pytest.raises(error, match=names):
        mem.bulk_load(states, justs)
    assert list(sqlite3.connect(path).iterdump()) == before


def test_existing_ids_and_blockers_are_refused() -> None:
    mem = Memory()
    mem.fact("f")
    mem.belief("b", unless=["later"])
    with pytest.raises(InvalidChangeError, match="'f' already exists"):
        mem.bulk_load([State(id="f")])
    with pytest.raises(InvalidChangeError, match="with revise"):
        mem.bulk_load([State(id="later")])


def test_reads_generators_once_states_first() -> None:
    """The input is streamed: every state is read before the first justification."""
    read: list[str] = []

    def states() -> Iterator[State]:
        for st in STATES:
            read.append(st.id)
            yield st

    def justs() -> Iterator[Justification]:
        assert read == [st.id for st in STATES]
        yield from JUSTS

    mem = Memory()
    mem.bulk_load(states(), justs())
    assert mem.holding() == one_by_one().holding()


@pytest.mark.parametrize(
    ("later", "names"),
    [(State(id="keep"), "'keep' already exists"), (State(id="later"), "with revise")],
)
def test_checks_hold_across_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, later: State, names: str
) -> None:
    monkeypatch.setattr(bulk, "_BATCH", 2)  # the refused id arrives after two batches
    path = tmp_path / "m.db"
    mem = Memory.open(path)
    mem.fact("keep")
    mem.belief("waits", unless=["later"])
    before = list(sqlite3.connect(path).iterdump())
    with pytest.raises(InvalidChangeError, match=names):
        mem.bulk_load([*STATES, later], JUSTS)
    assert list(sqlite3.connect(path).iterdump()) == before


def test_undefined_boundary_states_stay_undecided() -> None:
    """Loaded rules that cite undefined stored states (a negative cycle) are undefined too,
    exactly as when the same states are added one by one."""

    def store() -> Memory:
        mem = Memory()
        mem.fact("f")
        mem.belief("d", unless=["e"])
        mem.belief("e", unless=["d"])
        return mem

    states = [State(id=s, kind="belief") for s in ("n1", "n2", "n3")]
    justs = [
        Justification(head="n1", premises=["d"]),
        Justification(head="n2", premises=["f"], unless=["e"]),
        Justification(head="n3", premises=["n1"]),
        Justification(head="n3", premises=["f"]),
    ]
    bulk, ref = store(), one_by_one(store(), states, justs)
    bulk.bulk_load(states, justs)
    assert bulk.undefined() == ref.undefined() == {"d", "e", "n1", "n2"}
    assert bulk.holding() == ref.holding() == {"f", "n3"}
    assert bulk.retract("f").to_json() == ref.retract("f").to_json()
