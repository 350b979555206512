"""Candidate proposal and what it means, held to a from-scratch oracle.

Memories are written the way an agent writes them: text from a small vocabulary (so that
lexical neighbours exist), often with no basis at all, sometimes with ``context``; facts get
retracted and superseded. After every step:

- the engine's holding and undefined sets are the well-founded model of the program its
  *recorded* justifications make, where an unchecked candidate premise ``p`` of a recovered
  justification is an auxiliary atom ``c`` with ``c :- p`` and ``c :- not c`` (true while
  ``p`` holds, undefined once it does not): the contract of ``docs/revision.md``, computed by
  the plain-Python alternating fixpoint, never by the engine;
- what was decided at write time is what the contract says: a derived memory written with no
  basis got exactly one stand-in (a recovered justification of at most ``k`` memories that
  held when it was written, or an ``assumed`` one when there was nothing to propose); a fact
  never got a justification, its ``context`` is kept as provenance.
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given
from hypothesis import strategies as st

from stategraph import Memory
from stategraph.candidates import CandidateProposer
from stategraph.model import Justification, Origin, Truth

from .oracles.wfm import Rule, well_founded_model

WORDS = ("flight", "tokyo", "hotel", "rent", "shanghai", "move", "dentist", "refill", "gym")
K = 3

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
step = st.one_of(
    st.tuples(st.just("fact"), texts, st.just(0)),
    st.tuples(st.just("belief"), texts, st.integers(0, 3)),  # how many context ids
    st.tuples(st.just("retract"), st.just(""), st.integers(0, 50)),
    st.tuples(st.just("supersede"), texts, st.integers(0, 50)),
)


def oracle_rules(justs: Iterable[Justification]) -> list[Rule]:
    """The program of the recorded justifications, candidates as auxiliary atoms."""
    rules: list[Rule] = []
    for j in justs:
        candidates = set(j.candidates())
        checked_out = {p for p, c in j.checked.items() if c.value == "independent"}
        body = []
        for p in j.premises:
            if p in checked_out:
                continue
            if p in candidates:
                aux = f"candidate|{j.head}|{','.join(j.premises)}|{p}"
                rules += [(aux, (p,), ()), (aux, (), (aux,))]
                body.append(aux)
            else:
                body.append(p)
        rules.append((j.head, tuple(body), j.unless))
    return rules


def check(mem: Memory) -> None:
    states = mem.states()
    active = {s.id for s in states if mem.is_active(s.id)}
    facts = {s.id for s in states if s.kind == "fact" and s.id in active}
    justs = [j for j in mem.justifications() if j.head in active]
    model = well_founded_model(facts, oracle_rules(justs))
    ids = {s.id for s in states}
    assert mem.holding() == model.true & ids
    assert mem.undefined() == model.undefined & ids


@given(st.lists(step, min_size=1, max_size=14))
def test_revisions_follow_the_recorded_candidates(steps: list[tuple[str, str, int]]) -> None:
    mem = Memory(candidates=CandidateProposer(k=K))
    facts: list[str] = []
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
                assert len(j.premises) <= max(K, len(context))
                assert {j.proposed[c] for c in context} <= {"context"}
        elif kind == "retract" and facts:
            old = facts.pop(arg % len(facts))
            mem.retract(old)
        elif kind == "supersede" and facts:
            old = facts.pop(arg % len(facts))
            mem.supersede(old, {"id": sid, "kind": "fact", "text": text})
            facts.append(sid)
        check(mem)
    for s in mem.states():
        if s.kind == "fact":
            assert mem.justifications(s.id) == []


def test_a_fact_keeps_its_context_as_provenance() -> None:
    mem = Memory()
    mem.fact("f1", "rent in shanghai")
    mem.fact("f2", "move to tokyo", context=["f1"])
    assert mem.justifications("f2") == []
    assert mem.state("f2").metadata["context"] == ["f1"]
    assert mem.retract("f1").entry("f2") is None
    assert mem.truth("f2") is Truth.true
