"""Derivations over justifications: their three-valued value, their heights, and the lowest
well-founded proof of a state.

A proof must be well-founded: "A holds because B holds, and B holds because A holds" is no
proof. :func:`derivation_levels` computes, for every holding state, the height of its lowest
derivation (Knuth's generalisation of Dijkstra to AND/OR graphs); a proof always picks a
justification whose premises sit strictly lower, so it can never go round a cycle.

Nothing here needs pydantic: the functions read justifications through :class:`Derivable`, which
the model's :class:`~stategraph.model.Justification` is and :class:`PlainJustification` (rows
read straight from a store, for ``stategraph why``) is too. The revision, the explanations of
:mod:`.explain` and the command line share this one algorithm, so they cannot disagree.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from stategraph.engine.proof_text import Premised
from stategraph.errors import InconsistentStoreError
from stategraph.values import FALSE, TRUE, UNDEFINED, EdgeCheck, Origin, Truth

__all__ = [
    "UNFOUNDED",
    "Derivable",
    "Held",
    "PlainJustification",
    "body",
    "candidate_notes",
    "derivation_levels",
    "failures",
    "in_doubt",
    "justification_value",
    "levelled",
    "lowest_proof",
]

_RANK = {FALSE: 0, UNDEFINED: 1, TRUE: 2}
_BY_RANK = (FALSE, UNDEFINED, TRUE)
_RECOVERED = Origin.recovered

Value = Callable[[str], Truth]
Key = tuple[str, tuple[str, ...], tuple[str, ...]]

UNFOUNDED = (
    "is stored as holding, but no justification of it holds on the stored values of its premises"
)
"""What :class:`~stategraph.errors.InconsistentStoreError` says of a holding state with no
well-founded derivation."""


class Derivable(Premised, Protocol):
    """What the algorithms read of a justification (and its proof's text, of the one used)."""

    @property
    def head(self) -> str: ...
    @property
    def checked(self) -> Mapping[str, EdgeCheck]: ...
    @property
    def key(self) -> Key: ...
    def candidates(self) -> tuple[str, ...]: ...


J = TypeVar("J", bound=Derivable)


@dataclass(frozen=True, slots=True)
class PlainJustification:
    """A justification as plain data, with the fields and meaning of
    :class:`~stategraph.model.Justification`, for readers that trust where it came from (the
    store's own rows) and must not pay for the models' import."""

    head: str
    premises: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    origin: Origin = Origin.declared
    checked: Mapping[str, EdgeCheck] = field(default_factory=dict)
    notes: Mapping[str, str] = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    proposed: Mapping[str, str] = field(default_factory=dict)

    @property
    def key(self) -> Key:
        """The identity of the justification."""
        return (self.head, self.premises, self.unless)

    def candidates(self) -> tuple[str, ...]:
        """Premises of a recovered justification that have not been checked yet."""
        if self.origin is not _RECOVERED:
            return ()
        return tuple(p for p in self.premises if p not in self.checked)


def body(j: Derivable) -> tuple[str, ...]:
    """The premises that count: those not checked and found independent."""
    if not j.checked:
        return j.premises
    return tuple(p for p in j.premises if j.checked.get(p) != "independent")


Held = Callable[[Derivable, str], bool]
"""Whether an unchecked candidate premise that is undefined is held in doubt: its gate holds
and the justification counts it as satisfied (:mod:`stategraph.engine.doubt`)."""


def in_doubt(j: Derivable, p: str) -> bool:
    """Every undefined candidate premise is only in doubt: the gate holds (the reading of a
    stored model, and of a revision's but for the gates it left undefined)."""
    return True


def justification_value(j: Derivable, value: Value, held: Held | None = in_doubt) -> Truth:
    """The three-valued truth of a justification's body under ``value``.

    An unchecked candidate premise of a ``recovered`` justification counts as true while it
    holds, as undefined once it is false (losing it may or may not matter, logic cannot
    tell), and, while it is undefined, as true where ``held`` says it is only in doubt (a
    doubt does not travel through a candidate: :mod:`stategraph.engine.doubt`) and as
    undefined elsewhere (``held=None``: nowhere, as a bounded walk reads what it left
    uncertain).
    """
    rank = 2
    if j.origin is not _RECOVERED:  # no candidates: the hot path of every revision
        for p in body(j):
            v = value(p)
            if v is FALSE:
                return FALSE
            if v is UNDEFINED:
                rank = 1
        for u in j.unless:
            v = value(u)
            if v is TRUE:
                return FALSE
            if v is UNDEFINED:
                rank = 1
        return _BY_RANK[rank]
    candidates = set(j.candidates())
    for p in body(j):
        v = value(p)
        r = _RANK[v]
        if p in candidates and r < 2:
            r = 2 if v is UNDEFINED and held is not None and held(j, p) else 1
        rank = min(rank, r)
        if rank == 0:
            return FALSE
    for u in j.unless:
        rank = min(rank, 2 - _RANK[value(u)])
        if rank == 0:
            return FALSE
    return _BY_RANK[rank]


def levelled(j: Derivable, value: Value) -> tuple[str, ...]:
    """The premises a derivation through ``j`` stands on: its body but the candidate premises
    only in doubt (undefined), which a proof names and does not derive."""
    if j.origin is not _RECOVERED:
        return body(j)
    candidates = j.candidates()
    return tuple(p for p in body(j) if p not in candidates or value(p) is not UNDEFINED)


def failures(j: Derivable, value: Value) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The premises that do not hold and the ``unless`` states that do not fail, sorted."""
    failed = tuple(p for p in body(j) if value(p) is not TRUE)
    blocked = tuple(u for u in j.unless if value(u) is not FALSE)
    return failed, blocked


def derivation_levels(
    heads: Iterable[str],
    justs_of: Callable[[str], list[J]],
    is_base: Callable[[str], bool],
    value: Value,
    usable: Callable[[J], bool] | None = None,
    held: Held | None = in_doubt,
) -> dict[str, tuple[int, J | None]]:
    """Height of the lowest derivation of each true state among ``heads``.

    Args:
        heads: the states to level (premises outside this set must be base states).
        justs_of: the justifications of a head, sorted by identity (as every store and graph
            gives them: the first one that can be used at height 1 is then the one chosen).
        is_base: states of height 0 (active facts, and true states outside the scope).
        value: truth of any state in the current model.
        usable: which justifications may be used (all that hold, without it); a head with
            no usable derivation is left out of the result.
        held: which undefined candidate premises are only in doubt (see
            :func:`justification_value`); a derivation stands on the others (:func:`levelled`).

    Returns:
        ``{id: (height, justification used)}`` for every head and base premise reached; the
        justification is None for base states. Deterministic: ties go to the smallest key.
    """
    scope = set(heads)
    level: dict[str, tuple[int, J | None]] = {}
    waiting: dict[str, list[tuple[J, list[int]]]] = {}
    heap: list[tuple[int, Key, str]] = []
    pending_of: dict[Key, J] = {}

    for h in sorted(scope):
        if is_base(h):
            heapq.heappush(heap, (0, ("", (), ()), h))
            continue
        # A justification citing no head is at height 1: of those, only the smallest key can
        # be chosen (every height-1 entry is queued before any is taken), so only it is queued
        # (a head with sixty rule justifications over facts queues one, not sixty); and as
        # they come sorted by key, none after it can be chosen either: the loop ends there.
        first: J | None = None
        for j in justs_of(h):
            if justification_value(j, value, held) is not TRUE:
                continue
            if usable is not None and not usable(j):
                continue
            prem = levelled(j, value)
            if scope.isdisjoint(prem):
                for p in prem:
                    if p not in level:
                        level[p] = (0, None)
                first = j
                break
            counter = [len(prem), 0]  # premises still unlevelled, max level seen
            for p in prem:
                if p not in scope and p not in level:
                    level[p] = (0, None)
                waiting.setdefault(p, []).append((j, counter))
        if first is not None:
            heapq.heappush(heap, (1, first.key, h))
            pending_of[first.key] = first
    # base premises outside the scope release their dependents first
    ready = [p for p, (lv, _) in level.items() if lv == 0]
    for p in sorted(ready):
        _release(p, 0, waiting, heap, pending_of)
    while heap:
        lv, key, h = heapq.heappop(heap)
        if h in level:
            continue
        level[h] = (lv, pending_of.get(key) if key[0] else None)
        _release(h, lv, waiting, heap, pending_of)
    return level


def _release(
    p: str,
    lv: int,
    waiting: dict[str, list[tuple[J, list[int]]]],
    heap: list[tuple[int, Key, str]],
    pending_of: dict[Key, J],
) -> None:
    for j, counter in waiting.pop(p, ()):
        counter[0] -= 1
        counter[1] = max(counter[1], lv)
        if counter[0] == 0:
            pending_of[j.key] = j
            heapq.heappush(heap, (counter[1] + 1, j.key, j.head))


def lowest_proof(
    state_id: str,
    justs_of: Callable[[str], list[J]],
    is_base: Callable[[str], bool],
    value: Value,
    known: Callable[[str], bool],
) -> list[tuple[str, int, J | None]]:
    """The steps of the lowest well-founded derivation of a holding state.

    Args:
        state_id: the state to prove (it must hold).
        justs_of: the justifications of a state, sorted by identity.
        is_base: states that hold without justification (active facts).
        value: the stored truth of any state.
        known: whether a state is stored whole (a proof names each step's kind and text).

    Returns:
        ``(id, height, justification used)`` for each state the proof names, sorted by height
        then id (the justification is None for a base state).

    Raises:
        InconsistentStoreError: a state the proof needs holds, but none of its justifications
            holds on its premises' stored values (an edit of the tables leaves that).
    """
    # the true ancestors reachable through true justifications
    scope: set[str] = set()
    stack = [state_id]
    while stack:
        s = stack.pop()
        if s in scope:
            continue
        scope.add(s)
        if is_base(s):
            continue
        for j in justs_of(s):
            if justification_value(j, value) is TRUE:
                stack.extend(p for p in levelled(j, value) if p not in scope)
    levels = derivation_levels(scope, justs_of, is_base, value)
    used: dict[str, tuple[int, J | None]] = {}
    stack = [state_id]
    while stack:
        s = stack.pop()
        if s in used:
            continue
        if s not in levels or not known(s):
            raise InconsistentStoreError(s, UNFOUNDED)
        used[s] = levels[s]
        by = levels[s][1]
        if by is not None:
            stack.extend(levelled(by, value))
    return sorted(((s, h, by) for s, (h, by) in used.items()), key=lambda step: (step[1], step[0]))


def candidate_notes(justs: Iterable[Derivable]) -> dict[str, str]:
    """How the candidate premises of a state's ``recovered`` justifications were classified,
    and why (a proof prints them after its steps)."""
    return {p: note for j in justs if j.origin is _RECOVERED for p, note in j.notes.items()}
