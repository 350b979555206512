"""A judge over any chat function: the model an agent already has, asked the judge's questions.

An MCP client's model (through sampling) and a LangChain chat model answer a list of chat
messages with a text, and that is all a judge needs of them. :class:`ChatJudge` does the rest,
exactly as :class:`~stategraph.judge.OpenAIJudge` does: the same prompt and answer format
(:mod:`stategraph.judge.prompt`), several questions to a request (:mod:`stategraph.judge.batch`),
the revision's allowance taken before each request (requests, tokens and its deadline:
:mod:`stategraph.judge.limits`), the strict parse (:mod:`stategraph.judge.parse`), and every
failure turned into a call with an error, never an exception out of :meth:`ChatJudge.ask`.
The engine's basis check and cache apply to its answers as to any judge's.

The chat function is given the messages, the seconds the request may take and the answer's
token cap, and returns a :class:`ChatReply`. It raises :class:`TimeoutError` when the time ran
out (recorded as ``deadline`` when the revision's deadline was what cut it, else ``timeout``)
and :class:`ChatFailure` for a reply that is no answer (``refused``, ``truncated``...). Nothing
is retried here: the model's own client retries what it retries, and a request the client's user
refused is not asked again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stategraph.errors import JudgeConfigError, MalformedAnswerError
from stategraph.judge.base import PROMPT_VERSION, JudgeAnswer, Question
from stategraph.judge.batch import MAX_PROMPT_TOKENS, MAX_QUESTIONS, BatchingJudge, Sent
from stategraph.judge.limits import Allowance, estimate_tokens
from stategraph.judge.parse import parse_answers
from stategraph.judge.prompt import messages_for_batch

__all__ = ["ChatFailure", "ChatJudge", "ChatReply", "Complete"]


@dataclass(frozen=True)
class ChatReply:
    """What a chat model answered.

    Attributes:
        text: the reply's text.
        prompt_tokens: tokens sent, as the model reported them (None: estimated here).
        completion_tokens: tokens received, likewise.
    """

    text: str | None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class ChatFailure(Exception):
    """A request that brought back no answer.

    Args:
        error: why, starting with a fixed word: ``refused``, ``truncated``, ``unavailable``,
            ``connection``... (recorded as the calls' error).
    """

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


Complete = Callable[[list[dict[str, str]], float, int], ChatReply]
"""Sends chat messages (``role``, ``content``) and returns the reply, within the seconds
given and (where the model takes a cap) the answer's tokens given; raises
:class:`TimeoutError` or :class:`ChatFailure`."""


class ChatJudge(BatchingJudge):
    """A :class:`~stategraph.judge.base.Judge` over a chat function (:data:`Complete`).

    Args:
        complete: sends one request's messages and returns the reply.
        name: the judge's versioned name (logged with every revision).
        model: the model asked; part of every cache key, so name it as precisely as the
            caller can.
        timeout: seconds one request may take (the revision's deadline may cut it shorter).
        max_tokens: the answer's token cap per question asked (a request of n questions is
            capped at n times this, and reserves as much from the revision's budget).
        max_questions: the most questions one request asks.
        max_prompt_tokens: the largest prompt (estimated tokens) a request is filled to.
        concurrency: requests in flight at once (when a round needs several).
        prompt_version: the prompt the questions are sent with.

    Raises:
        JudgeConfigError: for a value out of range.
    """

    def __init__(
        self,
        complete: Complete,
        *,
        name: str,
        model: str,
        timeout: float = 60.0,
        max_tokens: int = 512,
        max_questions: int = MAX_QUESTIONS,
        max_prompt_tokens: int = MAX_PROMPT_TOKENS,
        concurrency: int = 1,
        prompt_version: str = PROMPT_VERSION,
    ) -> None:
        self.complete = complete
        self.name = name
        self.model = model
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.max_questions = max_questions
        self.max_prompt_tokens = max_prompt_tokens
        self.concurrency = concurrency
        self.prompt_version = prompt_version
        problems = [
            (field, "must be > 0")
            for field, value in (
                ("timeout", timeout),
                ("max_tokens", max_tokens),
                ("max_questions", max_questions),
                ("max_prompt_tokens", max_prompt_tokens),
                ("concurrency", concurrency),
            )
            if not value > 0
        ]
        if not model.strip():
            problems.append(("model", "must name the model asked"))
        if problems:
            text = "; ".join(f"{field}: {what}" for field, what in problems)
            raise JudgeConfigError(name, text, (field for field, _ in problems))

    def _send(self, questions: Sequence[Question], allowance: Allowance | None) -> Sent:
        started = time.perf_counter()
        messages = messages_for_batch(questions, self.prompt_version)
        estimate = estimate_tokens(messages)
        cap = self.max_tokens * len(questions)
        reserve = estimate + cap
        if allowance is not None:
            refused = allowance.take(reserve)
            if refused is not None:
                return Sent(error=f"{refused} (0 attempts)")
        seconds = self.timeout
        left = allowance.seconds_left() if allowance is not None else None
        if left is not None:
            seconds = min(seconds, left)
        spent = 0
        answers: dict[str, JudgeAnswer] = {}
        error: str | None = None
        prompt = completion = 0
        try:
            reply = self.complete(messages, seconds, cap)
            prompt = reply.prompt_tokens if reply.prompt_tokens is not None else estimate
            completion = reply.completion_tokens or 0
            if reply.completion_tokens is None:
                completion = estimate_tokens([{"content": reply.text or ""}])
            spent = prompt + completion
            heads = [q.head.id for q in questions]
            answers = parse_answers(reply.text, heads, self.prompt_version)
        except TimeoutError:
            if left is not None and seconds >= left:
                error = "deadline: the revision's judge time ran out in a request"
            else:
                error = f"timeout: no answer within {self.timeout} s"
        except ChatFailure as exc:
            error = exc.error[:300]
        except MalformedAnswerError as exc:
            error = f"malformed: {exc.problem}"[:300]
        except Exception as exc:  # a judge failure must never abort a revision
            error = f"unexpected: {type(exc).__name__}: {exc}"[:300]
        finally:
            if allowance is not None:
                allowance.settle(reserve, spent)
        return Sent(
            answers=answers,
            error=error,
            attempts=1,
            prompt_tokens=prompt,
            completion_tokens=completion,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
        )
