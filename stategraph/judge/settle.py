"""The judge inside a revision: what logic left undecided, asked memory by memory, checked, applied.

A revision first settles everything logic can (``revise.py``). A derived state left
undefined because a candidate premise stopped holding is the judge's business: it gets one
:class:`~stategraph.judge.base.Question` covering all its open edges (every candidate premise
that stopped holding, and every fact just asserted that may defeat it), and each answer is
checked before it counts (the *basis check*):

- no answer (timeout, refusal, malformed JSON, budget spent): its edges stay undecided;
- "does not hold": each premise in question is confirmed as a dependency of the head
  (recorded on the candidate justification), and each asserted fact in question joins the
  ``unless`` of its stand-in support; logic then settles the head. A memory that does not
  hold without its changed premises is taken to need every one of them: it comes back only
  when they all hold again, the cautious reading of one answer about several;
- "still holds": accepted only if it names support, and every id it names is one of the
  holding memories the question offered (memories that held before and after the change, or
  that the change asserted, among the head's own premises, the facts the change asserted and
  the head's neighbours by grounded argument or wording; never a memory offered only for
  being recent). Then each premise is recorded as independent and the support
  becomes a justification with origin ``judge``. A "still holds" without support is a rubber
  stamp; one that cites anything else (a memory the change moved, one that does not hold, one
  a memory's text told the model to name) is rejected and the edges stay undecided.

A judge that asks under a prompt version of one question per edge
(:data:`~stategraph.judge.base.PER_EDGE_VERSIONS`: a revision logged under one, replayed) is
asked edge by edge, as it was then.

Answers only ever touch the edges they were asked about, so a judge, whatever it says, cannot
delete a state logic decided or keep one alive without naming support that holds. Both kinds
of answer are recorded in the store with their reason, so the next revision reasons over them
without asking again; every call is logged with the revision, and a cache keyed by model,
prompt version and the texts involved serves the same question again without the model.

The judge is asked in rounds, shallowest edges first: settling a plan can put the actions
resting on it in question, so a round re-solves before the next one asks.

A revision spends on the judge within its :class:`JudgeBudget`: requests (every HTTP request,
retries included), tokens (checked before each request from the prompt's size) and
wall-clock seconds. A judge that knows the allowance (:mod:`stategraph.judge.limits`) is held
to it request by request; any judge is held to it between rounds. A question the budget or
the deadline leaves unasked is recorded as such (a call with a ``deadline`` error, logged, so
a replay without the clock decides the same), and its edge goes to confirmation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from stategraph.engine.graph import JustKey, SupportGraph
from stategraph.engine.revise import Revision
from stategraph.judge.base import (
    PER_EDGE_VERSIONS,
    PROMPT_VERSION,
    Changed,
    Judge,
    JudgeCall,
    Question,
    Quote,
    question_key,
)
from stategraph.judge.limits import Allowance, spending
from stategraph.model import (
    Change,
    Consequence,
    DecidedBy,
    EdgeCheck,
    EdgeOutcome,
    Entry,
    Justification,
    Origin,
    Reason,
    Report,
    State,
    Truth,
    Verdict,
)
from stategraph.text.candidates import UNRELATED_METHODS, Proposer, TermIndex
from stategraph.values import FALSE, TRUE, UNDEFINED

__all__ = ["DEFEATED", "JudgeBudget", "JudgeStore", "Settled", "flag_blockers", "settle"]

DEFEATED = "possibly_defeated"
"""The cause of the entries :func:`flag_blockers` (and :func:`settle`, where the judge did not
decide) flags: a new fact may defeat the memory, and nobody judged."""

_HOLDING = 12
"""At most this many holding memories are offered per question."""


@dataclass(frozen=True)
class JudgeBudget:
    """What one revision may spend on the judge; past it, edges go to confirmation.

    Attributes:
        calls: requests sent to the model, retries included (answers served from the cache
            are free).
        tokens: tokens sent and received, as the server reports them; a request whose
            prompt (estimated before it is sent) does not fit in what is left is not sent.
        rounds: ask-and-re-solve rounds (each settles one more hop of a chain).
        seconds: wall-clock time the judge may take in one revision; past it no request is
            sent, those in flight are cut, and the edges left go to confirmation. None: no
            deadline (each request is still bounded by the judge's own timeout).
    """

    calls: int = 32
    tokens: int = 100_000
    rounds: int = 6
    seconds: float | None = 120.0


class JudgeStore(TermIndex, Protocol):
    """What judging reads from the store (the term index too, to offer a head's neighbours)."""

    def state(self, state_id: str) -> tuple[State, bool, Truth] | None:
        """One whole state, whether it is active, and its truth value."""
        ...

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        """Stored truth values."""
        ...

    def cached_calls(self, keys: Iterable[str]) -> dict[str, JudgeCall]:
        """Recorded answers by question key."""
        ...

    def justifications_for(self, heads: Iterable[str]) -> list[Justification]:
        """The stored justifications of these heads."""
        ...

    def heads_citing(self, ids: Iterable[str]) -> set[str]:
        """Stored heads whose justifications cite any of these ids."""
        ...


@dataclass
class Settled:
    """A revision after judging: the final revision and every call it made or served."""

    revision: Revision
    calls: list[JudgeCall] = field(default_factory=list)


@dataclass(frozen=True)
class _Open:
    """One open edge: a changed memory ``premise`` that ``head`` may rest on (or, for a
    blocker, be defeated by), and how it changed."""

    head: State
    premise: str
    how: str
    depth: int
    cited: frozenset[str]
    """The head's own premises: offered as support when they hold."""
    blocker: bool = False
    stand_ins: tuple[Justification, ...] = ()
    """For a blocker: the head's stand-in justifications, which a confirmed blocker joins."""


@dataclass(frozen=True)
class _Asked:
    """One question: a head and the open edges it covers."""

    head: str
    premises: tuple[str, ...]
    depth: int
    question: Question
    blockers: frozenset[str] = frozenset()
    """The premises that are asserted facts (candidate blockers), not candidate premises."""
    stand_ins: tuple[Justification, ...] = ()


def settle(
    judge: Judge,
    budget: JudgeBudget,
    store: JudgeStore,
    proposer: Proposer | None,
    change: Change,
    first: tuple[Revision, SupportGraph],
    solve: Callable[[Change], tuple[Revision, SupportGraph]],
    facts: Iterable[State] = (),
) -> Settled:
    """Ask the judge about every candidate edge logic left undecided, and re-solve.

    Before that, each fact the change asserts is checked against the stand-in memories it is
    close to (:meth:`~stategraph.text.candidates.CandidateProposer.blockers`): a judge that
    confirms the fact defeats one adds the fact to the ``unless`` of its stand-in support.

    Args:
        judge: the judge.
        budget: what this revision may spend.
        store: the store (texts, truth values outside the revision, the answer cache).
        proposer: finds memories near a head to offer as support (None: only the head's own
            premises and what the change asserted are offered).
        change: the prepared change.
        first: the logic-only revision of ``change`` and its working graph.
        solve: revises a (prepared) change from the store again.
        facts: the facts the change asserts.
    """
    rev, graph = first
    depth = first[0].depth  # what each round's seeds are 0 hops from: the change as asked
    outcomes = {(e.head, e.premise): e for e in rev.report.edges}
    calls: list[JudgeCall] = []
    judged: dict[str, bool] = {}  # head -> some answer about it was accepted
    spent_calls = spent_tokens = 0
    deadline = None if budget.seconds is None else time.monotonic() + budget.seconds
    per_edge = getattr(judge, "prompt_version", PROMPT_VERSION) in PER_EDGE_VERSIONS
    ctx = _Context(rev, graph, store, proposer, change)
    blocking = _open_blockers(ctx, store, proposer, list(facts))
    held = {o.head.id: ctx.value(o.head.id) for o in blocking}
    for round_ in range(budget.rounds):
        if round_ > 0:
            ctx = _Context(rev, graph, store, proposer, change)
        opened = (blocking if round_ == 0 else []) + _open_edges(rev, ctx)
        unasked = [
            o
            for o in opened
            if (o.head.id, o.premise) not in outcomes or not outcomes[o.head.id, o.premise].asked
        ]
        pending = _ask(ctx, unasked, per_edge)
        if not pending:
            break
        keys = [question_key(a.question, judge.model) for a in pending]
        cached = store.cached_calls(keys)
        room = max(0, budget.calls - spent_calls)
        if spent_tokens >= budget.tokens:
            room = 0
        late = deadline is not None and time.monotonic() >= deadline
        send: list[int] = []
        answers: dict[int, JudgeCall] = {}
        slots = 0  # questions given a place within the budget (sent, or too late to send)
        for i, (a, key) in enumerate(zip(pending, keys, strict=True)):
            if key in cached:
                answers[i] = cached[key].model_copy(update={"cached": True, "attempts": 0})
            elif slots >= room:
                for premise in a.premises:
                    outcomes[a.head, premise] = EdgeOutcome(
                        head=a.head,
                        premise=premise,
                        decided_by=None,
                        blocker=premise in a.blockers,
                        note="not asked: the revision's judge budget is spent",
                    )
            else:
                slots += 1
                if late:
                    answers[i] = _too_late(judge, key, a.question, budget.seconds)
                else:
                    send.append(i)
        if send:
            allowance = Allowance(room, budget.tokens - spent_tokens, deadline)
            with spending(allowance):
                made = judge.ask([pending[i].question for i in send])
            answers.update(zip(send, made, strict=True))
            spent_calls += sum(c.attempts for c in made)
            spent_tokens += sum(c.tokens for c in made)
        updated: dict[JustKey, Justification] = {}
        replaced: dict[JustKey, tuple[Justification, Justification]] = {}
        added: list[Justification] = []
        for i, a in enumerate(pending):
            call = answers.get(i)
            if call is None:
                continue
            calls.append(call)
            decided, new = _apply(a, call, graph, updated, replaced)
            for outcome in decided:
                outcomes[a.head, outcome.premise] = outcome
                if outcome.decided_by is DecidedBy.judge:
                    judged[a.head] = True
            added += new
        if not updated and not added and not replaced:
            break
        change = _extend(change, [*updated.values(), *added], replaced.values())
        rev, graph = solve(change)
        for e in rev.report.edges:
            outcomes.setdefault((e.head, e.premise), e)
    kinds = {o.head.id: o.head.kind for o in blocking}
    return Settled(_final(rev, outcomes, judged, kinds, depth, held), calls)


class _Context:
    """What building questions needs of one revision: values after it, what it moved, what
    it asserted, and the memories near a head."""

    def __init__(
        self,
        rev: Revision,
        graph: SupportGraph,
        store: JudgeStore,
        proposer: Proposer | None,
        change: Change,
    ) -> None:
        self.graph, self.store, self.proposer, self.change = graph, store, proposer, change
        self.asserted = {s.id: s for s in (*change.assert_, *(s.with_ for s in change.supersede))}
        self.replaced = {s.id: s.with_ for s in change.supersede}
        self.moved = set(rev.writes.truth) | set(rev.writes.deactivated)

    def value(self, sid: str) -> Truth:
        """A state's value after the revision (the store's, outside the working graph)."""
        if sid in self.graph.truth:
            return self.graph.truth[sid]
        return self.store.truths([sid]).get(sid, FALSE)

    def whole(self, sid: str) -> State:
        """A state with its text."""
        if sid in self.asserted:
            return self.asserted[sid]
        found = self.store.state(sid)
        return found[0] if found is not None else State(id=sid)

    def question(
        self, head: State, changed: list[tuple[str, str]], cited: Iterable[str]
    ) -> Question:
        """The question about a head's open edges (``changed``: each premise and how it
        changed), offering as support the memories that held before and after the change
        (or that it asserted) among ``cited`` (the head's own premises) and the head's
        neighbours by grounded argument or wording.

        Never a memory proposed only for being recent *now*: the proposer takes the last
        facts written as candidates of a memory being written (its basis is often the fact
        just before it), but at question time recency says nothing about a basis, and it
        made any unrelated fact written last citable by a model obeying an injected "still
        holds, citing ..." (SECURITY.md, the judge).
        """
        offered = set(cited) | set(self.asserted)
        if self.proposer is not None:
            found = self.proposer.propose(self.store, head)
            offered |= {c.id for c in found if c.method not in UNRELATED_METHODS}

        def holds_unmoved(sid: str) -> bool:
            return self.value(sid) is TRUE and (sid not in self.moved or sid in self.asserted)

        premises = {premise for premise, _ in changed}
        holding = sorted(s for s in offered - {head.id} - premises if holds_unmoved(s))
        first, *also = (self.changed(premise, how) for premise, how in changed)
        return Question(
            head=Quote.of(head),
            premise=first.memory,
            premise_change=first.change,
            replacement=first.replacement,
            holding=tuple(Quote.of(self.whole(s)) for s in holding[:_HOLDING]),
            also=tuple(also),
        )

    def changed(self, premise: str, how: str) -> Changed:
        """A changed memory as a question quotes it, with its replacement if it has one."""
        replacement = self.replaced.get(premise)
        return Changed.model_validate(
            {
                "memory": Quote.of(self.whole(premise)),
                "change": how,
                "replacement": Quote.of(replacement) if replacement is not None else None,
            }
        )


def _open_edges(rev: Revision, ctx: _Context) -> list[_Open]:
    """The edges to ask about now: a head left undefined, a candidate premise now false.

    Premises that are themselves undefined wait: they may be settled by this round, and a
    question must say truthfully that the premise no longer holds.
    """
    out: list[_Open] = []
    for e in rev.report.entries:
        if e.new is not UNDEFINED or e.reason.cause != "unverified_candidate":
            continue
        justs = ctx.graph.justifications_of(e.id)
        premises = [p for j in justs if j.origin is Origin.recovered for p in j.candidates()]
        failed = sorted({p for p in premises if ctx.value(p) is FALSE})
        head = ctx.whole(e.id)
        cited = frozenset(
            p
            for j in justs
            for p in (*j.premises, *j.unless)
            if j.proposed.get(p) not in UNRELATED_METHODS
        )
        for p in failed:
            how = "retracted" if p in ctx.change.retract else "no_longer_holds"
            if p in ctx.replaced:
                how = "superseded"
            out.append(_Open(head, p, how, e.depth, cited))
    out.sort(key=lambda o: (o.depth, o.head.id, o.premise))
    return out


def _ask(ctx: _Context, opened: list[_Open], per_edge: bool) -> list[_Asked]:
    """The questions about ``opened``: one per head, covering all its open edges, in the
    order the heads first appear (``per_edge``: one per edge, as prompt versions before
    :data:`~stategraph.judge.base.PROMPT_VERSION` asked)."""
    groups: dict[str, list[_Open]] = {}
    for i, o in enumerate(opened):
        groups.setdefault(str(i) if per_edge else o.head.id, []).append(o)
    asked: list[_Asked] = []
    for group in groups.values():
        head = group[0].head
        changed = [(o.premise, o.how) for o in group]
        cited = frozenset().union(*(o.cited for o in group))
        asked.append(
            _Asked(
                head.id,
                tuple(o.premise for o in group),
                min(o.depth for o in group),
                ctx.question(head, changed, cited),
                blockers=frozenset(o.premise for o in group if o.blocker),
                stand_ins=next((o.stand_ins for o in group if o.blocker), ()),
            )
        )
    return asked


@dataclass(frozen=True)
class _Blocker:
    """A memory with only stand-in support that holds or is already in doubt (undefined),
    close to a fact just asserted."""

    head: State
    fact: str
    cited: frozenset[str]
    stand_ins: tuple[Justification, ...]


def _blockers(
    ctx: _Context, store: JudgeStore, proposer: Proposer | None, facts: list[State]
) -> list[_Blocker]:
    """Candidate blockers: the memories with only stand-in support that an asserted fact is
    close to and that hold, or are undefined (already in doubt: a later change that touches
    one reports it again, with its own cause), in (memory, fact) order."""
    if proposer is None or not facts:
        return []
    near: dict[str, list[str]] = {}
    for f in facts:
        for c in proposer.blockers(store, f):
            if c.id not in ctx.asserted:
                near.setdefault(c.id, []).append(f.id)
    if not near:
        return []
    justs: dict[str, list[Justification]] = {}
    for j in store.justifications_for(near):
        justs.setdefault(j.head, []).append(j)
    out: list[_Blocker] = []
    for head_id, found in sorted(justs.items()):
        stand_ins = all(j.origin in (Origin.recovered, Origin.assumed) for j in found)
        if not stand_ins or ctx.value(head_id) is FALSE:
            continue
        head = ctx.whole(head_id)
        cited = frozenset(p for j in found for p in j.premises)
        out.extend(_Blocker(head, fid, cited, tuple(found)) for fid in sorted(near[head_id]))
    return out


def _open_blockers(
    ctx: _Context, store: JudgeStore, proposer: Proposer | None, facts: list[State]
) -> list[_Open]:
    """Each candidate blocker (:func:`_blockers`) as an open edge: "does it still hold now
    that the fact does?"."""
    return [
        _Open(b.head, b.fact, "asserted", 1, b.cited, blocker=True, stand_ins=b.stand_ins)
        for b in _blockers(ctx, store, proposer, facts)
    ]


def _too_late(judge: Judge, key: str, question: Question, seconds: float | None) -> JudgeCall:
    """The record of a question the deadline left unasked: logged like an answer, so that a
    replay (which has no clock) decides this edge exactly as the revision did."""
    return JudgeCall(
        key=key,
        question=question,
        judge=judge.name,
        model=judge.model,
        error=f"deadline: the revision's judge time ({seconds} s) ran out before it was asked",
    )


def _apply(
    a: _Asked,
    call: JudgeCall,
    graph: SupportGraph,
    updated: dict[JustKey, Justification],
    replaced: dict[JustKey, tuple[Justification, Justification]],
) -> tuple[list[EdgeOutcome], list[Justification]]:
    """The basis check, and what an accepted answer records: an outcome for each edge the
    question covered, and the judge's justification when it kept the head on support.

    ``updated`` collects candidate justifications whose premises were checked (same
    identity), ``replaced`` stand-ins that confirmed blockers join (a new identity: the old
    one goes; it carries the checks this answer recorded on it).
    """

    def outcomes(**fields: object) -> list[EdgeOutcome]:
        return [
            EdgeOutcome.model_validate(
                {"head": a.head, "premise": p, "blocker": p in a.blockers, **fields}
            )
            for p in a.premises
        ]

    def rejected(note: str) -> tuple[list[EdgeOutcome], list[Justification]]:
        return outcomes(decided_by=None, asked=True, note=note), []

    answer = call.answer
    if answer is None:
        return rejected(f"no answer: {call.error or 'none given'}")
    offered = {q.id for q in a.question.holding}
    support = tuple(sorted(set(answer.support)))
    who = f"{call.judge} ({call.model})"
    reason = answer.reason.strip()
    asked_about = ", ".join(a.premises)
    if answer.still_holds:
        if not support:
            return rejected("rejected: 'still holds' names no support (a rubber stamp)")
        foreign = [s for s in support if s not in offered]
        if foreign:
            return rejected(
                f"rejected: 'still holds' cites {', '.join(foreign)}, not among the holding "
                "memories offered"
            )
        check = EdgeCheck.independent
        note = f"{who}: still holds on {', '.join(support)}: {reason}"
    else:
        support = ()
        check = EdgeCheck.dependency
        verb = "defeated by" if a.blockers == set(a.premises) else "depends on"
        note = f"{who}: {verb} {asked_about}: {reason}"
    candidates = [p for p in a.premises if p not in a.blockers]
    for j in graph.justifications_of(a.head) if candidates else ():
        checked = [p for p in candidates if j.origin is Origin.recovered and p in j.candidates()]
        if checked:
            j = updated.get(j.key, j)
            updated[j.key] = j.model_copy(
                update={
                    "checked": {**j.checked, **dict.fromkeys(checked, check)},
                    "notes": {**j.notes, **dict.fromkeys(checked, note)},
                }
            )
    blockers = sorted(a.blockers)
    if blockers and check is EdgeCheck.dependency:
        for j in a.stand_ins:
            if j.key in replaced:
                old, now = replaced[j.key]
            else:  # the checks this answer recorded on it go with it
                old, now = j, updated.pop(j.key, j)
            replaced[j.key] = (
                old,
                now.model_copy(
                    update={
                        "unless": tuple(sorted({*now.unless, *blockers})),
                        "notes": {**now.notes, **dict.fromkeys(blockers, note)},
                    }
                ),
            )
    new: list[Justification] = []
    # a head asked only whether new facts defeat it keeps the stand-ins it stood on
    if support and candidates and graph.justification((a.head, support, ())) is None:
        new.append(
            Justification(
                head=a.head,
                premises=support,
                origin=Origin.judge,
                notes={"judge": f"{who}, asked about {asked_about}: {reason}"},
            )
        )
    decided = outcomes(
        decided_by=DecidedBy.judge, check=check, support=support, asked=True, note=note
    )
    return decided, new


def _extend(
    change: Change,
    justs: list[Justification],
    replaced: Iterable[tuple[Justification, Justification]] = (),
) -> Change:
    """``change`` with these justifications added (replacing those with the same identity),
    and each ``(old, new)`` stand-in pair swapped: the old one removed, the new one added."""
    by_key = {j.key: j for j in change.add_justifications}
    removed = list(change.remove_justifications)
    for old, new in replaced:
        if old.key in by_key:  # added by this very change: replace it in place
            del by_key[old.key]
        else:
            removed.append(old)
        justs = [*justs, new]
    for j in justs:
        by_key[j.key] = j
    return change.model_copy(
        update={
            "add_justifications": tuple(by_key.values()),
            "remove_justifications": tuple(removed),
        }
    )


def _final(
    rev: Revision,
    outcomes: dict[tuple[str, str], EdgeOutcome],
    judged: dict[str, bool],
    kinds: Mapping[str, str] | None = None,
    depth: Mapping[str, int] | None = None,
    held: Mapping[str, Truth] | None = None,
) -> Revision:
    """The last revision's report with every edge outcome, the judge credited, the memories
    an asserted fact may have defeated, where nobody decided, flagged, and every entry's depth
    counted from the change as asked (``depth``: the first round's cone), not from the
    judge's additions that later rounds were seeded with. ``held``: the value of each such
    memory before (true, or undefined for one already in doubt), which it keeps."""
    value = {e.id: e.new for e in rev.report.entries}
    edges = []
    for key in sorted(outcomes):
        o = outcomes[key]
        if o.decided_by is not DecidedBy.judge and not o.blocker:
            settled = value.get(o.head) is not UNDEFINED  # not an entry: it kept its value
            o = o.model_copy(update={"decided_by": DecidedBy.logic if settled else None})
        edges.append(o)

    def credit(e: Entry) -> Entry:
        update: dict[str, object] = {}
        if e.id in judged and e.decided_by is DecidedBy.logic:
            update["decided_by"] = DecidedBy.judge
        if depth is not None and e.id in depth and depth[e.id] != e.depth:
            update["depth"] = depth[e.id]
        return e.model_copy(update=update) if update else e

    entries = {e.id: credit(e) for e in rev.report.entries}
    before = held or {}

    def open_to_doubt(head: str) -> bool:
        """True now, or untouched by the revision and not false before (an entry the
        revision made undefined keeps its own cause)."""
        now = value.get(head)
        return now is TRUE or (now is None and before.get(head, TRUE) is not FALSE)

    doubted = {
        o.head: 1 for o in edges if o.blocker and o.decided_by is None and open_to_doubt(o.head)
    }
    in_doubt = {h: tuple(sorted(o.premise for o in edges if o.head == h)) for h in doubted}
    kinds = dict(kinds or {})
    # what rests on them through candidates is not put in doubt with them: a doubt does not
    # travel through a candidate only in doubt (stategraph.engine.doubt)
    for head, hops in sorted(doubted.items()):
        entry = entries.get(head)
        entries[head] = Entry(
            id=head,
            kind=kinds.get(head, "belief"),
            old=entry.old if entry is not None else before.get(head, TRUE),
            new=entry.new if entry is not None else before.get(head, TRUE),
            verdict=Verdict.needs_confirmation,
            depth=entry.depth if entry is not None else hops,
            decided_by=DecidedBy.policy,
            consequence=Consequence.review if kinds.get(head) == "action" else None,
            reason=Reason(cause=DEFEATED, undecided=in_doubt[head]),
        )
    ordered = sorted(entries.values(), key=lambda e: (e.depth, e.id))
    report: Report = rev.report.model_copy(
        update={"edges": tuple(edges), "entries": tuple(ordered)}
    )
    return Revision(report, rev.writes, rev.depth)


def flag_blockers(
    rev: Revision,
    graph: SupportGraph,
    store: JudgeStore,
    proposer: Proposer,
    change: Change,
    facts: list[State],
) -> Revision:
    """Without a judge: the stand-in memories each asserted fact is close to, flagged for a
    person (``possibly_defeated``), their values unchanged. No question is put together:
    nobody would read it (composing one looks up the memory's neighbours, which was a sixth
    of an import's time)."""
    ctx = _Context(rev, graph, store, proposer, change)
    found = _blockers(ctx, store, proposer, facts)
    if not found:
        return rev
    outcomes = {(e.head, e.premise): e for e in rev.report.edges}
    for b in found:
        outcomes[b.head.id, b.fact] = EdgeOutcome(
            head=b.head.id,
            premise=b.fact,
            decided_by=None,
            blocker=True,
            note="no judge configured: a person must say whether the new fact defeats it",
        )
    kinds = {b.head.id: b.head.kind for b in found}
    return _final(rev, outcomes, {}, kinds, held={b.head.id: ctx.value(b.head.id) for b in found})
