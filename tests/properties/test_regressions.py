"""Counterexamples the property suite found, kept as plain regression tests.

Each one is the shrunk scenario Hypothesis reported, written out with the public API so it
reads without the strategies. A test marked ``xfail(strict=True)`` documents an engine bug
that is still open: when the engine is fixed, the strict xfail fails, and the marker must be
removed.
"""

from __future__ import annotations

from stategraph import Change, Justification, Memory, State, Truth


def test_state_that_never_held_is_not_invalidated() -> None:
    """Found by ``test_invalidated_means_no_justification_holds`` (deep profile).

    s1 has no justification (so it is false); one change retracts s2 and adds ``s1 <- s2``.
    s1 was false and stays false: no justification of it held before or holds after, so it
    must not be reported at all, least of all as ``invalidated`` (which means "lost all
    support").
    """
    mem = Memory()
    mem.fact("s0")
    mem.fact("s2")
    mem.belief("s1", because=["s0"])
    mem.revise(Change(remove_justifications=[Justification(head="s1", premises=["s0"])]))
    assert mem.truth("s1") is Truth.false
    report = mem.revise(
        Change(retract=["s2"], add_justifications=[Justification(head="s1", premises=["s2"])])
    )
    assert mem.truth("s1") is Truth.false
    entry = report.entry("s1")
    assert entry is None or entry.old is not entry.new, entry


def test_retracted_premise_and_new_head_in_one_change() -> None:
    """The shrunk example as Hypothesis found it (holding sets were right; only the report
    was wrong): the truth values must match the oracle whatever the verdicts say."""
    mem = Memory()
    mem.fact("s0")
    mem.belief("s1", because=["s0"])
    mem.revise(
        Change(
            retract=["s0"],
            assert_=[State(id="g0")],
            remove_justifications=[Justification(head="s1", premises=["s0"])],
        )
    )
    mem.revise(Change(assert_=[State(id="g1")]))
    mem.revise(
        Change(retract=["g0"], add_justifications=[Justification(head="s1", premises=["g0"])])
    )
    assert mem.holding() == {"g1"}
    assert mem.undefined() == frozenset()
