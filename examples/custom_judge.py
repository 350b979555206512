"""A judge of your own: what logic leaves undecided about a memory's candidates.

A judge is anything with a versioned ``name``, a ``model`` and ``ask(questions)``. This one
answers from a table a person wrote; ``stategraph.judge.OpenAIJudge.from_env()`` asks an
OpenAI-compatible model instead (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``STATEGRAPH_JUDGE_MODEL``).

Run: ``python examples/custom_judge.py``
"""

from __future__ import annotations

from collections.abc import Sequence

from stategraph import Memory
from stategraph.judge import JudgeAnswer, JudgeCall, Question, question_key


class TableJudge:
    """Answers "does HEAD still hold without PREMISE?" from a table of (head, premise)."""

    name = "example.table_judge.v1"
    model = "a-table"

    def __init__(self, still_holds: dict[tuple[str, str], tuple[str, ...]]) -> None:
        self.still_holds = still_holds  # (head, premise) -> the holding ids it rests on instead

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        calls = []
        for q in questions:
            support = self.still_holds.get((q.head.id, q.premise.id))
            answer = JudgeAnswer(
                still_holds=support is not None,
                support=support or (),
                reason="from the table" if support else "it rested on the premise",
            )
            key = question_key(q, self.model)
            calls.append(
                JudgeCall(key=key, question=q, judge=self.name, model=self.model, answer=answer)
            )
        return calls


judge = TableJudge({("p1", "f1"): ("f2",)})  # the dinner plan rests on liking sushi, not the trip
mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1", judge=judge)
mem.fact("f1", "The user flies to Tokyo on May 10")
mem.fact("f2", "The user likes sushi")
mem.plan("p1", "Book a sushi dinner in Tokyo")  # no basis stated: f1 and f2, which it
# shares a word with, become its candidates
report = mem.retract("f1")  # (p1, f1) is in question: logic first, then the judge
for edge in report.edges:
    by = edge.decided_by.value if edge.decided_by else "undecided"
    print(f"edge {edge.head} <- {edge.premise}: decided by {by}, support {list(edge.support)}")
print("p1 holds:", mem.truth("p1"))
print(mem.why("p1").render())
