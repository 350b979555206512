"""Human review: the states the engine could not settle, and a person's answer to each.

A revision never picks a side it cannot justify: a state left undefined (a cycle through
``unless``, a candidate premise nobody verified, the depth bound), an executed action that
lost its support, a memory a new fact may defeat, a compatible update, all end as
``needs_confirmation``. Those states wait in a queue (:func:`pending_review`) until a person
settles each, and settling is an ordinary revision (:func:`review_change`), logged in the hash
chain and cascading like any other:

- **confirm** adds a justification with origin ``review`` and no premises, whose notes say who
  confirmed and why (and when, if the caller says): the state holds on that person's word
  from then on, whatever it rested on before, until it is retracted or that justification is
  removed. What rests on it is restored with it; what it blocks through ``unless`` falls.
- **reject** retracts the state: it never holds again, and what rested on it alone goes.

A fact waits for review only when a new fact reads as replacing it and the memory's policy asks
(:mod:`stategraph.reversal`, cause ``possibly_replaced``): rejecting it retracts it (it was
replaced), and confirming it keeps it, and the memories flagged for resting on it leave the
queue with it (:mod:`stategraph.store.review_queue`).

Both record the decision in the change (:class:`~stategraph.model.Review`), so the log says
who decided what, and why, next to what it did. No clock is read: a time given by the caller
goes into the change, and otherwise the log entry's own time is the review's.

An executed action flagged for review lost what it rested on, but it was carried out, and a
record cannot undo that. Confirming it says the action stands as done (it holds again, on the
reviewer's word, and so does what rests on it); rejecting it says it no longer stands (it is
retracted and what rests on it goes). Undoing its effects in the world is the reviewer's
business either way: the engine records the decision, it does not act on the world.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict, ValidationError

from stategraph.engine.derivation import body, justification_value
from stategraph.engine.graph import SupportGraph
from stategraph.engine.logic import Program, Rule, negative_components
from stategraph.engine.policy import Policy
from stategraph.errors import InvalidInputError, NotPendingError, UnknownStateError
from stategraph.model import (
    ActionStatus,
    Change,
    Consequence,
    Decision,
    Entry,
    Justification,
    Origin,
    Reason,
    Review,
    Truth,
)
from stategraph.review.waiting import Doubts
from stategraph.store import review_queue
from stategraph.store.asof import PastStore
from stategraph.store.sqlite import SQLiteStore, Store
from stategraph.values import TRUE, UNDEFINED

__all__ = ["PendingReview", "pending_review", "review_change"]


class PendingReview(BaseModel):
    """One state waiting for a person, and why.

    Attributes:
        id: the state.
        kind: its kind.
        text: its text.
        truth: its value now (undefined; false for an executed action or a compatible update
            that lost its support; true for a memory a new fact may defeat, or undefined when
            it was in doubt already).
        status: an action's status.
        cause: why it waits: the ``cause`` of the entry that flagged it (``negative_cycle``,
            ``unverified_candidate``, ``undefined_premise``, ``depth_limit``,
            ``compatible_update``, ``possibly_defeated``, ``possibly_replaced`` (also for a
            fact: a new fact may replace it), or ``no_support`` for an executed action to
            review).
        consequence: ``review`` for an action.
        flagged_in: the revision (log entry) that flagged it; None for a state no revision
            graded (bulk loaded undefined).
        reason: the flagging entry's reason (what was lost, the cycle, what is undecided), or
            for a state no entry graded, what its justifications wait on now.
        waiting: the memories that hold only through this one (recall grades them
            ``rests_on_doubt``): settling it settles them too, so it may be the one to settle
            first (:meth:`stategraph.review.waiting.Doubts.resting_on`).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str
    text: str
    truth: Truth
    status: ActionStatus | None = None
    cause: str
    consequence: Consequence | None = None
    flagged_in: int | None
    reason: Reason
    waiting: tuple[str, ...] = ()


def _sqlite(store: Store) -> SQLiteStore:
    if not isinstance(store, SQLiteStore):
        raise InvalidInputError("config", [("store", "review needs the SQLite store")])
    return store


def pending_review(store: Store | PastStore, policy: Policy) -> list[PendingReview]:
    """Every state waiting for review, the oldest flag first (then by id).

    Read from the review queue the store keeps beside its log and from its index of undefined
    states (:mod:`stategraph.store.review_queue`): the cost is that of the queue, not of the
    store or its log.
    """
    if isinstance(store, PastStore):  # as it was after a revision (Memory.as_of)
        flags, undefined = store.flags(), store.undefined_ids()
        subgraph = store.subgraph
    else:
        sql = _sqlite(store)
        flags, undefined = list(review_queue.flags(sql.conn)), review_queue.undefined_ids(sql.conn)
        subgraph = sql.subgraph
    flagged = {sid: (seq, entry) for sid, seq, entry in flags}
    graph = subgraph({*flagged, *undefined}, full=True)
    cycles = _cycles(graph, policy, undefined)
    doubts = Doubts(store)
    out = []
    for sid in sorted(graph.states):
        st = graph.states[sid]
        seq, entry = flagged.get(sid, (None, None))
        if not graph.is_active(sid) or (policy.is_exogenous(st) and not _asked_of(entry)):
            continue
        reason = entry.reason if entry is not None else _reason_now(graph, sid, cycles)
        consequence = entry.consequence if entry is not None else None
        if entry is None and policy.of(st).action:
            consequence = Consequence.review
        out.append(
            PendingReview(
                id=sid,
                kind=st.kind,
                text=st.text,
                truth=graph.value(sid),
                status=st.status,
                cause=reason.cause,
                consequence=consequence,
                flagged_in=seq,
                reason=reason,
                waiting=tuple(doubts.resting_on(sid)),
            )
        )
    return sorted(out, key=lambda p: (p.flagged_in or 0, p.id))


def _cycles(graph: SupportGraph, policy: Policy, undefined: Iterable[str]) -> dict[str, Reason]:
    """For each undefined state on a cycle through ``unless`` among the undefined states, the
    cycle (the same cycles a revision reports: ``revise._Grader._cycles``)."""
    nodes = {s for s in undefined if s in graph.states and graph.is_active(s)}
    nodes = {s for s in nodes if not policy.is_exogenous(graph.states[s])}
    program = Program()
    for head in sorted(nodes):
        for j in graph.justifications_of(head):
            if justification_value(j, graph.value) is UNDEFINED:
                pos = tuple(p for p in body(j) if p in nodes)
                program.rules.append(Rule(head, pos, tuple(u for u in j.unless if u in nodes)))
    found: dict[str, Reason] = {}
    for comp in negative_components(program):
        cycle = tuple(sorted(str(n) for n in comp))
        for n in cycle:
            found[n] = Reason(cause="negative_cycle", cycle=cycle)
    return found


_REPLACED = "possibly_replaced"
"""The cause of a fact a new fact may replace (:mod:`stategraph.reversal`): the one kind of
fact that waits for a person."""


def _asked_of(entry: Entry | None) -> bool:
    """True for the entry flagging a fact a new one may replace: a fact waits for review only
    then (confirmed, it is not replaced; rejected, it is retracted)."""
    return entry is not None and entry.reason.cause == _REPLACED


def _reason_now(graph: SupportGraph, sid: str, cycles: dict[str, Reason]) -> Reason:
    """Why a state no entry flagged is undefined, from its justifications as they are now."""
    undecided: set[str] = set()
    unverified = False
    for j in graph.justifications_of(sid):
        if justification_value(j, graph.value) is not UNDEFINED:
            continue
        candidates = set(j.candidates())
        for x in (*body(j), *j.unless):
            value = graph.value(x)
            if x in candidates and value is not TRUE:
                unverified = True
                undecided.add(x)
            elif value is UNDEFINED:
                undecided.add(x)
    found = cycles.get(sid)
    if found is not None:
        return found.model_copy(update={"undecided": tuple(sorted(undecided))})
    cause = "unverified_candidate" if unverified else "undefined_premise"
    return Reason(cause=cause, undecided=tuple(sorted(undecided)))


def review_change(
    store: Store,
    state_id: str,
    decision: Decision | str,
    by: str,
    note: str = "",
    at: datetime | str | None = None,
) -> Change:
    """The change that applies a person's decision on a state waiting for review.

    Args:
        store: the memory's store (read, to check that the state waits).
        state_id: the state.
        decision: ``confirmed`` (it holds, on the reviewer's word) or ``rejected`` (it is
            retracted).
        by: who decided.
        note: why.
        at: when, if the caller wants it recorded (an ISO 8601 string or a datetime); the
            log entry's time is the review's otherwise.

    Raises:
        UnknownStateError: no such state.
        NotPendingError: the state is not waiting for review.
        InvalidInputError: ``by`` is empty, ``decision`` or ``at`` malformed.
    """
    sql = _sqlite(store)
    found = sql.state(state_id)
    if found is None:
        raise UnknownStateError(state_id, "review")
    _, active, truth = found
    if not active or (
        truth is not Truth.undefined and review_queue.flag(sql.conn, state_id) is None
    ):
        raise NotPendingError(state_id, truth.value, active)
    try:
        review = Review.model_validate(
            {"id": state_id, "decision": decision, "by": by, "note": note, "at": at}
        )
    except ValidationError as exc:
        errors = [(".".join(str(p) for p in e["loc"]), e["msg"]) for e in exc.errors()]
        raise InvalidInputError("review", errors) from None
    if review.decision is Decision.rejected:
        return Change(retract=(state_id,), reviews=(review,))
    flagged = review_queue.flag(sql.conn, state_id)
    if flagged is not None and _asked_of(flagged[2]) and not sql.justifications(state_id):
        # a fact a new fact may replace, kept: nothing to add, the review is the record
        return Change(reviews=(review,))
    notes = {"by": review.by, "note": review.note}
    if review.at is not None:
        notes["at"] = review.at.isoformat()
    confirmation = Justification(
        head=state_id, origin=Origin.review, notes=dict(sorted(notes.items()))
    )
    return Change(add_justifications=(confirmation,), reviews=(review,))
