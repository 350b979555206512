"""The support graph in memory (states, justifications, truth values), and the cone of a
change.

A revision works on a *subgraph* the store loads for it (the states to solve, the states to
grade and their boundary) and throws it away afterwards; the store, not this object, is the
memory. So the graph can be mutated freely while a revision is computed: if anything fails,
nothing was persisted.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from stategraph.errors import DuplicateStateError, UnknownStateError
from stategraph.model import Justification, State, Truth
from stategraph.values import FALSE

__all__ = ["Cone", "JustKey", "SupportGraph"]

JustKey = tuple[str, tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class Cone:
    """The states a change reaches, and the part of them whose value it can change.

    A state that holds keeps holding while the justification that carries it (its *support*,
    chosen so that supports never form a cycle) keeps holding: it can change value only if one
    of the states that justification cites changes. So a change spreads along *open* edges:
    into a state that does not hold, or from a state its support cites. The states reached that
    way are the ones to solve; the rest of the cone keeps its value and is frozen like the
    states outside it. This is the pruning of a justification-based TMS (Doyle 1979), kept
    sound for the well-founded semantics: see ``docs/revision.md``.

    A bounded revision walks only part of the cone (:mod:`stategraph.engine.bounded`); the last
    three attributes say where it stopped, and are empty when it walked the whole cone.

    Attributes:
        depth: every state reachable from the seeds along premise and ``unless`` edges, with
            its hop distance (the affected cone, as reported); in a bounded walk, the states
            within the bound and those one hop past it.
        solve: the seeds and the states reachable from them along open edges.
        frontier: the states one hop past the bound with an open edge from a solved state,
            each with those solved states: what the change may move past the bound.
        uncertain: states outside ``solve`` whose value the change may move past the bound
            (the frontier among them): solved as undefined, never at a possibly stale value.
        limit: why the walk stopped (``depth_limit``, ``cone_limit``), or None.
        opened: the open edges the walk met, as the heads each source reaches (for
            :meth:`narrowed`); empty when nobody asked.
    """

    depth: dict[str, int]
    solve: frozenset[str]
    frontier: dict[str, tuple[str, ...]] = field(default_factory=dict)
    uncertain: frozenset[str] = frozenset()
    limit: str | None = None
    opened: Mapping[str, Sequence[str]] = field(default_factory=dict, repr=False, compare=False)

    def narrowed(self, kept: Collection[str]) -> Cone:
        """This cone solving only what the change can move when the states of ``kept``,
        which it reaches, are known to keep their value: the seeds and the states they reach
        along open edges *not through* a kept state. A kept state's dependents can then move
        only through something else the change reaches (``docs/revision.md``, "Steady
        heads"). The depths are the whole walk's, as reported."""
        seen = {s for s, d in self.depth.items() if d == 0}
        stack = [s for s in seen if s not in kept]
        while stack:
            for head in self.opened.get(stack.pop(), ()):
                if head not in seen:
                    seen.add(head)
                    if head not in kept:
                        stack.append(head)
        return replace(self, solve=frozenset(seen & self.solve))


class SupportGraph:
    """States, their justifications by head, and truth values.

    Nothing here indexes justifications by the states they cite: a revision finds dependents
    through the store's ``edges`` index, so such an index would only cost time for every
    justification a cone loads.

    Attributes:
        states: every state ever added, active or not (history is kept).
        inactive: ids of retracted or superseded states, mapped to the superseding id (or None).
        truth: each state's value in the current well-founded model. A working subgraph also
            holds here the values of its *boundary*: states its justifications cite that it
            did not load. A revision only reads their values (they are frozen), so the store
            loads nothing else of them; they are not in ``states``.
    """

    def __init__(self) -> None:
        self.states: dict[str, State] = {}
        self.inactive: dict[str, str | None] = {}
        self.truth: dict[str, Truth] = {}
        self._justs: dict[JustKey, Justification] = {}
        self._by_head: dict[str, dict[JustKey, None]] = {}
        self._sorted: dict[str, list[Justification]] = {}

    # ---- queries ------------------------------------------------------------------------

    def __contains__(self, state_id: object) -> bool:
        return state_id in self.states

    def __len__(self) -> int:
        return len(self.states)

    def state(self, state_id: str) -> State:
        """The state with this id.

        Raises:
            UnknownStateError: if there is none.
        """
        try:
            return self.states[state_id]
        except KeyError:
            raise UnknownStateError(state_id) from None

    def is_active(self, state_id: str) -> bool:
        """True for a known state that is neither retracted nor superseded."""
        return state_id in self.states and state_id not in self.inactive

    def value(self, state_id: str) -> Truth:
        """The current truth value; ids never added are false."""
        return self.truth.get(state_id, FALSE)

    def justifications_of(self, head: str) -> list[Justification]:
        """The justifications of a state, sorted by their identity (do not modify the list:
        grading asks for the same heads many times, so it is kept until they change)."""
        found = self._sorted.get(head)
        if found is None:
            keys = self._by_head.get(head, {})
            found = self._sorted[head] = [self._justs[k] for k in sorted(keys)]
        return found

    def justification(self, key: JustKey) -> Justification | None:
        """The justification with this identity, if present."""
        return self._justs.get(key)

    def supporters(self, head: str) -> Iterator[str]:
        """Ids that the justifications of ``head`` cite (premises and ``unless``)."""
        for k in self._by_head.get(head, ()):
            yield from k[1]
            yield from k[2]

    # ---- mutations ----------------------------------------------------------------------

    def add_state(self, state: State, truth: Truth = Truth.false) -> None:
        """Add a new state.

        Raises:
            DuplicateStateError: if the id is taken (also by a retracted state: ids are history).
        """
        if state.id in self.states:
            raise DuplicateStateError(state.id)
        self.states[state.id] = state
        self.truth[state.id] = truth

    def deactivate(self, state_id: str, superseded_by: str | None = None) -> None:
        """Mark a state retracted (or superseded); it stays in the graph as history."""
        self.inactive[state_id] = superseded_by

    def set_truth(self, state_id: str, truth: Truth) -> None:
        """Record a state's value in the current model."""
        self.truth[state_id] = truth

    def add_justification(self, j: Justification) -> Justification | None:
        """Add (or replace, same identity) a justification; returns the one it replaced."""
        key: JustKey = j.key
        old = self._justs.get(key)
        self._justs[key] = j
        self._sorted.pop(j.head, None)
        if old is None:
            self._by_head.setdefault(key[0], {})[key] = None
        return old

    def remove_justification(self, key: JustKey) -> Justification:
        """Remove a justification by identity.

        Raises:
            KeyError: if it is not present (callers validate first).
        """
        old = self._justs.pop(key)
        head = key[0]
        keys = self._by_head[head]
        del keys[key]
        if not keys:
            del self._by_head[head]
        self._sorted.pop(head, None)
        return old
