"""Recall's embedding rerank against a scripted OpenAI-compatible embeddings server on loopback
(a real HTTP server, the official ``openai`` client): it reorders the lexical best, caches each
memory's vector in the store by model, and a failing embedder leaves lexical order with a
warning, never an exception. On each store backend."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import Place
from judge.chat_server import ChatServer, Received, Reply, embeddings, error_body

from stategraph import Memory
from stategraph.embedder import OpenAIEmbedder
from stategraph.errors import EmbeddingError, InvalidInputError
from stategraph.store import vectors

PETS, DRINKS = {"dog", "puppy", "pet", "cat", "animal"}, {"tea", "coffee"}
"""The queries ask for an "animal": a word the grounding lexicons do not know, so the lexical
order is the words' alone ("pet" also looks for "dog", which would put the dog first)."""


def concept_vector(text: str) -> list[float]:
    """A vector of what a text is about: pets, drinks (the scripted model's "meaning")."""
    words = set(text.lower().replace(".", " ").split())
    return [float(len(words & PETS)), float(len(words & DRINKS)), 0.1]


def meaning(request: Received) -> Reply:
    inputs = request.body["input"]
    return Reply(200, embeddings([concept_vector(t) for t in inputs], request.body["model"]))


@pytest.fixture
def server() -> Iterator[ChatServer]:
    s = ChatServer().start()
    try:
        yield s
    finally:
        s.stop()


def seeded(place: Place) -> Memory:
    mem = place.memory()
    mem.fact("tea", "the user the user the user drinks tea every morning")
    mem.fact("dog", "the user has a dog")
    mem.fact("bike", "the user rides a bike")
    return mem


def embedder(
    server: ChatServer, model: str = "scripted-embed", **options: object
) -> OpenAIEmbedder:
    return OpenAIEmbedder(model, base_url=server.base_url, **options)  # type: ignore[arg-type]


def test_rerank_reorders_the_lexical_best_and_caches_each_memory_once(
    place: Place, server: ChatServer
) -> None:
    mem = seeded(place)
    server.script(meaning)
    lexical = mem.recall("user animal", k=3)
    assert lexical[0].id == "tea"  # "user" three times: BM25's best
    with embedder(server) as emb:
        got = mem.recall("user animal", k=3, embedder=emb)
        assert got[0].id == "dog"
        assert {r.id for r in got} == {r.id for r in lexical}
        assert all("reranked by embedding similarity (scripted-embed)" in r.reason for r in got)
        assert got[0].score > got[1].score
        first = server.requests[-1].body
        assert first["model"] == "scripted-embed" and first["input"][0] == "user animal"
        assert sorted(first["input"][1:]) == sorted(r.text for r in lexical)
        assert first["encoding_format"] == "float"
        # asked again: only the query is embedded, the memories' vectors come from the store
        again = mem.recall("user animal", k=3, embedder=emb)
        assert [r.id for r in again] == [r.id for r in got]
        assert server.requests[-1].body["input"] == ["user animal"]
    with embedder(server, model="other-model") as other:  # the cache is per model
        mem.recall("user animal", k=3, embedder=other)
        assert len(server.requests[-1].body["input"]) == 4
    keys = [("dog", vectors.text_hash("the user has a dog"))]
    assert len(vectors.cached(mem.store, "scripted-embed", keys)[keys[0]]) == 3


@pytest.mark.parametrize(
    ("reply", "word"),
    [
        (Reply(500, error_body("boom", "server_error")), "HTTP 500"),
        (Reply(200, embeddings([[1.0, 0.0]])), "malformed"),  # one vector for several inputs
        (Reply(200, {"object": "list", "data": "nope"}), "malformed"),
        (Reply(200, "not json at all"), "rerank failed"),
        (Reply(404, error_body("no such model")), "http_error"),
        (Reply(200, embeddings([[1.0], [1.0], [1.0], [1.0]]), delay=3.0), "timeout"),
    ],
)
def test_a_failing_embedder_keeps_lexical_order_and_says_so(
    place: Place, server: ChatServer, reply: Reply, word: str
) -> None:
    mem = seeded(place)
    server.replies(reply)
    lexical = mem.recall("user animal", k=3)
    with embedder(server, timeout=0.5, max_retries=0) as emb:
        got = mem.recall("user animal", k=3, embedder=emb)
    assert [r.id for r in got] == [r.id for r in lexical]
    assert [r.score for r in got] == [r.score for r in lexical]
    assert all("embedding rerank failed (" in r.reason and "lexical order" in r.reason for r in got)
    assert word in got[0].reason
    assert vectors.cached(mem.store, "scripted-embed", [("dog", "x")]) == {}


def test_a_server_error_is_retried_then_served(place: Place, server: ChatServer) -> None:
    mem = seeded(place)
    calls = {"n": 0}

    def flaky(request: Received) -> Reply:
        calls["n"] += 1
        return Reply(503, error_body("busy")) if calls["n"] == 1 else meaning(request)

    server.script(flaky)
    with embedder(server, max_retries=1) as emb:
        got = mem.recall("user animal", k=2, embedder=emb)
    assert got[0].id == "dog" and calls["n"] == 2


def test_the_embedder_raises_embedding_errors_and_refuses_bad_settings(server: ChatServer) -> None:
    server.replies(Reply(200, embeddings([[1.0, float("nan")]])))
    with embedder(server, max_retries=0) as emb, pytest.raises(EmbeddingError, match="malformed"):
        emb.embed(["a"])
    with pytest.raises(InvalidInputError, match="model"):
        OpenAIEmbedder("", base_url=server.base_url)
    with pytest.raises(InvalidInputError, match="timeout"):
        OpenAIEmbedder("m", base_url=server.base_url, timeout=0)


def test_an_embedder_of_ones_own_that_raises_anything_loses_nothing(place: Place) -> None:
    class Broken:
        model = "broken"

        def embed(self, texts: object) -> list[list[float]]:
            raise RuntimeError("bug in the caller's embedder")

    mem = seeded(place)
    got = mem.recall("user", k=3, embedder=Broken())
    assert [r.id for r in got] == [r.id for r in mem.recall("user", k=3)]
    assert "unexpected: RuntimeError" in got[0].reason


def test_the_cli_reranks_with_embed_model_and_url(
    tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from stategraph.cli.main import EXIT_INPUT, main

    path = tmp_path / "m.db"
    with Memory(path) as mem:
        mem.fact("tea", "the user the user the user drinks tea every morning")
        mem.fact("dog", "the user has a dog")
    server.script(meaning)
    argv = ["recall", str(path), "user animal", "--json", "--embed-model", "scripted-embed"]
    assert main([*argv, "--embed-url", server.base_url]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in got] == ["dog", "tea"]
    assert "reranked by embedding similarity" in got[0]["reason"]
    assert main(["recall", str(path), "user", "--embed-url", server.base_url]) == EXIT_INPUT
