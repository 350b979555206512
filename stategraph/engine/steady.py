"""Steady heads: memories a change re-justifies that keep holding on facts alone, graded from
their justifications' identities instead of their justifications.

A dense fact (issue 23) gives a new rule justification to each of a thousand memories and
often takes one away from each (the linker keeps 64 per memory). Every such memory keeps
holding, and the revision's answer for it is small: kept, on which support, having lost
which justification, with which edges opened or closed. Solving and grading it the ordinary
way reads, builds and evaluates all its justifications, sixty times the answer's size.

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

from collections.abc import Iterable, Mapping
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

    new = [*change.assert_, *(s.with_ for s in change.supersede)]
    gone = {*change.retract, *(s.id for s in change.supersede)}
    facts = {sid for sid, (kind, _) in read.cited.items() if is_fact(kind)}
    facts.update(s.id for s in new if is_fact(s.kind))
    held = {sid for sid, (_, truth) in read.cited.items() if truth is TRUE}
    holds = (held - gone) | {s.id for s in new}
    added: dict[str, list[Justification]] = {}
    for j in change.add_justifications:
        added.setdefault(j.head, []).append(j)
    removed: dict[str, set[JustKey]] = {}
    for j in change.remove_justifications:
        removed.setdefault(j.head, set()).add(j.key)
    out: dict[str, Steady] = {}
    for head, lean in read.heads.items():
        found = _steady(
            head,
            lean,
            added.get(head, []),
            removed.get(head, set()),
            graph,
            policy,
            facts,
            held,
            holds,
        )
        if found is not None:
            out[head] = found
    return out


def _steady(
    head: str,
    lean: LeanHead,
    added: list[Justification],
    removed: set[JustKey],
    graph: SupportGraph,
    policy: Policy,
    facts: set[str],
    held: set[str],
    holds: set[str],
) -> Steady | None:
    st = graph.states.get(head)
    if (
        st is None
        or not lean.plain
        or not graph.is_active(head)
        or policy.is_exogenous(st)
        or graph.value(head) is not TRUE
    ):
        return None
    stored = set(lean.premises)
    if not removed <= {(head, p, ()) for p in stored}:
        return None  # an unless, or one it does not have (which validation then names)
    gone = {k[1] for k in removed}
    new: list[tuple[str, ...]] = []
    for j in added:
        if j.origin is Origin.recovered or j.unless or j.checked or j.premises in stored:
            return None
        new.append(j.premises)
    if len(set(new)) != len(new):
        return None
    kept = [p for p in lean.premises if p not in gone]
    final = sorted([*kept, *new])
    if not all(facts.issuperset(p) for p in final):
        return None
    support = next((p for p in final if holds.issuperset(p)), None)
    if support is None:
        return None
    old_hold = {p for p in lean.premises if held.issuperset(p)}
    new_hold = {p for p in final if holds.issuperset(p)}
    lost = tuple(
        ((head, p, ()), p in gone) for p in lean.premises if p in old_hold and p not in new_hold
    )
    cited = frozenset(x for p in final for x in p)
    was_cited = {x for p in lean.premises for x in p}
    keep = set(support)
    follow = tuple(
        (int(src in keep), src, head)
        for src in sorted(cited)
        if src not in was_cited or (src in lean.open) != (src in keep)
    )
    return Steady((head, support, ()), lost, old_hold != new_hold, cited, follow)


def supports_needed(steady: Mapping[str, Steady], change: Change) -> list[JustKey]:
    """The stored justifications a revision needs whole for its steady heads (their supports
    and what they lost without the change removing it), sorted; the change's own are not."""
    given = {j.key for j in (*change.add_justifications, *change.remove_justifications)}
    keys: set[JustKey] = set()
    for s in steady.values():
        keys.add(s.support)
        keys.update(k for k, _ in s.lost)
    return sorted(keys - given)


def whole(
    keys: Iterable[JustKey],
    stored: Mapping[JustKey, Justification],
    given: Mapping[JustKey, Justification],
) -> dict[JustKey, Justification]:
    """The justifications with these identities: the change's own (``given``, by identity),
    else the store's."""
    return {k: given[k] if k in given else stored[k] for k in keys}
