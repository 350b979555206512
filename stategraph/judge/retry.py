"""When a judge tries a request again, and how long it waits first.

Only faults that another attempt can cure are retried: timeouts, dropped connections, 429 and
5xx. The wait is the server's ``retry-after`` when it sends one (capped, so a server asking
for an hour cannot stall a revision for an hour), else exponential backoff with jitter, so the
workers of one batch that failed together do not come back together.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from time import time

__all__ = ["RetryPolicy", "retry_after_seconds"]


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait a response asks for, in seconds, or None when it asks for none.

    Reads ``retry-after-ms`` (OpenAI's) first, then ``retry-after`` as seconds or as an HTTP
    date. Negative, unparsable or infinite values count as no request.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = lowered.get(header)
        if raw is None:
            continue
        try:
            seconds = float(raw) * scale
        except ValueError:
            if header != "retry-after":
                continue
            try:
                when = parsedate_to_datetime(raw)
            except (TypeError, ValueError):
                continue
            seconds = when.timestamp() - (time() if now is None else now)
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return None


@dataclass(frozen=True)
class RetryPolicy:
    """How many times a failed request is tried again, and the waits between.

    Attributes:
        max_retries: retries after the first attempt (0: never retry).
        backoff: the first backoff wait in seconds; it doubles with each retry.
        max_backoff: the longest backoff wait.
        max_retry_after: the longest wait a ``retry-after`` header is honoured for; a longer
            request is cut to this.
    """

    max_retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 30.0
    _random: random.Random = field(default_factory=random.Random, repr=False, compare=False)

    def problems(self) -> list[tuple[str, str]]:
        """The settings out of range, as ``(field, what is wrong)``; empty when all are fine."""
        found: list[tuple[str, str]] = []
        if self.max_retries < 0:
            found.append(("max_retries", "must be >= 0"))
        for name in ("backoff", "max_backoff", "max_retry_after"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                found.append((name, "must be a finite number >= 0"))
        return found

    def wait(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first retry).

        Args:
            retry: which retry this is.
            retry_after: the wait the server asked for, if any.
        """
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        ceiling = min(self.max_backoff, self.backoff * 2.0 ** (retry - 1))
        return ceiling / 2 + self._random.uniform(0, ceiling / 2)
