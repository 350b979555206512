"""Oracle (a): the well-founded model by Van Gelder's alternating fixpoint, in plain Python.

Input is the contract's logic program without the engine in the loop: the set of active facts
and one rule ``(head, premises, unless)`` per justification of an active derived state.
Retracted or superseded states are simply absent from both, so they never hold.

``Gamma(S)`` is the least model of the positive program left after deleting every rule blocked
by ``S`` (some ``unless`` atom in ``S``). Starting from the empty underestimate ``T``, the
alternating fixpoint computes ``U = Gamma(T)`` (what may be true: only certainly true atoms
block) and ``T' = Gamma(U)`` (what must be true: anything possibly true blocks). ``T`` grows
monotonically; at its fixpoint ``T`` is the true set and ``U - T`` the undefined set. This is
deliberately the textbook construction, not the engine's cone-local solving, so the two can
disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Rule = tuple[str, Sequence[str], Sequence[str]]
"""``(head, premises, unless)``."""


@dataclass(frozen=True)
class Model:
    """A three-valued model: ``true`` and ``undefined`` atoms; every other atom is false."""

    true: frozenset[str]
    undefined: frozenset[str]

    def value(self, atom: str) -> str:
        """``"true"``, ``"undefined"`` or ``"false"`` (the engine's Truth values, as strings)."""
        if atom in self.true:
            return "true"
        return "undefined" if atom in self.undefined else "false"


def least_model(
    facts: Iterable[str], rules: Iterable[Rule], blocked_by: frozenset[str]
) -> set[str]:
    """Least model of the facts plus the rules none of whose ``unless`` atoms is in ``blocked_by``.

    A counting worklist: each usable rule waits for its number of distinct premises to be
    derived, so the cost is linear in the size of the program.
    """
    derived: set[str] = set(facts)
    waiting: dict[str, list[int]] = {}
    missing: list[int] = []
    heads: list[str] = []
    queue: list[str] = list(derived)
    for head, premises, unless in rules:
        if any(u in blocked_by for u in unless):
            continue
        index = len(heads)
        heads.append(head)
        distinct = set(premises)
        missing.append(len(distinct))
        for p in distinct:
            waiting.setdefault(p, []).append(index)
        if not distinct and head not in derived:
            derived.add(head)
            queue.append(head)
    seen_premises: set[str] = set()
    while queue:
        atom = queue.pop()
        if atom in seen_premises:
            continue
        seen_premises.add(atom)
        for index in waiting.get(atom, ()):
            missing[index] -= 1
            if missing[index] == 0 and heads[index] not in derived:
                derived.add(heads[index])
                queue.append(heads[index])
    return derived


def well_founded_model(facts: Iterable[str], rules: Iterable[Rule]) -> Model:
    """The well-founded model of ``facts`` and ``rules`` by the alternating fixpoint."""
    fact_set = frozenset(facts)
    rule_list = [(h, tuple(p), tuple(u)) for h, p, u in rules]
    true: frozenset[str] = frozenset()
    while True:
        possible = frozenset(least_model(fact_set, rule_list, blocked_by=true))
        certain = frozenset(least_model(fact_set, rule_list, blocked_by=possible))
        if certain == true:
            return Model(true=true, undefined=possible - true)
        true = certain
