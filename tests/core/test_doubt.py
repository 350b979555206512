"""A doubt does not travel through a candidate that is itself only in doubt
(stategraph.engine.doubt); a memory already in doubt is reported again when a change takes
more of its basis away."""

from __future__ import annotations

from stategraph import Change, Justification, Memory, Truth
from stategraph.testing import assert_follows_recorded_program


def _chain() -> Memory:
    """F, a belief B resting on F as a candidate, a plan D resting on B as a candidate."""
    mem = Memory(candidates=None)
    mem.fact("F", "The user flies to Tokyo on 2027-04-10")
    mem.belief("B", "The user needs a Japanese visa", context=["F"])
    mem.plan("D", "Apply for the visa at the consulate", context=["B"])
    return mem


def test_a_plan_resting_on_a_belief_in_doubt_is_not_put_in_doubt() -> None:
    mem = _chain()
    report = mem.retract("F")
    assert report.needs_confirmation == ["B"]
    assert mem.truth("B") is Truth.undefined
    assert mem.truth("D") is Truth.true  # B is only in doubt: D is not asked about
    assert "D" not in {e.id for e in report.entries}
    assert [r.id for r in mem.pending_review()] == ["B"]
    assert_follows_recorded_program(mem)


def test_the_doubt_travels_once_it_is_settled() -> None:
    mem = _chain()
    mem.retract("F")
    report = mem.reject("B", by="ana")
    assert report.needs_confirmation == ["D"]  # B is gone now: what rested on it is asked
    (entry,) = [e for e in report.entries if e.id == "D"]
    assert entry.reason.cause == "unverified_candidate" and entry.reason.undecided == ("B",)
    assert_follows_recorded_program(mem)
    mem2 = _chain()
    mem2.retract("F")
    assert mem2.confirm("B", by="ana").needs_confirmation == []
    assert mem2.truth("D") is Truth.true


def test_a_declared_premise_in_doubt_still_puts_its_head_in_doubt() -> None:
    mem = Memory(candidates=None)
    mem.fact("F", "The user flies to Tokyo on 2027-04-10")
    mem.belief("B", "The user needs a Japanese visa", context=["F"])
    mem.plan("D", "Apply for the visa at the consulate", because=["B"])
    report = mem.retract("F")
    assert report.needs_confirmation == ["B", "D"]  # the well-founded model, as declared
    assert mem.truth("D") is Truth.undefined
    assert_follows_recorded_program(mem)


def test_a_candidate_that_rests_on_its_own_head_stays_in_doubt() -> None:
    """Held in doubt, the gate would let D support itself through P."""
    mem = Memory(candidates=None)
    mem.fact("F", "f")
    mem.belief("P", "p", because=["F"])
    mem.plan("D", "d", context=["P"])
    mem.revise(Change(add_justifications=(Justification(head="P", premises=("D",)),)))
    mem.retract("F")
    assert (mem.truth("P"), mem.truth("D")) == (Truth.undefined, Truth.undefined)
    assert_follows_recorded_program(mem)


def test_a_memory_in_doubt_is_reported_again_with_the_new_cause() -> None:
    mem = Memory(candidates=None)
    mem.fact("F1", "The user flies to Tokyo on 2027-04-10")
    mem.fact("F2", "The hotel in Shinjuku is booked")
    mem.plan("D", "Take the train from Narita to Shinjuku", context=["F1", "F2"])
    first = mem.retract("F1")
    assert first.needs_confirmation == ["D"]
    second = mem.retract("F2")
    (entry,) = [e for e in second.entries if e.id == "D"]
    assert entry.verdict.value == "needs_confirmation" and "F2" in entry.reason.undecided
    (pending,) = mem.pending_review()
    assert pending.flagged_in == mem.head()[0]  # the latest change flagged it
