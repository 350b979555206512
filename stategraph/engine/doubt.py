"""Doubt does not travel through a candidate that is itself only in doubt.

An unchecked candidate premise ``p`` of a ``recovered`` justification is a *gate*: a node
``c`` the justification's body cites instead of ``p``. The gate holds while ``p`` holds; once
``p`` does not hold, losing it may or may not matter, so the gate is undefined (``c :- p`` and
``c :- not c``) and so is the memory, until a judge or a person settles the edge
(``docs/revision.md``). That is right when ``p`` is false: something the memory may rest on
went. It is wrong when ``p`` is only in doubt (undefined): a plan guessed to rest on a belief
that a change put in question is not itself in question until that belief is settled, and
the doubt spreading from guess to guess put the rent to-do of an agent's memory in question
for a cancelled trip. So a gate whose premise is undefined holds:

    gate(p) = true        when p is true or undefined,
              undefined   when p is false.

No normal program computes that (undefined in, true out; false in, undefined out: it is not
monotone in the knowledge order the well-founded model is built in). It is a second stratum
above ``p``: the value of ``p`` is found first, then the gate reads it. :func:`solve` computes
it in rounds. It solves the cone's program (:func:`~stategraph.engine.logic.propagated`, then
:func:`~stategraph.engine.logic.well_founded`); each gate whose premise came out undefined, and
whose premise depends on no other such gate, is made a fact; the program is solved again,
until no gate is left to make a fact. Making an undefined node true only makes the model more
defined (a true or false node stays as it was), so a gate's premise, once settled, stays
settled, and each round settles at least one gate: a revision with no undefined candidate
premise solves once, as before; a chain of ``d`` doubted candidates takes ``d + 1`` solves.

A gate whose premise depends on the gate itself (through the head it gates: a rule that
derives the premise from the memory it is a candidate of) stays as it was: made true, it would
let the memory support itself. Declared, rule, judge and review justifications have no gates:
their semantics is the well-founded model, exactly as before.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from stategraph.engine.logic import Program, WellFoundedModel, propagated, well_founded
from stategraph.values import TRUE, UNDEFINED, Truth

__all__ = ["Solved", "solve"]

Node = Hashable


@dataclass(frozen=True)
class Solved:
    """The model of a cone's program with its gates read as the module says.

    Attributes:
        settled: the nodes the facts settle (true), solved in Python.
        model: the well-founded model of the rest.
        held: the gates made facts: their premise is only in doubt.
        open: the gates whose premise is undefined and which stayed undefined (their premise
            depends on them).
        solves: how many times the program was solved.
    """

    settled: frozenset[Node]
    model: WellFoundedModel
    held: frozenset[Node]
    open: frozenset[Node]
    solves: int

    def value(self, node: Node) -> Truth:
        """A node's value (a node no rule derives is false)."""
        return TRUE if node in self.settled else self.model.value(node)


def solve(program: Program, gates: Mapping[Node, Node]) -> Solved:
    """Solve ``program``, whose ``gates`` (each gate node to its premise) are encoded as
    ``c :- p`` and ``c :- not c``, reading each gate as the module says."""
    held: set[Node] = set()
    current = program
    solves = 0
    while True:
        settled, rest = propagated(current)
        model = well_founded(rest)
        solves += 1
        found = Solved(settled, model, frozenset(held), frozenset(), solves)
        doubted = {g for g, p in gates.items() if g not in held and found.value(p) is UNDEFINED}
        if not doubted:
            return found
        downstream = _downstream(current, doubted)
        ready = {g for g in doubted if gates[g] not in downstream}
        if not ready:
            return Solved(settled, model, frozenset(held), frozenset(doubted), solves)
        held |= ready
        current = _holding(program, held)


def _downstream(program: Program, sources: set[Node]) -> set[Node]:
    """Every node that depends on one of ``sources`` (positively or through ``not``), and
    the sources themselves."""
    users: dict[Node, list[Node]] = {}
    for r in program.rules:
        for b in (*r.pos, *r.neg):
            users.setdefault(b, []).append(r.head)
    seen = set(sources)
    stack = list(sources)
    while stack:
        for head in users.get(stack.pop(), ()):
            if head not in seen:
                seen.add(head)
                stack.append(head)
    return seen


def _holding(program: Program, gates: set[Node]) -> Program:
    """``program`` with these gates facts (their own rules dropped)."""
    facts = [*program.facts, *(g for g in program.nodes() if g in gates)]
    return Program(facts=facts, rules=[r for r in program.rules if r.head not in gates])
