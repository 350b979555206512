"""What one revision may spend on a judge, held against hostile servers on loopback.

A revision asks ``OpenAIJudge`` over real HTTP (the scripted server of ``chat_server.py``)
and the server misbehaves: it drips its answer a byte at a time, hangs, answers 500 forever,
reports absurd token counts, or sends an answer far larger than any judge's. The revision must
end within its deadline, make no more requests than its budget, send no prompt its tokens
cannot pay for, read no more than the cap, and quote no memory whole when it is huge. Time
bounds are asserted with wide margins (the old code took 10 to 100 times longer).
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Iterator
from typing import Any

import pytest

from stategraph import Memory
from stategraph.judge import OpenAIJudge, Question, Quote
from stategraph.judge.base import MAX_QUOTE_CHARS
from stategraph.judge.settle import JudgeBudget

from .chat_server import ChatServer, Reply, answering, error_body


@pytest.fixture
def judges() -> Iterator[list[OpenAIJudge]]:
    made: list[OpenAIJudge] = []
    yield made
    for judge in made:
        judge.close()


def judge_for(server: ChatServer, judges: list[OpenAIJudge], **options: Any) -> OpenAIJudge:
    settings: dict[str, Any] = {"timeout": 30.0, "max_retries": 0, "sleep": lambda s: None}
    settings.update(options)
    judge = OpenAIJudge("scripted", base_url=server.base_url, api_key="k", **settings)
    judges.append(judge)
    return judge


def plans(judge: OpenAIJudge, budget: JudgeBudget, n: int = 3, text: str = "") -> Memory:
    """A trip and ``n`` plans resting on it alone: retracting it asks ``n`` questions."""
    mem = Memory(judge=judge, judge_budget=budget, candidates=None)
    mem.fact("f1", "The user flies to Tokyo on May 10")
    for i in range(n):
        mem.plan(f"p{i}", f"Book Tokyo dinner number {i}{text}", context=["f1"])
    return mem


def question(text: str = "Commute is timed from Shenzhen") -> Question:
    return Question(
        head=Quote(id="b1", kind="belief", text=text),
        premise=Quote(id="f1", kind="fact", text="The user moves to Shenzhen"),
        premise_change="retracted",
    )


def test_a_server_dripping_bytes_is_cut_at_the_request_timeout(
    chat_server: ChatServer, judges: list[OpenAIJudge]
) -> None:
    # A byte every 0.2 s, status line and headers included: no read waits longer than that,
    # so a per-read timeout never fires and the answer would take over 100 s to arrive.
    chat_server.replies(answering(False, drip=0.2))
    judge = judge_for(chat_server, judges, timeout=1.0)
    started = time.monotonic()
    [call] = judge.ask([question()])
    took = time.monotonic() - started
    assert call.answer is None
    assert call.error == "timeout: no answer within 1.0 s (1 attempts)"
    assert took < 10


def test_a_hanging_server_ends_the_revision_at_its_deadline(
    chat_server: ChatServer, judges: list[OpenAIJudge]
) -> None:
    chat_server.replies(answering(False, delay=60))
    judge = judge_for(chat_server, judges, max_retries=2)
    mem = plans(judge, JudgeBudget(seconds=1.0), n=6)
    started = time.monotonic()
    report = mem.retract("f1")
    took = time.monotonic() - started
    assert took < 10  # 30 s per request and 3 attempts before: minutes
    assert report.needs_confirmation == [f"p{i}" for i in range(6)]
    notes = [e.note for e in report.edges]
    assert len(notes) == 6 and all(n.startswith("no answer: deadline:") for n in notes), notes
    assert len(chat_server.requests) <= 4  # the first batch (concurrency 4), never retried
    assert mem.history()[-1].config  # the revision was committed with what it did


def test_a_revision_cut_by_its_deadline_replays_the_same(
    chat_server: ChatServer, judges: list[OpenAIJudge]
) -> None:
    from stategraph.judge import ReplayJudge

    chat_server.replies(answering(False, delay=60))
    # one question a request, one at a time: the first is cut in flight, the others are
    # never sent
    judge = judge_for(chat_server, judges, concurrency=1, max_questions=1)
    mem = plans(judge, JudgeBudget(seconds=1.0))
    report = mem.retract("f1")
    calls = mem.history()[-1].calls
    assert [c.error for c in calls] == [
        "deadline: the revision's judge time ran out in a request",
        "deadline: the revision's judge time ran out (0 attempts)",
        "deadline: the revision's judge time ran out (0 attempts)",
    ]
    again = plans(ReplayJudge(calls), JudgeBudget(seconds=1.0))  # type: ignore[arg-type]
    assert again.retract("f1").to_json() == report.to_json()


def test_every_request_counts_against_the_budget(
    chat_server: ChatServer, judges: list[OpenAIJudge]
) -> None:
    chat_server.replies(Reply(500, error_body("boom", "server_error")))
    judge = judge_for(chat_server, judges, max_retries=2, concurrency=1, max_questions=1)
    mem = plans(judge, JudgeBudget(calls=4), n=3)  # 3 questions x 3 attempts before
    report = mem.retract("f1")
    assert len(chat_server.requests) == 4
    calls = mem.history()[-1].calls
    assert sum(c.attempts for c in calls) == 4
    assert report.needs_confirmation == ["p0", "p1", "p2"]
    assert "budget: the revision's judge requests are spent" in (calls[-1].error or "")


def test_reported_tokens_stop_the_next_request_not_the_next_round(
    chat_server: ChatServer, judges: list[OpenAIJudge]
) -> None:
    chat_server.replies(answering(False, prompt_tokens=2_000_000_000))
    judge = judge_for(chat_server, judges, concurrency=1, max_questions=1)
    mem = plans(judge, JudgeBudget(tokens=100_000), n=5)
    report = mem.retract("f1")
    assert len(chat_server.requests) == 1  # all five were asked in one round before
    assert report.invalidated == ["p0"]
    assert report.needs_confirmation == ["p1", "p2", "p3", "p4"]
    errors = [c.error for c in mem.history()[-1].calls if c.error]
    assert len(errors) == 4 and all(e.startswith("budget: the prompt") for e in errors)


def test_a_prompt_the_tokens_left_cannot_pay_for_is_not_sent(
    chat_server: ChatServer, judges: list[OpenAIJudge]
) -> None:
    chat_server.replies(answering(False))
    judge = judge_for(chat_server, judges)
    mem = plans(judge, JudgeBudget(tokens=1_000), n=1, text=" " + "very long " * 100_000)
    report = mem.retract("f1")
    assert chat_server.requests == []
    assert report.needs_confirmation == ["p0"]
    (call,) = mem.history()[-1].calls
    assert call.attempts == 0 and call.error is not None
    assert call.error.startswith("budget: the prompt (about ")


def test_one_memory_contributes_a_bounded_text_to_a_prompt(
    chat_server: ChatServer, judges: list[OpenAIJudge]
) -> None:
    chat_server.replies(answering(False))
    huge = " " + "x" * 1_000_000  # a 1 MB memory
    mem = plans(judge_for(chat_server, judges), JudgeBudget(), n=1, text=huge)
    mem.retract("f1")
    (request,) = chat_server.requests
    head = request.asked[0]["HEAD"]["text"]
    whole = len("Book Tokyo dinner number 0") + len(huge)
    assert head.endswith(f" [... {whole} characters, the rest cut]")
    assert head.startswith("Book Tokyo dinner number 0 xxx") and len(head) == MAX_QUOTE_CHARS
    system = request.body["messages"][0]["content"]
    assert "is cut and ends with" in system
    (call,) = mem.history()[-1].calls
    assert call.question.head.text == head  # logged and keyed as it was sent


def test_a_huge_answer_is_cut_at_the_cap(
    chat_server: ChatServer, judges: list[OpenAIJudge]
) -> None:
    chat_server.replies(Reply(body=b" " * (1 << 16), repeat=1_024))  # 64 MiB, never held
    [call] = judge_for(chat_server, judges).ask([question()])  # the default cap: 1 MiB
    assert call.answer is None
    assert call.error == f"too_large: the answer passed {1 << 20} bytes"
    assert call.attempts == 1 and len(chat_server.requests) == 1


def test_a_compressed_answer_is_refused(chat_server: ChatServer, judges: list[OpenAIJudge]) -> None:
    # 100 MB of zeros in a 100 KB body: counted compressed, it would inflate past any cap
    bomb = gzip.compress(b"0" * 100_000_000)
    chat_server.replies(Reply(body=bomb, headers={"content-encoding": "gzip"}))
    [call] = judge_for(chat_server, judges).ask([question()])
    assert call.answer is None
    assert call.error == "too_large: the server sent a 'gzip'-encoded answer"
    assert chat_server.requests[0].headers["accept-encoding"] == "identity"
