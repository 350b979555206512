"""What recall grades ``holds`` survives any answer to what is in doubt; what it grades
``rests_on_doubt`` does not survive every answer (stategraph.review.waiting).

Random memories: facts, and derived memories each resting on earlier ones, some by declared
alternatives (``because``, now and then ``unless`` an earlier memory; half of them actions
already executed, which a lost basis puts in doubt with their value false), some through candidates
(``context``), which a change of a fact puts in doubt without passing the doubt on. Half the
time a derived memory loops back to a later one, as a premise or as a blocker (an ``unless``
loop leaves memories undefined: in doubt). After a few facts are retracted, every memory that
holds and is not itself in doubt is graded by recall's own grading, and checked against the
well-founded model of the program under every answer to the doubt, each memory in doubt
taken as a fact or as gone (``stategraph.testing.oracles.wfm``, which shares no code with the
walk): "holds" must be true under all of them, "rests on doubt" false under one.
"""

from __future__ import annotations

import itertools

from hypothesis import event, given, settings
from hypothesis import strategies as st

from stategraph import Change, Justification, Memory, Truth
from stategraph.recall import grade
from stategraph.review.waiting import Doubts
from stategraph.testing.oracles.wfm import Rule, well_founded_model
from stategraph.values import EdgeCheck


@st.composite
def histories(draw: st.DrawFn) -> tuple[Memory, list[str]]:
    """A memory of 2-5 facts and 2-9 derived memories, half the time with a loop back from a
    derived memory to a later one, then 1-2 facts retracted."""
    mem = Memory(candidates=None)
    facts = [f"f{i}" for i in range(draw(st.integers(2, 5)))]
    for f in facts:
        mem.fact(f, f"fact {f}")
    ids = list(facts)
    for i in range(draw(st.integers(2, 9))):
        sid = f"d{i}"
        earlier = st.lists(st.sampled_from(ids), min_size=1, max_size=2, unique=True)
        if draw(st.integers(0, 9)) < 4:  # declared: one or two alternatives
            because = draw(st.lists(earlier, min_size=1, max_size=2))
            cited = {p for alt in because for p in alt}
            blockers = [b for b in ids if b not in cited]
            unless = [draw(st.sampled_from(blockers))] if blockers and draw(st.booleans()) else []
            if draw(st.booleans()):  # done already: losing its basis asks, its value false
                mem.action(sid, f"booked {sid}", because=because, unless=unless, status="executed")
            else:
                mem.plan(sid, f"plan {sid}", because=because, unless=unless)
        else:  # candidates: a doubt of one of them does not travel
            mem.plan(sid, f"plan {sid}", context=draw(earlier))
        ids.append(sid)
    derived = ids[len(facts) :]
    if len(derived) >= 2 and draw(st.booleans()):  # a loop back: supports nothing by itself
        low, high = sorted(
            draw(st.lists(st.sampled_from(derived), min_size=2, max_size=2, unique=True))
        )
        if draw(st.booleans()):
            back = Justification(head=low, premises=(high,))
        else:  # low holds unless high does: undefined where high rests on low
            back = Justification(head=low, unless=(high,))
        mem.revise(Change(add_justifications=(back,)))
    gone = draw(st.lists(st.sampled_from(facts), min_size=1, max_size=2, unique=True))
    mem.retract(*gone)
    return mem, ids


def _answers(mem: Memory, ids: list[str], doubt: set[str]) -> list[set[str]]:
    """What is true under each answer to the doubt: every memory in doubt a fact or gone
    (the memories that are false now too, for a blocker may come back)."""
    facts, rules = [], []
    for sid in ids:
        if sid in doubt or not mem.is_active(sid):
            continue
        justs = mem.justifications(sid)
        if not justs and mem.state(sid).kind == "fact":
            facts.append(sid)
        for j in justs:
            needed = [p for p in j.premises if j.checked.get(p) is not EdgeCheck.independent]
            rule: Rule = (sid, needed, list(j.unless))
            rules.append(rule)
    ordered = sorted(doubt)
    return [
        set(well_founded_model(facts + list(itertools.compress(ordered, bits)), rules).true)
        for bits in itertools.product((False, True), repeat=len(ordered))
    ]


@settings(max_examples=150, deadline=None)
@given(histories())
def test_holds_survives_the_doubt_and_rests_on_doubt_does_not(
    made: tuple[Memory, list[str]],
) -> None:
    mem, ids = made
    doubt = {p.id for p in mem.pending_review()} | set(mem.undefined())
    answers = _answers(mem, ids, doubt)
    doubts = Doubts(mem.store)
    graded = {"holds": 0, "rests_on_doubt": 0}
    for sid in ids:
        if sid in doubt or not mem.is_active(sid) or mem.truth(sid) is not Truth.true:
            continue
        found = mem.store.state(sid)
        assert found is not None
        status, ask, _, about = grade(mem, found[0], found[1], found[2], doubts)
        graded[status] += 1
        if status == "holds":
            assert all(sid in true for true in answers), f"{sid} holds, but may fall"
            assert ask is None and about is None
        else:
            assert status == "rests_on_doubt"
            assert any(sid not in true for true in answers), f"{sid} holds whatever the answer"
            assert ask is not None and about in doubt
    event(f"graded: {'some' if graded['rests_on_doubt'] else 'no'} memory rests on doubt")
    blocking = {u for sid in ids for j in mem.justifications(sid) for u in j.unless}
    if doubt & blocking:
        event("a blocker is in doubt")
    mem.close()
