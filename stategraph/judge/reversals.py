"""Asking the judge whether a new fact replaces the holding fact it reads as reversing.

A new fact told as a change that the reading matches to a holding fact only loosely ("June
slipped and broke her wrist, so we've called off Tassie") is not decided by logic
(:mod:`stategraph.text.reversals`): without a judge, the old fact and what rests on it wait
for a person (:mod:`stategraph.reversal`). With one, that question goes to the judge first, in
the form a candidate blocker's takes: does the old fact still hold now that the new one does?

- "No longer holds": the new fact supersedes the old one in this revision (or, when the new
  fact already supersedes another, the old one is retracted beside it), so what rested on the
  old fact is revised, and its candidate edges judged, in the same revision.
- "Still holds": both stand, and nothing is flagged for it (outcome ``kept``).
- No answer (the budget, the deadline, an error): the reversal stays asked, for a person.

The calls are logged with the revision like every judge call, so a replay answers them from
the log, and answered ones are served from the store's cache the next time.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from stategraph.judge.base import Judge, JudgeCall, Question, Quote, question_key
from stategraph.judge.limits import Allowance, spending
from stategraph.model import Change, Reversal, State, Supersession
from stategraph.values import DecidedBy, Truth

__all__ = ["JudgedReversals", "judge_reversals"]


class _Store(Protocol):
    def state(self, state_id: str) -> tuple[State, bool, Truth] | None: ...

    def cached_calls(self, keys: Sequence[str]) -> dict[str, JudgeCall]: ...


@dataclass(frozen=True)
class JudgedReversals:
    """The change as the judge's answers leave it, the reversals with their outcomes, the
    calls to log, and the requests they spent (for what is left of the revision's budget)."""

    change: Change
    reversals: tuple[Reversal, ...]
    calls: tuple[JudgeCall, ...]
    attempts: int
    tokens: int


def judge_reversals(
    judge: Judge,
    store: _Store,
    change: Change,
    reversals: Sequence[Reversal],
    calls: int,
    tokens: int,
    seconds: float | None,
) -> JudgedReversals:
    """Put each asked reversal to the judge, and apply its answers to the change.

    Args:
        judge: the revision's judge.
        store: where the old facts and the answer cache are read.
        change: the change as the preparer left it (the new facts still assertions).
        reversals: what the preparer found (only ``asked`` ones are put to the judge).
        calls: requests the judge may send (answers from the cache are free).
        tokens: tokens it may spend.
        seconds: how long it may take; None: no deadline.
    """
    new = {s.id: s for s in change.assert_}
    pending: list[tuple[int, Question, str]] = []
    for i, r in enumerate(reversals):
        found = store.state(r.old)
        if r.outcome != "asked" or found is None or r.new not in new:
            continue
        question = Question(
            head=Quote.of(found[0]), premise=Quote.of(new[r.new]), premise_change="asserted"
        )
        pending.append((i, question, question_key(question, judge.model)))
    if not pending:
        return JudgedReversals(change, tuple(reversals), (), 0, 0)
    cached = store.cached_calls([key for _, _, key in pending])
    answers: dict[int, JudgeCall] = {
        i: cached[key].model_copy(update={"cached": True, "attempts": 0})
        for i, _, key in pending
        if key in cached
    }
    send = [(i, q) for i, q, key in pending if key not in cached][: max(0, calls)]
    if send and tokens > 0:
        deadline = None if seconds is None else time.monotonic() + seconds
        with spending(Allowance(calls, tokens, deadline)):
            made = judge.ask([q for _, q in send])
        answers.update((i, call) for (i, _), call in zip(send, made, strict=True))
    attempts = sum(c.attempts for c in answers.values() if not c.cached)
    spent = sum(c.tokens for c in answers.values() if not c.cached)
    return _applied(change, reversals, answers, attempts, spent)


def _applied(
    change: Change,
    reversals: Sequence[Reversal],
    answers: dict[int, JudgeCall],
    attempts: int,
    tokens: int,
) -> JudgedReversals:
    """The change and reversals with each answer applied (see the module docstring)."""
    new = {s.id: s for s in change.assert_}
    superseding: dict[str, State] = {}  # old fact -> the new fact that replaces it
    retracted: list[str] = []
    gone = {*change.retract, *(s.id for s in change.supersede)}
    out: list[Reversal] = []
    for i, r in enumerate(reversals):
        call = answers.get(i)
        if call is None or call.answer is None:
            out.append(r)
            continue
        if call.answer.still_holds:
            update = {"outcome": "kept", "question": "", "decided_by": DecidedBy.judge}
            out.append(r.model_copy(update=update))
            continue
        if r.old not in gone:
            gone.add(r.old)
            if r.new in {st.id for st in superseding.values()}:
                retracted.append(r.old)
            else:
                superseding[r.old] = new[r.new]
        update = {"outcome": "superseded", "question": "", "decided_by": DecidedBy.judge}
        out.append(r.model_copy(update=update))
    calls = tuple(answers[i] for i in sorted(answers))
    if not superseding and not retracted:
        return JudgedReversals(change, tuple(out), calls, attempts, tokens)
    used = {st.id for st in superseding.values()}
    updated = change.model_copy(
        update={
            "assert_": tuple(s for s in change.assert_ if s.id not in used),
            "retract": (*change.retract, *retracted),
            "supersede": change.supersede
            + tuple(
                Supersession.model_validate({"id": old, "with": st})
                for old, st in superseding.items()
            ),
        }
    )
    return JudgedReversals(updated, tuple(out), calls, attempts, tokens)
