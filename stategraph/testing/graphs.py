"""Plain-data mirror of a memory, written independently of the engine.

The property tests describe support graphs and changes with these small frozen dataclasses, not
with the engine's pydantic models: the oracles and the wrong engines must not share code with the
engine they judge. :class:`Mirror` replays a scenario the way the contract says a memory should
evolve (which states exist, which are active, which justifications there are) and hands the
oracle exactly its input: the active facts and the justifications of active derived states.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from stategraph.testing.oracles.wfm import Model, Rule, well_founded_model

FACT = "fact"
DERIVED_KINDS = ("belief", "plan", "action")


@dataclass(frozen=True, order=True)
class Node:
    """A state as the tests see it: id, kind, (for actions) status, and grounded atoms.

    The atoms matter only to a memory with rule packs (they are how its rules link states);
    the mirror ignores them, so a scenario with atoms is held to the recorded program
    (:mod:`stategraph.testing.oracles.program`) instead.
    """

    id: str
    kind: str = FACT
    status: str | None = None
    atoms: tuple[str, ...] = ()

    def __repr__(self) -> str:
        status = f"[{self.status}]" if self.status else ""
        atoms = f"{{{', '.join(self.atoms)}}}" if self.atoms else ""
        return f"{self.kind}:{self.id}{status}{atoms}"


@dataclass(frozen=True, order=True)
class Just:
    """``head <- premises (all hold), not unless (none holds)``; premises/unless sorted."""

    head: str
    premises: tuple[str, ...]
    unless: tuple[str, ...] = ()

    @staticmethod
    def of(head: str, premises: Iterable[str], unless: Iterable[str] = ()) -> Just:
        """Build a justification with the id lists normalised (sorted, deduplicated)."""
        return Just(head, tuple(sorted(set(premises))), tuple(sorted(set(unless))))

    def as_rule(self) -> Rule:
        """The justification as the oracle's input triple."""
        return (self.head, self.premises, self.unless)

    def __repr__(self) -> str:
        neg = "".join(f", not {u}" for u in self.unless)
        return f"{self.head} <- {', '.join(self.premises)}{neg}"


@dataclass(frozen=True)
class ChangeSpec:
    """One atomic revision: every part applies at once."""

    retract: tuple[str, ...] = ()
    assert_: tuple[Node, ...] = ()
    supersede: tuple[tuple[str, Node], ...] = ()
    add: tuple[Just, ...] = ()
    remove: tuple[Just, ...] = ()

    def seeds(self) -> frozenset[str]:
        """The states the change acts on directly: the roots of its cone, at depth 0."""
        ids = set(self.retract) | {n.id for n in self.assert_}
        for old, new in self.supersede:
            ids |= {old, new.id}
        ids |= {j.head for j in self.add + self.remove}
        return frozenset(ids)

    def touched(self) -> frozenset[str]:
        """States the change retracts, supersedes or asserts (reported in ``changed`` only)."""
        ids = set(self.retract) | {n.id for n in self.assert_}
        for old, new in self.supersede:
            ids |= {old, new.id}
        return frozenset(ids)

    def __repr__(self) -> str:
        parts = [f"retract {r}" for r in self.retract]
        parts += [f"assert {n!r}" for n in self.assert_]
        parts += [f"supersede {o} by {n!r}" for o, n in self.supersede]
        parts += [f"add [{j!r}]" for j in self.add]
        parts += [f"remove [{j!r}]" for j in self.remove]
        return "Change(" + "; ".join(parts) + ")"


@dataclass(frozen=True)
class Scenario:
    """A memory built in order, then revised.

    ``nodes`` are added in order, each derived one with justifications that cite only earlier
    states (premises must exist when a state is added). ``extra`` justifications may cite later
    states, closing positive and negative cycles; they are added in one change once every state
    exists. ``changes`` are then applied one by one.
    """

    nodes: tuple[tuple[Node, tuple[Just, ...]], ...]
    extra: tuple[Just, ...] = ()
    changes: tuple[ChangeSpec, ...] = ()

    def steps(self) -> Iterator[ChangeSpec]:
        """The extra justifications (as one change, when there are any), then the changes."""
        if self.extra:
            yield ChangeSpec(add=self.extra)
        yield from self.changes

    def mirror(self) -> Mirror:
        """The mirror after every add and step of the scenario."""
        mirror = Mirror()
        for node, justs in self.nodes:
            mirror.add(node, justs)
        for step in self.steps():
            mirror.apply(step)
        return mirror

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Hypothesis prints falsifying examples with this: the readable form below."""
        printer.text(repr(self))

    def __repr__(self) -> str:
        lines = ["Scenario("]
        for node, justs in self.nodes:
            alts = " | ".join(f"({', '.join(j.premises)}" + _neg(j) + ")" for j in justs)
            lines.append(f"  {node!r}" + (f" <- {alts}" if alts else ""))
        lines += [f"  extra {j!r}" for j in self.extra]
        lines += [f"  {c!r}" for c in self.changes]
        return "\n".join([*lines, ")"])


def _neg(j: Just) -> str:
    return "".join(f", not {u}" for u in j.unless)


@dataclass
class Mirror:
    """What a memory holds after a sequence of adds and changes, by the contract alone.

    A derived state written with no justification holds as an assumption of its source: an
    empty justification made when it is written (never afterwards), withdrawn when a
    justification for it is declared later.
    """

    nodes: dict[str, Node] = field(default_factory=dict)
    active: set[str] = field(default_factory=set)
    justs: set[Just] = field(default_factory=set)
    assumed: set[str] = field(default_factory=set)
    """Heads holding an assumption made when they were written."""

    def add(self, node: Node, justs: Iterable[Just] = ()) -> None:
        """Add a new active state with its justifications."""
        justs = set(justs)
        self.nodes[node.id] = node
        self.active.add(node.id)
        if node.kind != FACT and not any(j.head == node.id for j in justs):
            justs.add(Just(node.id, ()))
            self.assumed.add(node.id)
        self.justs |= justs

    def apply(self, change: ChangeSpec) -> None:
        """Apply one change: superseded and retracted states stop holding for good."""
        new = {n.id for n in change.assert_} | {n.id for _, n in change.supersede}
        stand_ins = {j.head for j in change.add if j.head in self.assumed and j.head not in new}
        self.justs -= {Just(h, ()) for h in stand_ins}
        self.assumed -= stand_ins
        for old, node in change.supersede:
            self.active.discard(old)
            self.add(node, [j for j in change.add if j.head == node.id])
        self.active -= set(change.retract)
        for node in change.assert_:
            self.add(node, [j for j in change.add if j.head == node.id])
        self.justs -= set(change.remove)
        self.justs |= set(change.add)

    def copy(self) -> Mirror:
        """An independent copy (the state before a change, for verdict checks)."""
        return Mirror(dict(self.nodes), set(self.active), set(self.justs), set(self.assumed))

    def is_derived_active(self, sid: str) -> bool:
        """True for an active state that is not a fact."""
        return sid in self.active and self.nodes[sid].kind != FACT

    def facts(self) -> frozenset[str]:
        """The oracle's facts: active states of kind fact."""
        return frozenset(s for s in self.active if self.nodes[s].kind == FACT)

    def rules(self) -> list[Rule]:
        """The oracle's rules: justifications of active derived states."""
        return [j.as_rule() for j in sorted(self.justs) if self.is_derived_active(j.head)]

    def model(self) -> Model:
        """The well-founded model of the mirror, from scratch."""
        return well_founded_model(self.facts(), self.rules())

    def justifications_of(self, head: str) -> list[Just]:
        """The justifications of one head, sorted."""
        return sorted(j for j in self.justs if j.head == head)

    def edges(self) -> dict[str, set[str]]:
        """Premise/unless -> head adjacency over every justification (the cascade direction)."""
        out: dict[str, set[str]] = {}
        for j in self.justs:
            for src in j.premises + j.unless:
                out.setdefault(src, set()).add(j.head)
        return out


def hop_distances(seeds: Iterable[str], *graphs: Mirror) -> dict[str, int]:
    """Shortest premise/unless hop distance from any seed, over the union of the graphs' edges.

    Written here (breadth-first search) rather than taken from the engine, so the depth
    property compares the engine's ``depth`` against an independent computation.
    """
    adjacency: dict[str, set[str]] = {}
    for g in graphs:
        for src, heads in g.edges().items():
            adjacency.setdefault(src, set()).update(heads)
    dist = {s: 0 for s in seeds}
    queue = deque(sorted(dist))
    while queue:
        cur = queue.popleft()
        for nxt in sorted(adjacency.get(cur, ())):
            if nxt not in dist:
                dist[nxt] = dist[cur] + 1
                queue.append(nxt)
    return dist
