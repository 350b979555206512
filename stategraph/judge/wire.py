"""The judge's HTTP client, bounded on the wire: a wall-clock deadline and a size cap per request.

HTTP timeouts bound each *read*, not a request: a server that sends one byte every 0.2 s never
trips a 60 s read timeout, and holds the request for as long as it likes. And the client reads
whatever body it is sent, however large. So every socket of the judge's client goes through a
stream that checks, at each read and write, the limit of the request in flight
(:func:`request_limit`): past its deadline the read fails with a timeout, and past its byte
cap (status line, headers and body as received) with :class:`ResponseTooLarge`. The client also
asks for no compression and refuses a compressed answer, as a small compressed body can inflate
a thousandfold after the cap has counted it.

The limit lives in a context variable set around one request, so it follows the request onto
whichever pooled connection serves it; a socket read outside any limit is not bounded here.
"""

from __future__ import annotations

import ssl
import time
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpcore2
import httpx2

__all__ = ["CompressedAnswer", "ResponseTooLarge", "bounded_http_client", "request_limit"]


class ResponseTooLarge(Exception):
    """The server sent more than the request's byte cap."""


class CompressedAnswer(Exception):
    """The server compressed its answer though asked not to (it could inflate past any cap)."""


@dataclass
class _Limit:
    deadline: float  # time.monotonic()
    max_bytes: int
    received: int = 0

    def timeout(self, timeout: float | None, error: type[Exception]) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise error("the request's deadline passed")
        return left if timeout is None else min(timeout, left)


_LIMIT: ContextVar[_Limit | None] = ContextVar("stategraph_judge_request", default=None)


@contextmanager
def request_limit(seconds: float, max_bytes: int) -> Iterator[None]:
    """Bound the HTTP request made inside: ``seconds`` of wall-clock time, ``max_bytes`` read."""
    token = _LIMIT.set(_Limit(time.monotonic() + seconds, max_bytes))
    try:
        yield
    finally:
        _LIMIT.reset(token)


class _Stream(httpcore2.NetworkStream):
    """A socket stream whose reads and writes obey the limit of the request in flight."""

    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        limit = _LIMIT.get()
        if limit is None:
            return self._inner.read(max_bytes, timeout)
        data = self._inner.read(max_bytes, limit.timeout(timeout, httpcore2.ReadTimeout))
        limit.received += len(data)
        if limit.received > limit.max_bytes:
            raise ResponseTooLarge(f"the answer passed {limit.max_bytes} bytes")
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        limit = _LIMIT.get()
        if limit is not None:
            timeout = limit.timeout(timeout, httpcore2.WriteTimeout)
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.NetworkStream:
        limit = _LIMIT.get()
        if limit is not None:
            timeout = limit.timeout(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore2.NetworkBackend):
    """Opens the judge's sockets as :class:`_Stream`, connecting within the request's time."""

    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        limit = _LIMIT.get()
        if limit is not None:
            timeout = limit.timeout(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.NetworkStream:
        limit = _LIMIT.get()
        if limit is not None:
            timeout = limit.timeout(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _transport(proxy: str | None) -> httpx2.HTTPTransport:
    transport = httpx2.HTTPTransport(proxy=proxy)
    # httpx builds the connection pool itself and takes no network backend; the pool (a proxy
    # pool too) opens every connection through this attribute, so it is wrapped in place.
    pool = transport._pool
    pool._network_backend = _Backend(pool._network_backend)
    return transport


def _proxy_for(base_url: str) -> str | None:
    """The proxy the environment names for ``base_url`` (``HTTPS_PROXY``, ``NO_PROXY``...),
    as the SDK's own client would use it."""
    url = httpx2.URL(base_url)
    if urllib.request.proxy_bypass(url.host):
        return None
    proxy = urllib.request.getproxies().get(url.scheme)
    return proxy or None


def _identity_only(response: httpx2.Response) -> None:
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise CompressedAnswer(f"the server sent a {encoding!r}-encoded answer")


def bounded_http_client(base_url: str, timeout: httpx2.Timeout) -> httpx2.Client:
    """An HTTP client for the ``openai`` SDK whose requests :func:`request_limit` bounds.

    Args:
        base_url: the endpoint (to pick the environment's proxy for it).
        timeout: the per-operation timeouts (the limit only ever shortens them).
    """
    return httpx2.Client(
        transport=_transport(_proxy_for(base_url)),
        timeout=timeout,
        follow_redirects=True,
        headers={"accept-encoding": "identity"},
        event_hooks={"response": [_identity_only]},
    )
