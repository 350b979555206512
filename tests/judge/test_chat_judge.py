"""ChatJudge: the judge over any chat function, held to the same format, budget and deadline.

The chat function here is a scripted model reading the very messages the judge sends; the
MCP sampling judge and the LangChain judge are this class over their clients (tested with the
MCP SDK's own client in ``tests/service`` and LangChain's fake chat models in
``tests/integrations``).
"""

from __future__ import annotations

import json
import time

import pytest

from stategraph import Memory
from stategraph.errors import JudgeConfigError
from stategraph.judge import ChatFailure, ChatJudge, ChatReply, JudgeAnswer, messages_for_batch
from stategraph.judge.limits import Allowance, spending
from stategraph.judge.settle import JudgeBudget
from stategraph.model import Truth

from .test_openai_judge import question


class Model:
    """A chat model that answers "does not hold" for every head asked; records each request."""

    def __init__(self, reply: str | None = None, usage: tuple[int, int] | None = None) -> None:
        self.reply = reply
        self.usage = usage
        self.requests: list[tuple[list[dict[str, str]], float, int]] = []

    def __call__(self, messages: list[dict[str, str]], seconds: float, cap: int) -> ChatReply:
        self.requests.append((messages, seconds, cap))
        document = json.loads(messages[1]["content"].partition("\n")[2])
        heads = [q["HEAD"] for q in document["QUESTIONS"]]
        text = self.reply or json.dumps(
            {
                "answers": [
                    {"head": h, "still_holds": False, "support": [], "reason": "rested on it"}
                    for h in heads
                ]
            }
        )
        prompt, completion = self.usage or (None, None)
        return ChatReply(text, prompt, completion)


def judge(model: object, **options: object) -> ChatJudge:
    return ChatJudge(model, name="test.chat.v1", model="scripted", **options)  # type: ignore[arg-type]


def test_questions_go_in_one_request_with_its_cost_on_the_first_call() -> None:
    model = Model(usage=(300, 40))
    questions = [question("b1"), question("b2", "other"), question("b1")]
    calls = judge(model, max_tokens=100).ask(questions)
    [(messages, seconds, cap)] = model.requests
    assert messages == messages_for_batch(questions[:2])
    assert (seconds, cap) == (60.0, 200)  # the timeout; 100 tokens per question asked
    assert [c.answer for c in calls] == [JudgeAnswer(still_holds=False, reason="rested on it")] * 3
    costs = [(c.attempts, c.prompt_tokens, c.completion_tokens, c.cached) for c in calls]
    assert costs == [(1, 300, 40, False), (0, 0, 0, False), (0, 0, 0, True)]


def test_tokens_the_model_does_not_report_are_estimated() -> None:
    [call] = judge(Model()).ask([question()])
    assert call.prompt_tokens > 100 and call.completion_tokens > 10


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("still holds", "malformed: not a JSON object"),
        (
            '{"still_holds": true, "support": ["f2"], "reason": "x"}',
            "malformed: schema: answers",
        ),
    ],
)
def test_a_reply_that_is_no_answer_is_malformed(reply: str, error: str) -> None:
    [call] = judge(Model(reply)).ask([question()])
    assert call.answer is None and call.error is not None and call.error.startswith(error)


def test_a_failure_of_the_model_is_recorded_never_raised() -> None:
    def refuses(messages: object, seconds: float, cap: int) -> ChatReply:
        raise ChatFailure("refused: the user declined the request")

    def breaks(messages: object, seconds: float, cap: int) -> ChatReply:
        raise KeyError("boom")

    [call] = judge(refuses).ask([question()])
    assert call.error == "refused: the user declined the request" and call.attempts == 1
    [call] = judge(breaks).ask([question()])
    assert call.error == "unexpected: KeyError: 'boom'"


def test_a_timeout_is_the_revisions_deadline_when_that_cut_the_request() -> None:
    seen: list[float] = []

    def slow(messages: object, seconds: float, cap: int) -> ChatReply:
        seen.append(seconds)
        raise TimeoutError

    [call] = judge(slow, timeout=5.0).ask([question()])
    assert call.error == "timeout: no answer within 5.0 s"
    with spending(Allowance(requests=5, tokens=100_000, deadline=time.monotonic() + 1.0)):
        [call] = judge(slow, timeout=5.0).ask([question()])
    assert call.error == "deadline: the revision's judge time ran out in a request"
    assert seen[0] == 5.0 and 0 < seen[1] <= 1.0


def test_the_allowance_is_taken_before_each_request() -> None:
    model = Model()
    with spending(Allowance(requests=1, tokens=100_000)) as allowance:
        calls = judge(model, max_questions=1).ask([question("b1"), question("b2", "other")])
    assert len(model.requests) == 1 and allowance.requests == 0
    assert calls[0].answer is not None
    assert calls[1].error == "budget: the revision's judge requests are spent (0 attempts)"
    with spending(Allowance(requests=5, tokens=10)):
        [call] = judge(model).ask([question()])
    assert call.error is not None and call.error.startswith("budget: the prompt (about ")


def test_a_revision_puts_every_memory_in_question_to_one_request() -> None:
    model = Model()
    mem = Memory(judge=judge(model), judge_budget=JudgeBudget(seconds=None), candidates=None)
    mem.fact("f1", "The user flies to Tokyo on May 10")
    for i in range(5):
        mem.plan(f"p{i}", f"Tokyo plan {i}", context=["f1"])
    report = mem.retract("f1")
    assert report.invalidated == [f"p{i}" for i in range(5)]
    assert len(model.requests) == 1
    assert all(mem.truth(f"p{i}") is Truth.false for i in range(5))
    assert sum(c.attempts for c in mem.history()[-1].calls) == 1


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"timeout": 0}, "timeout"),
        ({"max_questions": 0}, "max_questions"),
        ({"model": " "}, "model"),
    ],
)
def test_bad_settings_fail_at_construction(options: dict[str, object], field: str) -> None:
    settings: dict[str, object] = {"name": "test.chat.v1", "model": "m", **options}
    with pytest.raises(JudgeConfigError) as caught:
        ChatJudge(Model(), **settings)  # type: ignore[arg-type]
    assert caught.value.fields == [field]
