"""The waits between attempts: the server's retry-after (capped), else jittered backoff."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from stategraph.judge.retry import RetryPolicy, retry_after_seconds


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({}, None),
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": "-1"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after": "tomorrow"}, None),
    ],
)
def test_retry_after_headers(headers, seconds):
    assert retry_after_seconds(headers) == seconds


def test_retry_after_as_an_http_date():
    now = 1_700_000_000.0
    assert retry_after_seconds({"retry-after": formatdate(now + 7, usegmt=True)}, now) == 7.0
    assert retry_after_seconds({"retry-after": formatdate(now - 7, usegmt=True)}, now) is None


def test_retry_after_is_honoured_up_to_the_cap():
    policy = RetryPolicy(max_retry_after=10)
    assert policy.wait(1, 3.0) == 3.0
    assert policy.wait(3, 0.0) == 0.0
    assert policy.wait(1, 3600.0) == 10.0


def test_backoff_doubles_within_its_jitter_up_to_the_ceiling():
    policy = RetryPolicy(backoff=1.0, max_backoff=4.0)
    for retry, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 4.0), (10, 4.0)]:
        for _ in range(20):
            assert ceiling / 2 <= policy.wait(retry) <= ceiling


def test_problems():
    assert RetryPolicy().problems() == []
    bad = RetryPolicy(max_retries=-1, backoff=-1.0, max_backoff=float("inf"))
    assert [field for field, _ in bad.problems()] == ["max_retries", "backoff", "max_backoff"]
