"""The systems the benchmark compares, behind one small interface, and the graph baselines.

Every system gets the same :class:`~stategraph.bench.cases.Case` and answers with a
:class:`Prediction`. Baselines decide only *which* states they consider lost; the grading of a
lost state is the same policy for every system (:func:`grade`): a lost pending action is
invalidated with ``cancel``, a lost executed action is flagged with ``review``, anything else is
invalidated. That way the comparison measures dependency tracking, not grading.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from stategraph.bench.casegraph import alternatives, dependents, hop_distances
from stategraph.bench.cases import Case

__all__ = [
    "DescendantsSystem",
    "DirectSystem",
    "NoneSystem",
    "Prediction",
    "System",
    "grade",
]


@dataclass(frozen=True)
class Prediction:
    """What a system says a case's change does.

    Attributes:
        invalidated: states it marks as no longer holding.
        flagged: states it defers to a human (``needs_confirmation``); never scored as invalid.
        consequences: ``{action id: "cancel" | "review"}``.
        restored: states it says hold again (only systems that reason about ``unless`` say so).
        waiting: states that still hold but rest only on what is in doubt, so that a reader is
            asked about that first (stategraph's ``rests_on_doubt``,
            :mod:`stategraph.review.waiting`): neither kept silently nor asked about
            themselves.
        error: set when the system failed on this case (the prediction is then empty).
        stats: what it cost, for systems that report it (stategraph): ``judge_calls``
            (requests sent to the judge for the change, retries included; one request may
            ask about several memories), ``judge_tokens`` (what they cost, as reported or,
            for the gold oracle, estimated), ``edges`` (candidate edges the
            change put in question), ``edges_logic`` / ``edges_judge`` / ``edges_flagged``
            (who settled them), ``derived`` (derived memories), ``candidates`` (candidate
            premises they were given in all) and ``max_candidates`` (the most any one got).
    """

    invalidated: frozenset[str] = frozenset()
    flagged: frozenset[str] = frozenset()
    consequences: dict[str, str] = field(default_factory=dict)
    restored: frozenset[str] = frozenset()
    waiting: frozenset[str] = frozenset()
    error: str | None = None
    stats: Mapping[str, int] = field(default_factory=dict)


@runtime_checkable
class System(Protocol):
    """A memory-revision strategy under test."""

    name: str

    def run(self, case: Case) -> Prediction:
        """Predict the effect of ``case.change`` on ``case.memories``."""
        ...


def grade(case: Case, lost: Iterable[str]) -> Prediction:
    """Turn the set of states a baseline considers lost into a prediction (shared policy)."""
    changed = case.change.changed_ids()
    invalidated: set[str] = set()
    flagged: set[str] = set()
    consequences: dict[str, str] = {}
    for sid in sorted(set(lost) - changed):
        m = case.memory(sid)
        if m is None:
            continue
        if m.kind == "action" and m.status == "executed":
            flagged.add(sid)
            consequences[sid] = "review"
            continue
        invalidated.add(sid)
        if m.kind == "action":
            consequences[sid] = "cancel"
    return Prediction(frozenset(invalidated), frozenset(flagged), consequences)


class NoneSystem:
    """Edit only the changed state, as today's memory stores do: nothing else moves."""

    name = "none"

    def run(self, case: Case) -> Prediction:
        """Predict no collateral effect at all."""
        return Prediction()


class DescendantsSystem:
    """Cascade-on-delete: every transitive dependent along any edge, no alternative check."""

    name = "descendants"

    def run(self, case: Case) -> Prediction:
        """Invalidate everything reachable from the changed states."""
        reach = hop_distances(case)
        return grade(case, (s for s, d in reach.items() if d > 0))


class DirectSystem:
    """The textbook one-hop check.

    A direct dependent of a changed state is lost when none of its alternatives survives the
    change itself: an alternative fails when it needs a removed state or is blocked by a new
    one. Nothing cascades further.
    """

    name = "direct"

    def run(self, case: Case) -> Prediction:
        """Check each direct dependent's alternatives against the change only."""
        removed = case.change.removed_ids()
        added = {m.id for m in case.change.added()}
        alts = alternatives(case)
        children = dependents(case)
        direct = set().union(*(children.get(s, set()) for s in case.change.changed_ids()))
        lost = [
            s
            for s in sorted(direct)
            if not any(not (p & removed) and not (u & added) for p, u in alts.get(s, []))
        ]
        return grade(case, lost)
