"""Oracle (d): what must hold over the justifications a memory has *recorded*.

The mirror (:mod:`stategraph.testing.graphs`) models what a memory must contain after a
sequence of declared changes. A memory with rule packs, a grounder, candidate proposal or a
judge adds justifications of its own, which the mirror cannot foresee; this oracle takes them
as given and says what must hold over them, from scratch (:mod:`.wfm`): the well-founded model
of the program they make, where, as ``docs/revision.md`` has it, an unchecked candidate
premise ``p`` of a ``recovered`` justification is an auxiliary atom ``c`` with ``c :- p`` and
``c :- not c`` (true while ``p`` holds, undefined once it does not), and a candidate checked
independent drops out of the body. Then a doubt does not travel through a candidate: the
auxiliary atom of a premise that is undefined, and that does not depend on the atom, is made a
fact and the model computed again, until there is none left (the premise is settled first,
the candidate read above it; see :mod:`stategraph.engine.doubt`, which this does not use).

It reads the memory's states and justifications as data and none of the engine's logic, so a
revision that solves the wrong cone, keeps a stale value or mishandles a candidate disagrees
with it.
"""

from __future__ import annotations

from collections.abc import Iterable

from stategraph.memory import Memory
from stategraph.model import EdgeCheck, Justification
from stategraph.testing.oracles.wfm import Model, Rule, well_founded_model

__all__ = ["assert_follows_recorded_program", "recorded_model", "recorded_rules"]


def recorded_rules(
    justs: Iterable[Justification], gates: dict[str, str] | None = None
) -> list[Rule]:
    """The program of the recorded justifications, candidates as auxiliary atoms (each
    recorded in ``gates`` with its premise, when given)."""
    rules: list[Rule] = []
    for j in justs:
        candidates = set(j.candidates())
        checked_out = {p for p, c in j.checked.items() if c is EdgeCheck.independent}
        body = []
        for p in j.premises:
            if p in checked_out:
                continue
            if p in candidates:
                aux = f"candidate|{j.head}|{','.join(j.premises)}|{p}"
                rules += [(aux, (p,), ()), (aux, (), (aux,))]
                body.append(aux)
                if gates is not None:
                    gates[aux] = p
            else:
                body.append(p)
        rules.append((j.head, tuple(body), j.unless))
    return rules


def recorded_model(memory: Memory) -> Model:
    """The well-founded model of ``memory``'s active facts and the recorded justifications of
    its active states, restricted to its states (auxiliary atoms left out)."""
    states = memory.store.states()  # the atom nodes of rule links too
    active = {s.id for s in states if memory.is_active(s.id)}
    facts = {s.id for s in states if s.id in active and memory.policy.is_exogenous(s)}
    justs = [j for j in memory.store.justifications() if j.head in active]
    gates: dict[str, str] = {}
    rules = recorded_rules(justs, gates)
    model = well_founded_model(facts, rules)
    held: set[str] = set()
    while True:
        doubted = {c for c, p in gates.items() if c not in held and p in model.undefined}
        ready = {c for c in doubted if not _depends(rules, gates[c], doubted)}
        if not ready:
            break
        held |= ready
        rules = [r for r in rules if r[0] not in ready]
        model = well_founded_model(facts | held, rules)
    ids = frozenset(s.id for s in memory.states())
    return Model(model.true & ids, model.undefined & ids)


def _depends(rules: list[Rule], atom: str, on: set[str]) -> bool:
    """Whether ``atom`` depends, through the rules, on any of the atoms ``on``."""
    seen, stack = {atom}, [atom]
    while stack:
        a = stack.pop()
        if a in on:
            return True
        for head, premises, unless in rules:
            if head == a:
                for b in (*premises, *unless):
                    if b not in seen:
                        seen.add(b)
                        stack.append(b)
    return False


def assert_follows_recorded_program(memory: Memory, where: str = "") -> None:
    """The memory's holding and undefined sets are :func:`recorded_model`'s.

    Raises:
        AssertionError: naming the states on which they differ.
    """
    model = recorded_model(memory)
    holding, undefined = memory.holding(), memory.undefined()
    at = f" {where}" if where else ""
    assert holding == model.true, (
        f"holding set{at} differs from the recorded program's model; memory-only "
        f"{sorted(holding - model.true)}, oracle-only {sorted(model.true - holding)}"
    )
    assert undefined == model.undefined, (
        f"undefined set{at} differs from the recorded program's model; memory "
        f"{sorted(undefined)}, oracle {sorted(model.undefined)}"
    )
