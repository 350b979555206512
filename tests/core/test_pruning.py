"""Revision solves only what a change can move (``docs/revision.md``).

The property suite holds the values to an oracle whatever is solved; these tests hold the
pruning itself, so that a regression to solving the whole cone shows up.
"""

from __future__ import annotations

from stategraph import Justification, Memory, State, Truth, Verdict


def _memory(bulk: bool) -> Memory:
    """f1, f2 facts; b <- f1 | f2 (carried by f1: a tie, the smaller key); c <- b."""
    states = [
        State(id="f1", kind="fact"),
        State(id="f2", kind="fact"),
        State(id="b", kind="belief"),
        State(id="c", kind="belief"),
    ]
    justs = [
        Justification(head="b", premises=["f1"]),
        Justification(head="b", premises=["f2"]),
        Justification(head="c", premises=["b"]),
    ]
    mem = Memory()
    if bulk:
        mem.bulk_load(states, justs)
    else:
        for st in states:
            mem.add(st)
        mem.revise({"add_justifications": justs})
    return mem


def test_a_state_kept_by_its_support_is_graded_not_solved() -> None:
    for bulk in (False, True):
        mem = _memory(bulk)
        report = mem.retract("f2")
        assert report.cone_size == 3 and report.solved == 1, bulk
        (entry,) = report.entries
        assert entry.id == "b" and entry.verdict is Verdict.kept
        assert entry.reason.cause == "alternative_support"
        assert entry.reason.surviving is not None and entry.reason.surviving.premises == ("f1",)


def test_a_change_to_the_support_is_solved_through() -> None:
    for bulk in (False, True):
        mem = _memory(bulk)
        report = mem.retract("f1")
        assert report.solved == 3, bulk  # f1, and b and c along open edges
        assert report.ids(Verdict.kept) == ["b"] and mem.truth("c") is Truth.true
        report = mem.retract("f2")  # b's support is now f2: the edge from f1 was closed
        assert report.invalidated == ["b", "c"] and report.solved == 3
