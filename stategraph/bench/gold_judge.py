"""The gold oracle judge: answers every question from the case's gold, to measure a ceiling.

``stategraph+oracle`` runs the engine with this judge. It answers the way a perfect model
would on this case: a state the gold invalidates (or leaves to confirmation) rests on what
the change removed, any other state does not, and the fact a new one told as a change undoes
(the case's ``reverses``) no longer holds beside it. So the system's score measures what the
*pipeline* allows when the judge never errs: whether the candidates reach every state that
must go, whether logic leaves the judge few questions, and what the basis check lets through.
It is a ceiling, never a result, and every report labels it so.

A "still holds" answer must cite support like any judge's; the oracle cites a holding memory
offered that the gold names as the head's support (a trace's ``basis``), else the first one
offered (it knows no better), and when none is offered its answer is rejected by the basis
check like any other unsupported "still holds". Citing the gold support matters in a trace:
a memory held on the wrong support in one step stays up in the next when its real support
goes.

Its questions go several to a request exactly as a model judge's do
(:func:`~stategraph.judge.batch.ask_in_requests`), and each request records the tokens its
prompt and reply would cost (estimated as the judges estimate a prompt before sending it), so
``stategraph bench`` reports the requests and tokens a model judge would spend per change.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from stategraph.bench.cases import Case
from stategraph.judge.base import JudgeAnswer, JudgeCall, Question
from stategraph.judge.batch import Sent, ask_in_requests
from stategraph.judge.limits import estimate_tokens
from stategraph.judge.prompt import messages_for_batch

__all__ = ["GoldJudge"]


class GoldJudge:
    """A :class:`~stategraph.judge.base.Judge` that answers from one case's gold.

    Args:
        case: the case whose gold answers the questions.
    """

    name = "stategraph.gold_oracle.v1"
    model = "gold"

    def __init__(self, case: Case) -> None:
        self.case_id = case.id
        self._case = case
        self._depends = set(case.expect.invalidated) | set(case.expect.needs_confirmation)
        if case.reverses is not None:  # the holding fact a new fact told as a change undoes
            self._depends.add(case.reverses)

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        """One gold answer per question, several questions to a request."""
        return ask_in_requests(questions, self._send, judge=self.name, model=self.model)

    def _send(self, questions: Sequence[Question]) -> Sent:
        answers = {q.head.id: self._answer(q) for q in questions}
        reply = {"answers": [{"head": h, **a.model_dump(mode="json")} for h, a in answers.items()]}
        return Sent(
            answers=answers,
            attempts=1,
            prompt_tokens=estimate_tokens(messages_for_batch(questions)),
            completion_tokens=estimate_tokens([{"content": json.dumps(reply, ensure_ascii=False)}]),
        )

    def _answer(self, q: Question) -> JudgeAnswer:
        if q.head.id in self._depends:
            return JudgeAnswer(
                still_holds=False, reason=f"gold of {self.case_id}: {q.head.id} must go"
            )
        basis = self._case.basis_of(q.head.id)
        cited = [h.id for h in q.holding if h.id in basis] or [h.id for h in q.holding[:1]]
        support = tuple(cited[:1])
        return JudgeAnswer(
            still_holds=True, support=support, reason=f"gold of {self.case_id}: {q.head.id} stays"
        )
