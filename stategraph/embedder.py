"""Embedders for recall's optional rerank: any OpenAI-compatible ``/embeddings`` endpoint.

:class:`OpenAIEmbedder` talks to OpenAI, vLLM, Ollama, llama.cpp's server or any other server
of the OpenAI embeddings API through the official ``openai`` SDK, over the judge's bounded HTTP
client (:mod:`stategraph.judge.wire`): each request has a wall-clock deadline and a size cap,
so a slow or flooding server cannot hold a recall. Its cost is bounded too: at most
``batch`` texts per request, each cut to ``max_input_chars`` characters, and the caller
(:mod:`stategraph.rerank`) embeds each memory once and caches it in the store.

An embedder raises :class:`~stategraph.errors.EmbeddingError` for every failure (timeout,
connection, HTTP status, a reply that is not one finite vector per input of one dimension);
recall turns that into lexical order and a warning, never into a lost recall.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import openai
from openai import OpenAI

from stategraph.errors import EmbeddingError, InvalidInputError
from stategraph.judge.wire import (
    CompressedAnswer,
    ResponseTooLarge,
    bounded_http_client,
    request_limit,
)

__all__ = ["Embedder", "OpenAIEmbedder"]

_ENV_BASE_URL = "OPENAI_BASE_URL"
_ENV_API_KEY = "OPENAI_API_KEY"
_NO_KEY = "no-key"  # local servers want none, but the SDK insists on a string
_OPENAI = "https://api.openai.com/v1"


class Embedder(Protocol):
    """What recall needs of an embedder."""

    model: str
    """The model's name: part of every cached vector's key."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order, all of one dimension.

        Raises:
            EmbeddingError: the vectors could not be had (recall then keeps lexical order).
        """
        ...


class OpenAIEmbedder:
    """An :class:`Embedder` over an OpenAI-compatible ``/embeddings`` endpoint.

    Args:
        model: the model name the server knows.
        base_url: the endpoint, e.g. ``http://127.0.0.1:8080/v1``; None for
            ``OPENAI_BASE_URL``, else OpenAI's.
        api_key: None reads ``OPENAI_API_KEY`` (or sends a placeholder to a ``base_url``:
            local servers take none).
        timeout: seconds one request may take in all (a server dripping bytes is cut off).
        connect_timeout: seconds to wait for a connection.
        max_retries: retries of a request after a timeout, a dropped connection, 429 or 5xx.
        batch: texts per request.
        max_input_chars: a longer text is embedded by its first this many characters.
        max_response_bytes: the most one reply may send.

    Raises:
        InvalidInputError: a setting out of range, or no key and no endpoint.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 10.0,
        connect_timeout: float = 5.0,
        max_retries: int = 1,
        batch: int = 64,
        max_input_chars: int = 8000,
        max_response_bytes: int = 16 << 20,
    ) -> None:
        problems: list[tuple[str, str]] = []
        if not isinstance(model, str) or not model.strip():
            problems.append(("model", "must name the model the server serves"))
        if not timeout > 0 or not connect_timeout > 0:
            problems.append(("timeout", "timeout and connect_timeout must be > 0 seconds"))
        if max_retries < 0:
            problems.append(("max_retries", "must be >= 0"))
        if batch < 1 or max_input_chars < 1 or max_response_bytes < 1024:
            problems.append(("batch", "batch and max_input_chars >= 1, max_response_bytes >= 1024"))
        if problems:
            raise InvalidInputError("embedder", problems)
        self.model = model
        self.batch = batch
        self.max_input_chars = max_input_chars
        self.max_response_bytes = max_response_bytes
        self.max_retries = max_retries
        self._seconds = timeout
        self._timeout = openai.Timeout(timeout, connect=min(connect_timeout, timeout))
        key = api_key or os.environ.get(_ENV_API_KEY) or (_NO_KEY if base_url else None)
        endpoint = base_url or os.environ.get(_ENV_BASE_URL) or _OPENAI
        self._http = bounded_http_client(endpoint, self._timeout)
        try:
            self._client = OpenAI(
                base_url=base_url,
                api_key=key,
                max_retries=0,
                timeout=self._timeout,
                http_client=self._http,
            )
        except openai.OpenAIError as exc:
            self._http.close()
            raise InvalidInputError(
                "embedder",
                [
                    (
                        "api_key",
                        f"cannot build the OpenAI client ({exc}): set {_ENV_API_KEY}, "
                        "or give base_url for a local server",
                    )
                ],
            ) from None

    @classmethod
    def from_env(
        cls, model: str, env: Mapping[str, str] | None = None, **options: Any
    ) -> OpenAIEmbedder:
        """An embedder for ``model`` at ``OPENAI_BASE_URL`` with ``OPENAI_API_KEY`` (the key is
        only ever read from the environment)."""
        source = os.environ if env is None else env
        base_url = options.pop("base_url", None) or source.get(_ENV_BASE_URL, "").strip() or None
        api_key = source.get(_ENV_API_KEY, "").strip() or None
        return cls(model, base_url=base_url, api_key=api_key, **options)

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """See :meth:`Embedder.embed`."""
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch):
            chunk = [t[: self.max_input_chars] or " " for t in texts[start : start + self.batch]]
            out += self._request(chunk)
        if len({len(v) for v in out}) > 1:
            raise EmbeddingError(self.model, "malformed: vectors of different dimensions")
        return out

    def _request(self, texts: list[str]) -> list[list[float]]:
        error = ""
        for _ in range(self.max_retries + 1):
            try:
                with request_limit(self._seconds, self.max_response_bytes):
                    reply = self._client.embeddings.create(
                        model=self.model, input=texts, encoding_format="float"
                    )
                return _vectors(self.model, reply, len(texts))
            except (ResponseTooLarge, CompressedAnswer) as exc:
                raise EmbeddingError(self.model, f"too_large: {exc}") from None
            except openai.APITimeoutError:
                error = f"timeout: no answer within {self._seconds} s"
            except openai.APIConnectionError as exc:
                error = f"connection: {exc}"[:300]
            except openai.APIStatusError as exc:
                error = f"HTTP {exc.status_code}: {exc.message}"[:300]
                if exc.status_code != 429 and exc.status_code < 500:
                    raise EmbeddingError(self.model, f"http_error: {error}") from None
            except openai.OpenAIError as exc:
                raise EmbeddingError(self.model, f"unexpected: {exc}"[:300]) from None
            except (TypeError, ValueError, AttributeError) as exc:  # a reply the SDK misreads
                raise EmbeddingError(self.model, f"malformed: {exc}"[:300]) from None
        raise EmbeddingError(self.model, f"{error} ({self.max_retries + 1} attempts)")


def _vectors(model: str, reply: Any, n: int) -> list[list[float]]:
    """The reply's vectors in input order, checked: one per input, finite numbers."""
    data = getattr(reply, "data", None)
    if not isinstance(data, list) or len(data) != n:
        got = len(data) if isinstance(data, list) else "no"
        raise EmbeddingError(model, f"malformed: {got} vectors for {n} inputs")
    by_index: dict[int, list[float]] = {}
    for item in data:
        index, vector = getattr(item, "index", None), getattr(item, "embedding", None)
        if not isinstance(index, int) or not 0 <= index < n or index in by_index:
            raise EmbeddingError(model, f"malformed: a vector with index {index!r}")
        if (
            not isinstance(vector, list)
            or not vector
            or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in vector)
        ):
            raise EmbeddingError(model, "malformed: a vector that is not a list of numbers")
        by_index[index] = [float(x) for x in vector]
    return [by_index[i] for i in range(n)]
