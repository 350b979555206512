"""What recall indexes of one memory is bounded the same way on both backends (issue 42,
finding 4): a memory of 110,000 distinct words (660 kB, under the 1 MiB cap) was stored on
SQLite and answered 500 on PostgreSQL (``string is too long for tsvector``). Now both store
it and index its first :data:`~stategraph.text.fulltext.MAX_TOKENS` tokens."""

from __future__ import annotations

import itertools
import string

from fastapi.testclient import TestClient

from stategraph.text import fulltext

from .conftest import Setup


def _words(n: int) -> list[str]:
    """``n`` distinct words of five letters, in order."""
    letters = string.ascii_lowercase
    return ["".join(w) for w in itertools.islice(itertools.product(letters, repeat=5), n)]


def test_a_memory_of_110000_distinct_words_is_stored_and_recalled_on_both_backends(
    client: TestClient, setup: Setup
) -> None:
    words = _words(110_000)
    h = setup.headers("alice")
    answer = client.post("/v1/states", json={"id": "big", "text": " ".join(words)}, headers=h)
    assert answer.status_code == 201, answer.text
    first = client.get("/v1/recall", params={"q": words[3]}, headers=h).json()
    assert [r["id"] for r in first] == ["big"]
    past = client.get("/v1/recall", params={"q": words[-1]}, headers=h).json()
    assert past == []  # past the bound: not indexed, on either backend


def test_the_bounds_keep_the_first_tokens() -> None:
    many = ["w"] * (fulltext.MAX_TOKENS + 5)
    assert len(fulltext.tokens(" ".join(many))) == fulltext.MAX_TOKENS
    long = "x" * fulltext.MAX_TOKEN_CHARS
    count = fulltext.MAX_TOKEN_BYTES // len(long)
    assert count < fulltext.MAX_TOKENS
    assert len(fulltext.tokens(" ".join([long] * (count + 3)))) == count
    wide = "ж" * 100  # two bytes a letter
    assert len(fulltext.tokens(" ".join([wide] * 3000))) == fulltext.MAX_TOKEN_BYTES // 200
