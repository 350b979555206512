"""Candidate proposal and what it means, held to a from-scratch oracle.

Memories are written the way an agent writes them: text from a small vocabulary (so that
lexical neighbours exist), often with no basis at all, sometimes with ``context``; facts get
retracted and superseded. After every step:

- the engine's holding and undefined sets are the well-founded model of the program its
  *recorded* justifications make, where an unchecked candidate premise ``p`` of a recovered
  justification is an auxiliary atom ``c`` with ``c :- p`` and ``c :- not c`` (true while
  ``p`` holds, undefined once it does not): the contract of ``docs/revision.md``, computed by
  the plain-Python alternating fixpoint, never by the engine
  (:mod:`stategraph.testing.oracles.program`);
- what was decided at write time is what the contract says: a derived memory written with no
  basis got exactly one stand-in (a recovered justification of its ``context`` and at most
  ``k`` more memories that held when it was written, or an ``assumed`` one when there was
  nothing to propose); while the store held at most ``k`` facts, every one of them that held
  is among its candidates (recall first); a fact never got a justification, its ``context``
  is kept as provenance.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from stategraph import Memory, Report, Verdict
from stategraph.model import Origin, Truth
from stategraph.testing import reach
from stategraph.testing.oracles.program import assert_follows_recorded_program
from stategraph.text.candidates import CandidateProposer
from tests.core.test_held_gates import narrowing

WORDS = ("flight", "tokyo", "hotel", "rent", "shanghai", "move", "dentist", "refill", "gym")
K = 3

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
step = st.one_of(
    st.tuples(st.just("fact"), texts, st.just(0)),
    st.tuples(st.just("belief"), texts, st.integers(0, 3)),  # how many context ids
    st.tuples(st.just("retract"), st.just(""), st.integers(0, 50)),
    st.tuples(st.just("supersede"), texts, st.integers(0, 50)),
)


def check(mem: Memory) -> None:
    """Holding and undefined sets against the recorded program's model (oracle (d))."""
    assert_follows_recorded_program(mem)


START = [("fact", "flight tokyo", 0), ("fact", "rent shanghai", 0), ("belief", "hotel tokyo", 0)]
"""Every example starts with a belief written with no basis beside two facts (one a lexical
neighbour): candidates from the first step, so that the changes drawn next put them in
question (without it, four examples in five never had an unchecked candidate)."""


@given(st.lists(step, min_size=1, max_size=14).map(lambda drawn: START + drawn))
def test_revisions_follow_the_recorded_candidates(steps: list[tuple[str, str, int]]) -> None:
    mem = Memory(candidates=CandidateProposer(k=K))
    facts: list[str] = []
    reached: set[str] = set()
    for n, (kind, text, arg) in enumerate(steps, 1):
        sid = f"m{n}"
        holding_before = mem.holding()
        if kind == "fact":
            mem.fact(sid, text)
            facts.append(sid)
        elif kind == "belief":
            context = sorted(holding_before)[:arg]
            mem.belief(sid, text, context=context)
            (j,) = mem.justifications(sid)
            if j.origin is Origin.assumed:
                assert not context and j.premises == ()
            else:
                assert j.origin is Origin.recovered
                assert set(context) <= set(j.premises) <= holding_before
                assert len(j.premises) <= K + len(context)
                assert {j.proposed[c] for c in context} <= {"context"}
            holding_facts = {f for f in facts if f in holding_before}
            if len(holding_facts) <= K:  # recall first: every holding fact is a candidate
                assert holding_facts <= set(j.premises)
        elif kind == "retract" and facts:
            old = facts.pop(arg % len(facts))
            reached |= _reached(mem, mem.retract(old))
        elif kind == "supersede" and facts:
            old = facts.pop(arg % len(facts))
            reached |= _reached(mem, mem.supersede(old, {"id": sid, "kind": "fact", "text": text}))
            facts.append(sid)
        check(mem)
    reach.note(reached, "candidates")
    for s in mem.states():
        if s.kind == "fact":
            assert mem.justifications(s.id) == []


def _reached(mem: Memory, report: Report) -> set[str]:
    """What a revision of this test reached (:data:`stategraph.testing.reach.FEATURES`)."""
    verdicts = {e.verdict for e in report.entries}
    found = {
        "a non-empty report": bool(report.entries),
        "an invalidated state": Verdict.invalidated in verdicts,
        "a needs_confirmation entry": Verdict.needs_confirmation in verdicts,
        "an undefined state": bool(mem.undefined()),
        "a candidate premise": any(j.candidates() for j in mem.justifications()),
    }
    return {f for f, yes in found.items() if yes}


def test_a_fact_keeps_its_context_as_provenance() -> None:
    mem = Memory()
    mem.fact("f1", "rent in shanghai")
    mem.fact("f2", "move to tokyo", context=["f1"])
    assert mem.justifications("f2") == []
    assert mem.state("f2").metadata["context"] == ["f1"]
    assert mem.retract("f1").entry("f2") is None
    assert mem.truth("f2") is Truth.true


copy = st.tuples(st.sampled_from(["belief", "declared"]), texts, st.integers(1, 2))
"""A belief on the one or two newest memories that hold, as candidates (a copy of a copy)
or declared (``because``: one that turns false when they go)."""

CHAIN = [("fact", "flight tokyo", 0), *[("belief", "hotel tokyo", 1)] * 3, START[1]]
"""A fact, three copies of a belief each on the one before, and another fact: without it,
nineteen examples in twenty never narrowed a cone."""


@given(
    st.lists(st.one_of(step, copy, copy), min_size=1, max_size=14).map(lambda d: CHAIN + d),
    st.sampled_from([0, K]),
)
def test_held_gates_change_no_value_and_no_report(
    steps: list[tuple[str, str, int]], k: int
) -> None:
    """The same histories, every cone narrowed past its held gates
    (:mod:`stategraph.engine.held_gates`) beside every cone solved whole: the same reports but
    for how many states each solved, the same values, and those of the recorded program. A
    belief's context is the newest memories that hold, so that beliefs rest on beliefs in
    chains, as a plan written again rests on its copies; half the examples propose no
    candidates of their own (a proposer's guesses reach the fact from every copy)."""
    mems = {on: Memory(candidates=CandidateProposer(k=k) if k else None) for on in (True, False)}
    facts: list[str] = []
    reached: set[str] = set()
    for n, (kind, text, arg) in enumerate(steps, 1):
        sid = f"m{n}"
        old = facts.pop(arg % len(facts)) if kind in ("retract", "supersede") and facts else None
        reports = {}
        for on, mem in mems.items():
            with narrowing(on):
                if kind == "fact":
                    reports[on] = mem.fact(sid, text)
                elif kind in ("belief", "declared"):  # the newest first: copies on copies
                    newest = sorted(mem.holding(), key=lambda s: -int(s[1:]))[:arg]
                    if kind == "belief":
                        reports[on] = mem.belief(sid, text, context=newest)
                    elif newest:
                        reports[on] = mem.belief(sid, text, because=newest)
                elif old is not None and kind == "retract":
                    reports[on] = mem.retract(old)
                elif old is not None:
                    new = {"id": sid, "kind": "fact", "text": text}
                    reports[on] = mem.supersede(old, new)
        if kind == "fact" or (kind == "supersede" and old is not None):
            facts.append(sid)
        if reports:
            narrowed, whole = reports[True], reports[False]
            assert narrowed.model_dump(exclude={"solved"}) == whole.model_dump(exclude={"solved"})
            if narrowed.solved < whole.solved:
                reached.add("a cone narrowed past a held gate")
            if not narrowed.entries and whole.solved > 1:
                reached.add("a change moving nothing it reached")
        assert {s.id: mems[True].truth(s.id) for s in mems[True].states()} == {
            s.id: mems[False].truth(s.id) for s in mems[False].states()
        }
        check(mems[True])
    reach.note(reached, "held gates")
