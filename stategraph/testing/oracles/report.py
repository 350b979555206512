"""Oracle (c): every field of a revision's report, from the contract and two models alone.

Given the memory before and after a change (the test-side mirror) and the well-founded model
of each (oracle (a)), this says which states a report must list and, for each, what it must
say: old and new value, verdict, cause, depth, who decided, the consequence for an action,
every lost support with the premises that failed, the ``unless`` states that block it and
whether the change removed it, the negative cycle of an undefined state and its undecided
conditions; and, for the states the change itself acted on, how and by what. It shares no
code with the engine: the negative cycles, in particular, are strongly connected components
computed here over every undefined state, not only over what a revision happened to solve.

What it does not say, because the contract leaves it to the engine's history: which of
several justifications that hold is named as surviving (the property checks it holds), how
much of the cone was solved, and how.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from stategraph.testing.graphs import FACT, ChangeSpec, Just, Mirror, hop_distances
from stategraph.testing.oracles.wfm import Model

TRUE, FALSE, UNDEFINED = "true", "false", "undefined"


@dataclass(frozen=True)
class Lost:
    """A justification that held before the change and does not after."""

    premises: tuple[str, ...]
    unless: tuple[str, ...]
    failed: tuple[str, ...]
    blocked_by: tuple[str, ...]
    removed: bool


@dataclass(frozen=True)
class Expected:
    """One entry of the report, as the contract has it."""

    id: str
    kind: str
    old: str
    new: str
    verdict: str
    cause: str
    depth: int
    decided_by: str
    consequence: str | None
    lost: tuple[Lost, ...]
    cycle: tuple[str, ...]
    undecided: tuple[str, ...]


@dataclass(frozen=True)
class Changed:
    """A state the change itself retracted, superseded or asserted."""

    id: str
    action: str
    by: str | None
    new: str


def value_of(j: Just, model: Model) -> str:
    """A justification's three-valued truth: false if a premise is false or an ``unless``
    state true, else undefined if any of them is undefined, else true."""
    values = [model.value(p) for p in j.premises]
    blocks = [model.value(u) for u in j.unless]
    if FALSE in values or TRUE in blocks:
        return FALSE
    if UNDEFINED in values or UNDEFINED in blocks:
        return UNDEFINED
    return TRUE


def changed_states(change: ChangeSpec, new: Model) -> tuple[Changed, ...]:
    """``report.changed``: every state the change retracts, supersedes or asserts, by id."""
    out = [Changed(r, "retracted", None, FALSE) for r in change.retract]
    for old, node in change.supersede:
        out.append(Changed(old, "superseded", node.id, FALSE))
        out.append(Changed(node.id, "asserted", None, new.value(node.id)))
    out += [Changed(n.id, "asserted", None, new.value(n.id)) for n in change.assert_]
    return tuple(sorted(out, key=lambda c: c.id))


def negative_cycles(after: Mirror, new: Model) -> dict[str, tuple[str, ...]]:
    """For every undefined state on a cycle through ``unless`` among undefined states, the
    states of that cycle (its strongly connected component, Tarjan's algorithm)."""
    undefined = {s for s in new.undefined if after.is_derived_active(s)}
    succ: dict[str, set[str]] = {}
    negative: set[tuple[str, str]] = set()
    for j in after.justs:
        if j.head not in undefined or value_of(j, new) != UNDEFINED:
            continue
        for p in j.premises:
            if p in undefined:
                succ.setdefault(p, set()).add(j.head)
        for u in j.unless:
            if u in undefined:
                succ.setdefault(u, set()).add(j.head)
                negative.add((u, j.head))
    out: dict[str, tuple[str, ...]] = {}
    for comp in _components(sorted(undefined), succ):
        if any(a in comp and b in comp for a, b in negative):
            members = tuple(sorted(comp))
            out.update(dict.fromkeys(members, members))
    return out


def _components(nodes: list[str], succ: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    comps: list[set[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(succ.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        comp.add(member)
                        if member == node:
                            break
                    comps.append(comp)
    return comps


def _lost(before: Iterable[Just], after: set[Just], old: Model, new: Model) -> tuple[Lost, ...]:
    out = []
    for j in sorted(before):
        if value_of(j, old) != TRUE or (j in after and value_of(j, new) == TRUE):
            continue
        if j not in after:
            out.append(Lost(j.premises, j.unless, (), (), True))
            continue
        failed = tuple(p for p in j.premises if new.value(p) != TRUE)
        blocked = tuple(u for u in j.unless if new.value(u) != FALSE)
        out.append(Lost(j.premises, j.unless, failed, blocked, False))
    return tuple(out)


def loses_more(justs: Iterable[Just], old: Model, new: Model) -> bool:
    """Whether the change takes more of an undefined state's basis: a premise of one of its
    justifications that was not already false held and holds no longer, or an ``unless`` of one
    holds now. Such a state is
    reported again (undefined before and after), so that the person who settles it hears of
    the change (``docs/revision.md``)."""
    for j in justs:
        if value_of(j, old) == FALSE:
            continue  # no part of the doubt before
        if any(old.value(p) == TRUE and new.value(p) != TRUE for p in j.premises):
            return True
        if any(old.value(u) != TRUE and new.value(u) == TRUE for u in j.unless):
            return True
    return False


def expected_entries(
    change: ChangeSpec, before: Mirror, after: Mirror, old: Model, new: Model
) -> list[Expected]:
    """``report.entries``, in the report's order (depth, then id).

    A state is listed when it is an active derived state the change did not act on itself,
    and its value changed or the set of its justifications that hold did, or it stays in doubt
    and the change takes more of its basis (:func:`loses_more`).
    """
    depth = hop_distances(change.seeds(), after)
    cycles = negative_cycles(after, new)
    touched = change.touched()
    out = []
    for sid in sorted(after.nodes):
        if sid in touched or not after.is_derived_active(sid):
            continue
        was, now = before.justifications_of(sid), set(after.justifications_of(sid))
        held = {j for j in was if value_of(j, old) == TRUE}
        hold = {j for j in now if value_of(j, new) == TRUE}
        doubted = new.value(sid) == UNDEFINED and loses_more(now, old, new)
        if old.value(sid) == new.value(sid) and held == hold and not doubted:
            continue
        lost = _lost(was, now, old, new)
        node = after.nodes[sid]
        undecided: tuple[str, ...] = ()
        cycle: tuple[str, ...] = ()
        decided_by = "logic"
        if new.value(sid) == UNDEFINED:
            verdict = "needs_confirmation"
            cycle = cycles.get(sid, ())
            cause = "negative_cycle" if cycle else "undefined_premise"
            undecided = tuple(
                sorted(
                    {
                        x
                        for j in now
                        if value_of(j, new) == UNDEFINED
                        for x in (*j.premises, *j.unless)
                        if new.value(x) == UNDEFINED
                    }
                )
            )
        elif new.value(sid) == TRUE:
            verdict = "kept" if old.value(sid) == TRUE else "restored"
            cause = "alternative_support" if lost else "new_support"
        else:
            verdict, cause = "invalidated", "no_support"
        consequence = None
        if node.kind == "action":
            if verdict == "invalidated" and node.status == "executed":
                verdict, decided_by = "needs_confirmation", "policy"
            if verdict == "invalidated":
                consequence = "cancel"
            elif verdict == "needs_confirmation":
                consequence = "review"
        out.append(
            Expected(
                sid,
                node.kind,
                old.value(sid),
                new.value(sid),
                verdict,
                cause,
                depth[sid],
                decided_by,
                consequence,
                lost,
                cycle,
                undecided,
            )
        )
    return sorted(out, key=lambda e: (e.depth, e.id))


def cone_size(change: ChangeSpec, before: Mirror) -> int:
    """How many states the change reaches along premise and ``unless`` edges, itself
    included (a state it asserts is reached, though it has no edges yet)."""
    return len(hop_distances(change.seeds(), before))


__all__ = [
    "FACT",
    "Changed",
    "Expected",
    "Lost",
    "changed_states",
    "cone_size",
    "expected_entries",
    "negative_cycles",
    "value_of",
]
