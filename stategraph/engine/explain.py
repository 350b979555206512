"""Explanations: why a state holds (a proof of minimal height) and why another does not.

A proof must be well-founded: "A holds because B holds, and B holds because A holds" is no
proof. :func:`derivation_levels` computes, for every holding state, the height of its lowest
derivation (Knuth's generalisation of Dijkstra to AND/OR graphs); a proof always picks a
justification whose premises sit strictly lower, so it can never go round a cycle.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from stategraph.errors import InconsistentStoreError, NotHoldingError
from stategraph.escaping import LINE_ESCAPES
from stategraph.model import FALSE, TRUE, UNDEFINED, Justification, JustificationRef, Origin, Truth

if TYPE_CHECKING:
    from stategraph.engine.graph import SupportGraph
    from stategraph.engine.policy import Policy

__all__ = [
    "Proof",
    "ProofStep",
    "WhyNot",
    "WhyNotItem",
    "body",
    "confirmed_by",
    "derivation_levels",
    "justification_value",
    "why",
    "why_not",
]

_RANK = {FALSE: 0, UNDEFINED: 1, TRUE: 2}
_BY_RANK = (FALSE, UNDEFINED, TRUE)
_RECOVERED = Origin.recovered

Value = Callable[[str], Truth]


def body(j: Justification) -> tuple[str, ...]:
    """The premises that count: those not checked and found independent."""
    if not j.checked:
        return j.premises
    return tuple(p for p in j.premises if j.checked.get(p) != "independent")


def justification_value(j: Justification, value: Value) -> Truth:
    """The three-valued truth of a justification's body under ``value``.

    An unchecked candidate premise of a ``recovered`` justification counts as true while it
    holds and as undefined otherwise: losing it may or may not matter, logic cannot tell.
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
        r = _RANK[value(p)]
        if p in candidates and r < 2:
            r = 1
        rank = min(rank, r)
        if rank == 0:
            return Truth.false
    for u in j.unless:
        rank = min(rank, 2 - _RANK[value(u)])
        if rank == 0:
            return Truth.false
    return _BY_RANK[rank]


def failures(j: Justification, value: Value) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The premises that do not hold and the ``unless`` states that do not fail, sorted."""
    failed = tuple(p for p in body(j) if value(p) is not TRUE)
    blocked = tuple(u for u in j.unless if value(u) is not FALSE)
    return failed, blocked


def derivation_levels(
    heads: Iterable[str],
    justs_of: Callable[[str], list[Justification]],
    is_base: Callable[[str], bool],
    value: Value,
    usable: Callable[[Justification], bool] | None = None,
) -> dict[str, tuple[int, Justification | None]]:
    """Height of the lowest derivation of each true state among ``heads``.

    Args:
        heads: the states to level (premises outside this set must be base states).
        justs_of: the justifications of a head.
        is_base: states of height 0 (active facts, and true states outside the scope).
        value: truth of any state in the current model.
        usable: which justifications may be used (all that hold, without it); a head with
            no usable derivation is left out of the result.

    Returns:
        ``{id: (height, justification used)}`` for every head and base premise reached; the
        justification is None for base states. Deterministic: ties go to the smallest key.
    """
    scope = set(heads)
    level: dict[str, tuple[int, Justification | None]] = {}
    waiting: dict[str, list[tuple[Justification, list[int]]]] = {}
    heap: list[tuple[int, tuple[str, tuple[str, ...], tuple[str, ...]], str]] = []
    pending_of: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Justification] = {}

    for h in sorted(scope):
        if is_base(h):
            heapq.heappush(heap, (0, ("", (), ()), h))
            continue
        # A justification citing no head is at height 1: of those, only the smallest key can
        # be chosen (every height-1 entry is queued before any is taken), so only it is queued
        # (a head with sixty rule justifications over facts queues one, not sixty).
        first: Justification | None = None
        for j in justs_of(h):
            if justification_value(j, value) is not TRUE:
                continue
            if usable is not None and not usable(j):
                continue
            prem = body(j)
            if scope.isdisjoint(prem):
                for p in prem:
                    if p not in level:
                        level[p] = (0, None)
                if first is None or j.key < first.key:
                    first = j
                continue
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
    waiting: dict[str, list[tuple[Justification, list[int]]]],
    heap: list[tuple[int, tuple[str, tuple[str, ...], tuple[str, ...]], str]],
    pending_of: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Justification],
) -> None:
    for j, counter in waiting.pop(p, ()):
        counter[0] -= 1
        counter[1] = max(counter[1], lv)
        if counter[0] == 0:
            pending_of[j.key] = j
            heapq.heappush(heap, (counter[1] + 1, j.key, j.head))


class ProofStep(BaseModel):
    """One state in a proof, with the justification it rests on (None for a fact)."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str
    text: str
    height: int
    by: JustificationRef | None


class Proof(BaseModel):
    """A well-founded derivation of ``root``: every step's premises appear at lower height."""

    model_config = ConfigDict(frozen=True)

    root: str
    steps: tuple[ProofStep, ...]
    """Sorted by height then id; the root is last among its height."""
    checks: dict[str, str] = {}
    """How the root's candidate (``context``) premises were classified, and why."""

    def step(self, state_id: str) -> ProofStep:
        """The step that proves one state."""
        return next(s for s in self.steps if s.id == state_id)

    def render(self) -> str:
        """The proof as an indented tree; a state proved earlier is printed once.

        Walked with an explicit stack, not recursion, so a proof of any height renders (a
        chain of 200,000 hops is a legitimate memory). Indentation stops growing at 40 levels
        and deeper lines name their depth instead, so the text stays linear in the size of
        the proof rather than quadratic in its height. Control, line-separator and bidi
        characters in ids and texts are escaped, so a memory cannot forge or reorder a line.
        """
        max_indent = 40
        lines: list[str] = []
        seen: set[str] = set()
        steps = {s.id: s for s in self.steps}
        stack: list[tuple[str, int]] = [(self.root, 0)]
        while stack:
            sid, depth = stack.pop()
            s = steps[sid]
            pad = "  " * min(depth, max_indent)
            if depth > max_indent:
                pad += f"[depth {depth}] "
            label = f"{s.id} [{s.kind}] {s.text}".rstrip()
            if s.by is None:
                lines.append(f"{pad}{label}  (fact)")
                continue
            if sid in seen:
                lines.append(f"{pad}{label}  (shown above)")
                continue
            seen.add(sid)
            if s.by.origin is Origin.review:
                lines.append(f"{pad}{label}  <- {confirmed_by(s.by)}")
                continue
            unless = f", unless {', '.join(s.by.unless)} (none holds)" if s.by.unless else ""
            rules = f" via {', '.join(s.by.rules)}" if s.by.rules else ""
            lines.append(f"{pad}{label}  <- {s.by.origin.value}{rules}{unless}")
            lines.extend(f"{pad}    ({note})" for _, note in sorted(s.by.notes.items()))
            stack.extend((p, depth + 1) for p in reversed(s.by.premises))
        lines.extend(f"candidate {p}: {note}" for p, note in sorted(self.checks.items()))
        return "\n".join(line.translate(LINE_ESCAPES) for line in lines)


def confirmed_by(ref: Justification | JustificationRef) -> str:
    """A ``review`` justification in words: "confirmed by X on AT: note" (its notes say who,
    when if the caller gave it, and why; :mod:`stategraph.review`)."""
    on = f" on {ref.notes['at']}" if ref.notes.get("at") else ""
    note = f": {ref.notes['note']}" if ref.notes.get("note") else ""
    return f"confirmed by {ref.notes.get('by', '?')}{on}{note}"


def why(graph: SupportGraph, policy: Policy, state_id: str) -> Proof:
    """The lowest well-founded derivation of a holding state.

    Raises:
        UnknownStateError: if the id is unknown.
        NotHoldingError: if the state does not hold (use :func:`why_not`).
    """
    graph.state(state_id)
    if graph.value(state_id) is not Truth.true:
        raise NotHoldingError(state_id, graph.value(state_id).value)

    def is_base(s: str) -> bool:
        return graph.is_active(s) and policy.is_exogenous(graph.states[s])

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
        for j in graph.justifications_of(s):
            if justification_value(j, graph.value) is Truth.true:
                stack.extend(p for p in body(j) if p not in scope)
    levels = derivation_levels(scope, graph.justifications_of, is_base, graph.value)
    used: dict[str, tuple[int, Justification | None]] = {}
    stack = [state_id]
    while stack:
        s = stack.pop()
        if s in used:
            continue
        if s not in levels or s not in graph.states:
            raise InconsistentStoreError(s, _UNFOUNDED)
        used[s] = levels[s]
        by = levels[s][1]
        if by is not None:
            stack.extend(body(by))
    steps = []
    for sid, (height, by) in used.items():
        st = graph.states[sid]
        ref = None
        if by is not None:
            ref = by.ref().model_copy(update={"premises": body(by)})
        steps.append(ProofStep(id=sid, kind=st.kind, text=st.text, height=height, by=ref))
    steps.sort(key=lambda s: (s.height, s.id))
    checks = {
        p: note
        for j in graph.justifications_of(state_id)
        if j.origin is Origin.recovered
        for p, note in j.notes.items()
    }
    return Proof(root=state_id, steps=tuple(steps), checks=checks)


class WhyNotItem(BaseModel):
    """One justification of a non-holding state and what stops it."""

    model_config = ConfigDict(frozen=True)

    justification: JustificationRef
    value: Truth
    first_failed: str | None
    """The first premise (in sorted order) that does not hold."""
    blocked_by: str | None
    """The first ``unless`` state that holds (or is undecided)."""


class WhyNot(BaseModel):
    """Why a state does not hold."""

    model_config = ConfigDict(frozen=True)

    id: str
    truth: Truth
    status: str
    """``retracted``, ``superseded by <id>``, ``no justification`` or ``unsupported``."""
    items: tuple[WhyNotItem, ...]

    def render(self) -> str:
        """Human-readable lines."""
        lines = [f"{self.id} is {self.truth.value}: {self.status}"]
        for it in self.items:
            ref = it.justification
            if ref.origin is Origin.review:
                lines.append(f"  <- {confirmed_by(ref)} ({it.value.value})")
                continue
            why_ = []
            if it.first_failed:
                why_.append(f"premise {it.first_failed} does not hold")
            if it.blocked_by:
                why_.append(f"blocked by {it.blocked_by}")
            lines.append(
                f"  <- [{', '.join(ref.premises)}]"
                + (f" unless [{', '.join(ref.unless)}]" if ref.unless else "")
                + f" ({ref.origin.value}): {'; '.join(why_) or it.value.value}"
            )
            lines.extend(f"      ({note})" for _, note in sorted(ref.notes.items()))
        return "\n".join(line.translate(LINE_ESCAPES) for line in lines)


def why_not(graph: SupportGraph, policy: Policy, state_id: str) -> WhyNot:
    """For each justification of a state, the first premise that fails or the ``unless`` that
    blocks it. Works for holding states too (then every item says what would break it)."""
    st = graph.state(state_id)
    truth = graph.value(state_id)
    if state_id in graph.inactive:
        by = graph.inactive[state_id]
        status = f"superseded by {by}" if by else "retracted"
    elif policy.is_exogenous(st):
        status = "active fact"
    else:
        status = "unsupported" if graph.justifications_of(state_id) else "no justification"
        if truth is not Truth.false:
            status = "holds" if truth is Truth.true else "undecided"
    _check_consistent(graph, policy, state_id)
    items = []
    for j in graph.justifications_of(state_id):
        failed, blocked = failures(j, graph.value)
        items.append(
            WhyNotItem(
                justification=j.ref(),
                value=justification_value(j, graph.value),
                first_failed=failed[0] if failed else None,
                blocked_by=blocked[0] if blocked else None,
            )
        )
    return WhyNot(id=state_id, truth=truth, status=status, items=tuple(items))


_UNFOUNDED = (
    "is stored as holding, but no justification of it holds on the stored values of its premises"
)


def _check_consistent(graph: SupportGraph, policy: Policy, state_id: str) -> None:
    """Refuse to explain a state whose stored value its own record contradicts: a retracted or
    superseded state that holds, an active fact that does not, a derived state that holds
    though every justification of it fails (each is what an edit of the tables leaves).

    Raises:
        InconsistentStoreError: naming the state.
    """
    truth = graph.value(state_id)
    if state_id in graph.inactive:
        if truth is not Truth.false:
            raise InconsistentStoreError(
                state_id, f"is retracted or superseded, but stored as {truth.value}"
            )
    elif policy.is_exogenous(graph.states[state_id]):
        if truth is not Truth.true:
            raise InconsistentStoreError(state_id, f"is an active fact stored as {truth.value}")
    elif truth is Truth.true and all(
        justification_value(j, graph.value) is Truth.false
        for j in graph.justifications_of(state_id)
    ):
        raise InconsistentStoreError(state_id, _UNFOUNDED)
