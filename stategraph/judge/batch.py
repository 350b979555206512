"""Several questions to one request: how a judge packs them, and the calls it records.

A revision's judge questions come in rounds, and one change usually puts several derived
memories in question at once. Under :data:`~stategraph.judge.base.PROMPT_VERSION` a judge sends
them together: one request per round (or a few, for a large round), not one per memory. A
request holds at most ``max_questions`` questions and a prompt of about ``max_tokens`` (a
question larger than that alone goes alone), and never two questions about the same head, as
the reply names each answer by its head. Under a version that asks one question a request
(:data:`~stategraph.judge.base.PER_EDGE_VERSIONS`) each question is its own request.

Every judge that packs questions does it here (:func:`pack`), and records what came back the
same way (:func:`ask_in_requests`): one :class:`~stategraph.judge.base.JudgeCall` per question,
with the request's cost on the call of its first question and none on the others, so that sums
over a revision's calls count requests and tokens once. The benchmark's gold oracle packs its
questions the same way, so its request count is the one a model would see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from stategraph.judge.base import (
    PER_EDGE_VERSIONS,
    PROMPT_VERSION,
    JudgeAnswer,
    JudgeCall,
    Question,
    question_key,
)
from stategraph.judge.limits import Allowance, current_allowance, estimate_tokens
from stategraph.judge.prompt import messages_for_batch

__all__ = [
    "MAX_PROMPT_TOKENS",
    "MAX_QUESTIONS",
    "BatchingJudge",
    "Sent",
    "ask_in_requests",
    "pack",
]

MAX_QUESTIONS = 8
"""The most questions one request asks, by default."""

MAX_PROMPT_TOKENS = 12_000
"""The largest prompt (estimated tokens) a request is packed to, by default."""


def pack(
    questions: Sequence[Question],
    prompt_version: str = PROMPT_VERSION,
    max_questions: int = MAX_QUESTIONS,
    max_tokens: int = MAX_PROMPT_TOKENS,
) -> list[list[int]]:
    """The questions' positions, grouped into requests in order.

    Args:
        questions: the questions to send (distinct keys).
        prompt_version: the prompt they are sent with.
        max_questions: the most questions in one request.
        max_tokens: the largest estimated prompt a request is filled to.
    """
    if prompt_version in PER_EDGE_VERSIONS or max_questions <= 1:
        return [[i] for i in range(len(questions))]
    groups: list[list[int]] = []
    group: list[int] = []
    for i, q in enumerate(questions):
        if group:
            heads = {questions[j].head.id for j in group}
            fits = len(group) < max_questions and q.head.id not in heads
            if fits:
                trial = [questions[j] for j in (*group, i)]
                fits = estimate_tokens(messages_for_batch(trial, prompt_version)) <= max_tokens
            if not fits:
                groups.append(group)
                group = []
        group.append(i)
    if group:
        groups.append(group)
    return groups


@dataclass(frozen=True)
class Sent:
    """What one request brought back.

    Attributes:
        answers: the answers the reply gave, by head.
        error: why the request as a whole has no answer (its questions all get it), or None.
        attempts: requests made for it (retries included; 0 when it was never sent).
        prompt_tokens: tokens sent, as reported (or estimated).
        completion_tokens: tokens received, likewise.
        latency_ms: wall time of all attempts.
    """

    answers: dict[str, JudgeAnswer] = field(default_factory=dict)
    error: str | None = None
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0


Send = Callable[[Sequence[Question]], Sent]
"""Sends one request asking these questions; never raises."""


def ask_in_requests(
    questions: Sequence[Question],
    send: Send,
    *,
    judge: str,
    model: str,
    prompt_version: str = PROMPT_VERSION,
    max_questions: int = MAX_QUESTIONS,
    max_tokens: int = MAX_PROMPT_TOKENS,
    concurrency: int = 1,
) -> list[JudgeCall]:
    """Answer each question through requests of several, one call per question, in order.

    Questions with the same key are asked once; the later ones get a copy of the call marked
    ``cached`` with no attempts, tokens or latency of their own. A question the reply leaves
    out gets a ``malformed`` error.

    Args:
        questions: the questions.
        send: sends one request (:data:`Send`).
        judge: the judge's versioned name, recorded on each call.
        model: the model, recorded and keyed.
        prompt_version: the prompt, recorded and keyed.
        max_questions: the most questions a request asks.
        max_tokens: the largest estimated prompt a request is filled to.
        concurrency: requests in flight at once.
    """
    keys = [question_key(q, model, prompt_version) for q in questions]
    unique = dict(zip(keys, questions, strict=True))
    asked = list(unique.values())
    groups = [
        [asked[i] for i in group]
        for group in pack(asked, prompt_version, max_questions, max_tokens)
    ]
    workers = max(1, min(concurrency, len(groups)))
    if workers == 1:
        sent = [send(group) for group in groups]
    else:
        with ThreadPoolExecutor(workers, thread_name_prefix="stategraph-judge") as pool:
            sent = list(pool.map(send, groups))
    answered: dict[str, JudgeCall] = {}
    for group, reply in zip(groups, sent, strict=True):
        for n, q in enumerate(group):
            answer = None if reply.error is not None else reply.answers.get(q.head.id)
            error = reply.error
            if error is None and answer is None:
                error = f"malformed: the reply has no answer for {q.head.id}"
            key = question_key(q, model, prompt_version)
            first = n == 0
            answered[key] = JudgeCall(
                key=key,
                question=q,
                judge=judge,
                model=model,
                prompt_version=prompt_version,
                answer=answer,
                error=error,
                attempts=reply.attempts if first else 0,
                prompt_tokens=reply.prompt_tokens if first else 0,
                completion_tokens=reply.completion_tokens if first else 0,
                latency_ms=reply.latency_ms if first else 0.0,
            )
    calls: list[JudgeCall] = []
    seen: set[str] = set()
    for key in keys:
        call = answered[key]
        if key in seen:
            call = call.model_copy(
                update={
                    "cached": True,
                    "attempts": 0,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "latency_ms": 0.0,
                }
            )
        seen.add(key)
        calls.append(call)
    return calls


class BatchingJudge:
    """A judge that asks through requests of several questions, within the revision's
    allowance: what :class:`~stategraph.judge.OpenAIJudge` and
    :class:`~stategraph.judge.ChatJudge` share. A subclass sets the attributes and sends one
    request (:meth:`_send`)."""

    name: str
    model: str
    prompt_version: str
    max_questions: int
    max_prompt_tokens: int
    concurrency: int

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        """Answer each question, several to a request; one call per question, in order.

        Questions with the same key are asked once (the later ones get a copy of the call
        marked ``cached``, with no cost of its own), and a request's cost is recorded on its
        first question's call, so that sums over calls count each request once. Inside
        :func:`~stategraph.judge.limits.spending` each request takes from that allowance
        first: a request it cannot pay for gets a ``budget`` or ``deadline`` error, and none
        outlives the revision's deadline. Never raises for a failed question.
        """
        allowance = current_allowance()
        return ask_in_requests(
            questions,
            lambda asked: self._send(asked, allowance),
            judge=self.name,
            model=self.model,
            prompt_version=self.prompt_version,
            max_questions=self.max_questions,
            max_tokens=self.max_prompt_tokens,
            concurrency=self.concurrency,
        )

    def _send(self, questions: Sequence[Question], allowance: Allowance | None) -> Sent:
        """Send one request asking ``questions``; never raises."""
        raise NotImplementedError
