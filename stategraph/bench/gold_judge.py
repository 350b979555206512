"""The gold oracle judge: answers every question from the case's gold, to measure a ceiling.

``stategraph+oracle`` runs the engine with this judge. It answers the way a perfect model
would on this case: a state the gold invalidates (or leaves to confirmation) rests on what
the change removed, any other state does not. So the system's score measures what the
*pipeline* allows when the judge never errs: whether the candidates reach every state that
must go, whether logic leaves the judge few questions, and what the basis check lets through.
It is a ceiling, never a result, and every report labels it so.

A "still holds" answer must cite support like any judge's; the oracle cites the first of the
holding memories offered (it knows no better), and when none is offered its answer is
rejected by the basis check like any other unsupported "still holds".
"""

from __future__ import annotations

from collections.abc import Sequence

from stategraph.bench.cases import Case
from stategraph.judge.base import JudgeAnswer, JudgeCall, Question, question_key

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
        self._depends = set(case.expect.invalidated) | set(case.expect.needs_confirmation)

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        """One gold answer per question."""
        return [self._answer(q) for q in questions]

    def _answer(self, q: Question) -> JudgeCall:
        if q.head.id in self._depends:
            answer = JudgeAnswer(
                still_holds=False, reason=f"gold of {self.case_id}: {q.head.id} must go"
            )
        else:
            support = (q.holding[0].id,) if q.holding else ()
            answer = JudgeAnswer(
                still_holds=True,
                support=support,
                reason=f"gold of {self.case_id}: {q.head.id} stays",
            )
        return JudgeCall(
            key=question_key(q, self.model),
            question=q,
            judge=self.name,
            model=self.model,
            answer=answer,
            attempts=1,
        )
