"""Reporting a new fact that reverses or replaces a holding one, and asking about it.

The preparer reads each new fact for a reversal (:meth:`stategraph.prepare.Preparer.reversals`)
and, by the memory's policy, either turns its assertion into a supersession of the old fact
or leaves it an assertion to be asked about. This module finishes the revision: it puts every
reversal on the report (:attr:`~stategraph.model.Report.reversals`), and for an asked one it
flags the old fact and everything that would go with it, for a person:

- what would go is what the revision of retracting the old facts would invalidate or leave
  undecided, computed by the same solver on the same store (one dry run for all the old facts
  a revision puts in question, never written): the memories resting on them with no other
  support, and no more, those an earlier change left in doubt among them; each names the old
  facts its lost or undecided support cited (or all of them, for one further down);
- each is reported ``needs_confirmation`` with cause ``possibly_replaced``, its value kept
  (as for a memory a new fact may defeat: logic has no reason to drop it, and a person
  decides), the old fact with the new one as what is undecided, the others with the old fact;
- a person answers the question of the reversal on the old fact: rejecting it retracts the
  fact, and what rested on it alone goes; confirming it keeps the fact, and what rests on it
  is graded again (:mod:`stategraph.review`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from stategraph.engine.graph import SupportGraph
from stategraph.engine.revise import Revision
from stategraph.judge.settle import DEFEATED
from stategraph.model import (
    Change,
    Consequence,
    DecidedBy,
    Entry,
    Reason,
    Reversal,
    Verdict,
)
from stategraph.values import FALSE, TRUE, Truth

__all__ = ["CAUSE", "note_reversals"]

CAUSE = "possibly_replaced"
"""The cause of the entries an asked reversal flags."""

_GOING = (Verdict.invalidated, Verdict.needs_confirmation)


def note_reversals(
    rev: Revision,
    reversals: Sequence[Reversal],
    solve: Callable[[Change], tuple[Revision, SupportGraph]],
    kinds: Mapping[str, str],
    actions: frozenset[str],
    citing: Callable[[Sequence[str]], set[str]] | None = None,
) -> Revision:
    """The revision with its reversals reported, and what an asked one puts in question
    flagged.

    Args:
        rev: the revision as solved (and settled).
        reversals: what the preparer found, in the change's order.
        solve: the revision's solver, for the dry run of retracting an old fact.
        kinds: the kinds of the old facts (by id).
        actions: the kinds that are actions (their flag carries consequence ``review``).
        citing: the stored heads citing some states, when the store can say: the dry run is
            skipped when nothing cites the old facts (their retraction takes nothing else).
    """
    if not reversals:
        return rev
    entries = {e.id: e for e in rev.report.entries}
    asked: list[str] = []
    for r in reversals:
        if r.outcome != "asked" or r.old in entries:
            continue
        entries[r.old] = _flag(r.old, kinds.get(r.old, "fact"), 0, (r.new,), actions)
        asked.append(r.old)
    olds = sorted(set(asked))
    if olds and (citing is None or citing(olds)):  # one dry run for them all
        dry = solve(Change(retract=tuple(olds)))[0].report
        going = set(olds)
        for e in dry.entries:
            # a memory the new fact may defeat is asked about the fact it may replace instead:
            # the question that settles it (and both leave its value as it is)
            flagged = entries.get(e.id)
            if flagged is not None and flagged.reason.cause != DEFEATED:
                continue
            if e.verdict in _GOING and e.old is not FALSE:
                named = {p for lost in e.reason.lost for p in lost.failed}
                cause = (named | set(e.reason.undecided)) & going
                entries[e.id] = _flag(
                    e.id, e.kind, e.depth, tuple(sorted(cause or olds)), actions, e.old
                )
    ordered = sorted(entries.values(), key=lambda e: (e.depth, e.id))
    noted = tuple(sorted(reversals, key=lambda r: (r.new, r.old)))
    report = rev.report.model_copy(update={"entries": tuple(ordered), "reversals": noted})
    return Revision(report, rev.writes, rev.depth)


def _flag(
    sid: str,
    kind: str,
    depth: int,
    undecided: tuple[str, ...],
    actions: frozenset[str],
    value: Truth = TRUE,
) -> Entry:
    """A memory put in question, its value kept: holding, or already in doubt (a memory an
    earlier change left in doubt is asked about again, with this cause)."""
    return Entry(
        id=sid,
        kind=kind,
        old=value,
        new=value,
        verdict=Verdict.needs_confirmation,
        depth=depth,
        decided_by=DecidedBy.policy,
        consequence=Consequence.review if kind in actions else None,
        reason=Reason(cause=CAUSE, undecided=undecided),
    )
