"""What a revision may still spend on the judge, shared by every request it makes.

A revision's judge budget (:class:`~stategraph.judge.settle.JudgeBudget`) bounds requests, tokens
and wall-clock time. Counting answers after a round is too late: one question can cost several
requests (retries), one request can be a huge prompt, and one slow server can hold a round for
as long as its timeouts allow. So the engine hands the judge an :class:`Allowance` for each
batch (:func:`spending`), and a judge that knows it (:class:`~stategraph.judge.OpenAIJudge`)
takes from it *before each request*: one request, the prompt's estimated tokens, and no more
time than is left. A judge that does not know it is still held to the budget between rounds.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["Allowance", "current_allowance", "estimate_tokens", "spending"]


def estimate_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """A generous estimate of the tokens a prompt costs, before it is sent.

    One token per three UTF-8 bytes of the messages as JSON: English runs near four bytes a
    token and Chinese near three, so this errs high, which is the safe side for a budget.
    """
    size = len(json.dumps(list(messages), ensure_ascii=False).encode("utf-8"))
    return math.ceil(size / 3)


class Allowance:
    """Requests, tokens and time left to one batch of questions; safe across threads.

    Args:
        requests: HTTP requests that may still be made (retries count).
        tokens: tokens that may still be spent (prompt and answer).
        deadline: the ``time.monotonic()`` past which nothing more is sent, or None.
    """

    def __init__(self, requests: int, tokens: int, deadline: float | None = None) -> None:
        self.requests = requests
        self.tokens = tokens
        self.deadline = deadline
        self._lock = threading.Lock()

    def seconds_left(self) -> float | None:
        """Seconds until the deadline (0 once it passed), or None when there is none."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def take(self, tokens: int) -> str | None:
        """Reserve one request and ``tokens`` for it; None when granted, else why not.

        The reason starts with ``deadline:`` or ``budget:`` (the words a judge's errors use).
        """
        with self._lock:
            if self.deadline is not None and time.monotonic() >= self.deadline:
                return "deadline: the revision's judge time ran out"
            if self.requests <= 0:
                return "budget: the revision's judge requests are spent"
            if tokens > self.tokens:
                return (
                    f"budget: the prompt (about {tokens} tokens) is more than the "
                    f"{max(self.tokens, 0)} tokens left"
                )
            self.requests -= 1
            self.tokens -= tokens
            return None

    def settle(self, reserved: int, spent: int) -> None:
        """A request reserved ``reserved`` tokens and cost ``spent``: give back or take more."""
        with self._lock:
            self.tokens += reserved - spent


_CURRENT: ContextVar[Allowance | None] = ContextVar("stategraph_judge_allowance", default=None)


def current_allowance() -> Allowance | None:
    """The allowance of the batch being asked in this context, or None outside one."""
    return _CURRENT.get()


@contextmanager
def spending(allowance: Allowance) -> Iterator[Allowance]:
    """Ask a judge within ``allowance``: a judge reads it with :func:`current_allowance`."""
    token = _CURRENT.set(allowance)
    try:
        yield allowance
    finally:
        _CURRENT.reset(token)
