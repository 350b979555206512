"""Steady heads: memories a change re-justifies that keep holding on facts alone, graded from
their justifications' identities instead of their justifications.

A dense fact (issue 23) gives a new rule justification to each of a thousand memories and
often takes one away from each (the linker keeps the store's cap, 16 to 64, per memory).
Every such memory keeps holding, and the revision's answer for it is small: kept, on which
support, having lost which justification, with which edges opened or closed. Solving and
grading it the ordinary way reads, builds and evaluates all its justifications, up to sixty
times the answer's size.

A head is *steady* when every justification it has after the change is plain (no ``unless``,
not ``recovered``, nothing checked: its body is its premises) and cites facts only, one of
them holds after the change, and the head held before it. Then:

- it holds after the change whatever else the change does (a rule whose body is true facts);
- it is on no cycle (nothing but facts is cited), so the cone program keeps the same model and
  the same path when its rules are replaced by one unconditional rule;
- its support is the justification with the smallest identity among those that hold: every
  one of them is at height 1, and :func:`~stategraph.engine.derivation.derivation_levels`
  takes the first usable one at height 1;
- which of its justifications hold before and after is known from the values of the facts
  they cite, before the change (as stored) and after it (as the change leaves them).

So the store hands over each candidate head's premises, sorted (:class:`LeanHead`), and the
stored state of what they cite; :func:`steady_heads` decides which heads are steady and works
out everything the revision reports or writes for them (:class:`Steady`). Whatever is not
steady is loaded and revised as before. ``tests/core/test_steady.py`` holds every report
and table to what the ordinary path gives, change after change.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from stategraph.engine.graph import Cone, JustKey, SupportGraph
from stategraph.engine.policy import Policy
from stategraph.model import Change, Justification, Origin
from stategraph.values import TRUE, Truth

__all__ = [
    "LeanHead",
    "LeanRead",
    "Steady",
    "lean_candidates",
    "steady_heads",
    "supports_needed",
    "whole",
]


@dataclass(frozen=True)
class LeanHead:
    """What a store reads of a head a revision may grade without its justifications.

    Attributes:
        premises: the premises of each stored justification, sorted (as the identities sort).
        plain: every stored justification is plain: no ``unless``, not ``recovered``, and
            nothing checked, noted or proposed.
        open: the states whose stored edges into the head are open.
    """

    premises: tuple[tuple[str, ...], ...]
    plain: bool
    open: frozenset[str]


@dataclass(frozen=True)
class LeanRead:
    """A store's answer for the candidate heads of one revision.

    Attributes:
        heads: each candidate head the store read this way (a head it did not must be
            loaded whole).
        cited: the kind and stored value of every state their justifications cite.
    """

    heads: Mapping[str, LeanHead]
    cited: Mapping[str, tuple[str, Truth]]


@dataclass(frozen=True)
class Steady:
    """What the revision reports and writes for one steady head.

    Attributes:
        support: the justification that carries it after the change.
        lost: the justifications that held before and do not after, sorted by identity,
            each with whether the change removed it.
        changed: whether the justifications that hold changed (else it gets no entry).
        cited: every state its justifications cite after the change.
        follow: ``(open, src, head)`` for each edge into it whose flag the change sets to
            something other than what is stored (new edges included).
    """

    support: JustKey
    lost: tuple[tuple[JustKey, bool], ...]
    changed: bool
    cited: frozenset[str]
    follow: tuple[tuple[int, str, str], ...]


def lean_candidates(change: Change, cone: Cone) -> set[str]:
    """The heads a change acts on through their justifications alone: those it neither
    asserts, retracts nor supersedes, nor cites in a justification it adds. Only in a revision
    that walked its whole cone (a bounded one opens edges wholesale)."""
    if cone.limit is not None:
        return set()
    touched = {j.head for j in (*change.add_justifications, *change.remove_justifications)}
    named = {*change.retract, *(s.id for s in change.supersede)}
    named.update(s.id for s in (*change.assert_, *(s.with_ for s in change.supersede)))
    named.update(x for j in change.add_justifications for x in (*j.premises, *j.unless))
    return touched - named


def steady_heads(
    read: LeanRead, graph: SupportGraph, policy: Policy, change: Change
) -> dict[str, Steady]:
    """The heads of ``read`` that are steady under ``change`` (see the module).

    Args:
        read: what the store read of the candidate heads.
        graph: the revision's graph, with the candidate heads' states loaded (before the
            change is applied).
        policy: which kinds are facts.
        change: the (prepared) change.
    """
    kinds = policy.kinds

    def is_fact(kind: str) -> bool:
        kp = kinds.get(kind)
        return kp is not None and kp.exogenous

    asserted = [*change.assert_, *(s.with_ for s in change.supersede)]
    ended = {*change.retract, *(s.id for s in change.supersede)}
    facts = {sid for sid, (kind, _) in read.cited.items() if is_fact(kind)}
    facts.update(s.id for s in asserted if is_fact(s.kind))
    held = {sid for sid, (_, truth) in read.cited.items() if truth is TRUE}
    # a stored state the change cites anew (a death hands the capped memories the next live
    # derivation, through facts they did not cite) is in the graph: the change names it
    for x in {x for j in change.add_justifications for x in j.premises} - read.cited.keys():
        cited_state = graph.states.get(x)
        if cited_state is not None:
            if is_fact(cited_state.kind):
                facts.add(x)
            if graph.value(x) is TRUE:
                held.add(x)
    holds = (held - ended) | {s.id for s in asserted}
    added: dict[str, list[Justification]] = {}
    for j in change.add_justifications:
        added.setdefault(j.head, []).append(j)
    removed: dict[str, set[JustKey]] = {}
    for j in change.remove_justifications:
        removed.setdefault(j.head, set()).add(j.key)
    shapes: dict[tuple[object, ...], _Shape | None] = {}
    out: dict[str, Steady] = {}
    for head, lean in read.heads.items():
        st = graph.states.get(head)
        if (
            st is None
            or not lean.plain
            or not graph.is_active(head)
            or policy.is_exogenous(st)
            or graph.value(head) is not TRUE
        ):
            continue
        dropped = removed.get(head, set())
        if any(k[2] for k in dropped) or any(
            j.origin is Origin.recovered or j.unless or j.checked for j in added.get(head, ())
        ):
            continue
        new = tuple(j.premises for j in added.get(head, ()))
        gone = frozenset(k[1] for k in dropped)
        key = (lean.premises, new, gone)
        if key not in shapes:  # the members of a dense group share one
            shapes[key] = _shape(lean.premises, new, gone, facts, held, holds)
        shape = shapes[key]
        if shape is None:
            continue
        flips = (lean.open ^ shape.keep) & shape.cited
        follow = tuple((int(src in shape.keep), src, head) for src in sorted(shape.fresh | flips))
        out[head] = Steady(
            (head, shape.support, ()),
            tuple(((head, p, ()), removed_) for p, removed_ in shape.lost),
            shape.changed,
            shape.cited,
            follow,
        )
    return out


@dataclass(frozen=True)
class _Shape:
    """What a steady head's revision is, whatever the head (see :class:`Steady`): the
    premises of its support and of what it lost, the states cited after the change, those
    cited for the first time, and those its support cites."""

    support: tuple[str, ...]
    lost: tuple[tuple[tuple[str, ...], bool], ...]
    changed: bool
    cited: frozenset[str]
    fresh: frozenset[str]
    keep: frozenset[str]


def _shape(
    stored: tuple[tuple[str, ...], ...],
    new: tuple[tuple[str, ...], ...],
    gone: frozenset[tuple[str, ...]],
    facts: set[str],
    held: set[str],
    holds: set[str],
) -> _Shape | None:
    """The head-free part of a steady head's revision, or None when it is not steady:
    ``stored`` are the premises of its justifications (sorted), ``new`` those the change adds,
    ``gone`` those it removes; ``facts`` the states that are facts, ``held`` and ``holds``
    the states that hold before and after the change."""
    have = set(stored)
    if not gone <= have or have.intersection(new) or len(set(new)) != len(new):
        return None  # one it does not have (which validation then names), or one twice
    final = sorted([*(p for p in stored if p not in gone), *new])
    if not all(facts.issuperset(p) for p in final):
        return None
    support = next((p for p in final if holds.issuperset(p)), None)
    if support is None:
        return None
    old_hold = {p for p in stored if held.issuperset(p)}
    new_hold = {p for p in final if holds.issuperset(p)}
    lost = tuple((p, p in gone) for p in stored if p in old_hold and p not in new_hold)
    cited = frozenset(x for p in final for x in p)
    was_cited = {x for p in stored for x in p}
    return _Shape(support, lost, old_hold != new_hold, cited, cited - was_cited, frozenset(support))


def supports_needed(steady: Mapping[str, Steady], given: Collection[JustKey]) -> list[JustKey]:
    """The stored justifications a revision needs whole for its steady heads (their supports
    and what they lost without the change removing it), sorted; those the change itself
    adds or removes (``given``) are not."""
    keys: set[JustKey] = set()
    for s in steady.values():
        keys.add(s.support)
        keys.update(k for k, _ in s.lost)
    return sorted(keys.difference(given))


def whole(
    keys: Iterable[JustKey],
    stored: Mapping[JustKey, Justification],
    given: Mapping[JustKey, Justification],
) -> dict[JustKey, Justification]:
    """The justifications with these identities: the change's own (``given``, by identity),
    else the store's."""
    return {k: given[k] if k in given else stored[k] for k in keys}
