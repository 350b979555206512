"""Two deliberately wrong engines: the property suite must catch both.

Each keeps a :class:`~stategraph.testing.graphs.Mirror` of its contents and recomputes what
holds from scratch with a plausible but wrong semantics, the two mistakes the design brief
warns about:

- :class:`SupportedModelEngine`: "a state holds if some justification's premises hold",
  computed as a fixpoint from above (start with everything active, drop what has no
  satisfied justification). A positive cycle keeps itself alive after its outside support goes.
- :class:`NoAlternativesEngine`: a derived state holds only if *all* of its justifications
  hold, so losing one support path kills a state that another path still carries.

Neither reports undefined states. Their reports are ``None``: only the core property (holding
and undefined sets against the oracle) runs on them.
"""

from __future__ import annotations

from collections.abc import Sequence

from stategraph.testing.graphs import FACT, ChangeSpec, Just, Mirror, Node


class _MirrorEngine:
    """Shared bookkeeping: contents in a mirror; subclasses decide what holds."""

    name = "mirror"

    def __init__(self) -> None:
        self.mirror = Mirror()

    def add(self, node: Node, justs: Sequence[Just]) -> None:
        self.mirror.add(node, justs)

    def revise(self, change: ChangeSpec) -> None:
        self.mirror.apply(change)

    def undefined(self) -> frozenset[str]:
        return frozenset()

    def close(self) -> None:
        pass

    def _facts_and_rules(self) -> tuple[set[str], dict[str, list[Just]]]:
        m = self.mirror
        facts = {s for s in m.active if m.nodes[s].kind == FACT}
        rules: dict[str, list[Just]] = {}
        for j in sorted(m.justs):
            if m.is_derived_active(j.head):
                rules.setdefault(j.head, []).append(j)
        return facts, rules


def _satisfied(j: Just, current: set[str]) -> bool:
    return all(p in current for p in j.premises) and not any(u in current for u in j.unless)


class SupportedModelEngine(_MirrorEngine):
    """Wrong: supported-model semantics, greatest fixpoint from above (cycles self-support)."""

    name = "wrong:supported-model"

    def holding(self) -> frozenset[str]:
        facts, rules = self._facts_and_rules()
        current = facts | set(rules)
        for _ in range(len(current) + 2):  # bounded: ``unless`` can make it oscillate
            nxt = facts | {h for h, js in rules.items() if any(_satisfied(j, current) for j in js)}
            if nxt == current:
                break
            current = nxt
        return frozenset(current)


class NoAlternativesEngine(_MirrorEngine):
    """Wrong: a derived state falls as soon as any one of its justifications fails."""

    name = "wrong:no-alternatives"

    def holding(self) -> frozenset[str]:
        facts, rules = self._facts_and_rules()
        current = set(facts)
        for _ in range(len(rules) + 2):
            nxt = facts | {h for h, js in rules.items() if all(_satisfied(j, current) for j in js)}
            if nxt == current:
                break
            current = nxt
        return frozenset(current)


WRONG_ENGINES = {e.name: e for e in (SupportedModelEngine, NoAlternativesEngine)}
"""Name -> factory, for the meta-test's parametrisation."""
