"""Held gates: a candidate edge from a state that can only fall into doubt passes nothing on
(``stategraph.engine.held_gates``), and narrowing the cone past it changes no value."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from stategraph import Change, Justification, Memory, Truth
from stategraph.engine import held_gates
from stategraph.testing import assert_follows_recorded_program


@contextmanager
def narrowing(on: bool) -> Iterator[None]:
    """Every cone looked at for held gates (``on``), or none."""
    old = held_gates.WIDE
    held_gates.WIDE = -1 if on else 10**9
    try:
        yield
    finally:
        held_gates.WIDE = old


def _copies(n: int) -> Memory:
    """A fact F, a plan P0 resting on it as a candidate, and P1..Pn each resting on the copy
    before it as a candidate: the chain a weekly plan written again makes."""
    mem = Memory(candidates=None)
    mem.fact("F", "The user moves to Shenzhen in March")
    mem.plan("P0", "Look for a flat in Shenzhen", context=["F"])
    for i in range(1, n + 1):
        mem.plan(f"P{i}", "Look for a flat in Shenzhen", context=[f"P{i - 1}"])
    return mem


def test_a_chain_of_copies_solves_its_first_link_only() -> None:
    mem = _copies(200)
    report = mem.retract("F")
    assert report.needs_confirmation == ["P0"]
    assert report.cone_size > 200 > held_gates.WIDE
    assert report.solved <= 3  # F and P0 (P1 is graded, not solved)
    assert mem.truth("P0") is Truth.undefined
    assert all(mem.truth(f"P{i}") is Truth.true for i in range(1, 201))
    assert_follows_recorded_program(mem)


def test_narrowing_changes_no_report_and_no_value() -> None:
    reports, truths = [], []
    for on in (True, False):
        with narrowing(on):
            mem = _copies(30)
            reports.append([mem.retract("F"), mem.reject("P0", by="ana")])
            truths.append({s.id: mem.truth(s.id) for s in mem.states()})
    narrowed, whole = reports
    assert [r.solved for r in narrowed] < [r.solved for r in whole]
    for a, b in zip(narrowed, whole, strict=True):
        assert a.model_dump(exclude={"solved"}) == b.model_dump(exclude={"solved"})
    assert truths[0] == truths[1]
    assert truths[0]["P1"] is Truth.undefined  # P0 is gone now: its copy is asked about


def test_a_cycle_among_the_states_left_to_solve_solves_the_cone_whole() -> None:
    """P0 and Q rest on each other: gates in doubt on a cycle may stay so."""
    with narrowing(True):
        mem = _copies(10)
        mem.belief("Q", "The flat will be near the metro", because=["P0"])
        mem.revise(Change(add_justifications=(Justification(head="P0", premises=("Q",)),)))
        report = mem.retract("F")
    assert report.solved > 10
    assert_follows_recorded_program(mem)


def test_a_state_left_to_solve_citing_one_left_out_solves_the_cone_whole() -> None:
    """P0 also rests on P3, past the held gate: what was left out would feed back."""
    with narrowing(True):
        mem = _copies(10)
        mem.revise(Change(add_justifications=(Justification(head="P0", premises=("P3",)),)))
        report = mem.retract("F")
    assert report.solved > 10
    assert_follows_recorded_program(mem)


def test_a_cycle_past_a_held_gate_keeps_its_values() -> None:
    """P5 also rests on P9, all past the held gate into P1: nothing there moves."""
    with narrowing(True):
        mem = _copies(10)
        mem.revise(Change(add_justifications=(Justification(head="P5", premises=("P9",)),)))
        report = mem.retract("F")
    assert report.solved <= 3
    assert all(mem.truth(f"P{i}") is Truth.true for i in range(1, 11))
    assert_follows_recorded_program(mem)


def test_a_source_that_may_turn_false_passes_its_change_on() -> None:
    """P0 rests on F as declared: retracting F makes it false, and its copy is asked."""
    with narrowing(True):
        mem = Memory(candidates=None)
        mem.fact("F", "The user moves to Shenzhen in March")
        mem.plan("P0", "Look for a flat in Shenzhen", because=["F"])
        for i in range(1, 5):
            mem.plan(f"P{i}", "Look for a flat in Shenzhen", context=[f"P{i - 1}"])
        report = mem.retract("F")
    assert report.invalidated == ["P0"] and report.needs_confirmation == ["P1"]
    assert_follows_recorded_program(mem)


def test_a_head_citing_the_source_as_declared_is_solved() -> None:
    """P2 rests on P0 as declared: P0's doubt is P2's, though P1 rests on P0 as a guess."""
    with narrowing(True):
        mem = _copies(1)
        mem.plan("P2", "Sign the lease", because=["P0"])
        report = mem.retract("F")
    assert report.needs_confirmation == ["P0", "P2"]
    assert mem.truth("P1") is Truth.true
    assert_follows_recorded_program(mem)


def test_held_gates_on_each_backend(place) -> None:  # type: ignore[no-untyped-def]
    """The narrowing reads justifications and values through the store: the same answer
    from a SQLite file and a PostgreSQL tenant as in memory, and what it writes replays."""
    mem = place.memory(candidates=None)
    mem.fact("F", "The user moves to Shenzhen in March")
    mem.plan("P0", "Look for a flat in Shenzhen", context=["F"])
    for i in range(1, 81):
        mem.plan(f"P{i}", "Look for a flat in Shenzhen", context=[f"P{i - 1}"])
    report = mem.retract("F")
    assert report.needs_confirmation == ["P0"] and report.solved <= 3 < 80 < report.cone_size
    assert all(mem.truth(f"P{i}") is Truth.true for i in range(1, 81))
    assert mem.reject("P0", by="ana").needs_confirmation == ["P1"]
    assert mem.verify_log(deep=True) > 80
    mem.close()
