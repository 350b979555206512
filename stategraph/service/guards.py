"""Connection limits uvicorn does not keep: a deadline for a request's headers, and a cap on
the connections one worker holds open.

The installed uvicorn (0.55, its h11 protocol, as no ``httptools`` is installed) starts no
timer while it waits for a request: a connection that sends part of a request line and then
nothing stays open for ever, and so does one that sends a byte now and then (the keep-alive
timer stops at the first byte of the next request). 19,985 such idle connections took every
file descriptor of a server, and legitimate requests timed out. uvicorn's
``limit_concurrency`` does not help: it answers 503 only once a request's headers have
arrived, and counts the idle connections against the legitimate request.

:class:`GuardedH11` is uvicorn's h11 protocol with two guards:

- **Header deadline.** From the moment a connection opens, and again whenever a response
  ends, the next request's headers must be complete within ``header_timeout`` seconds, or
  the connection is closed. A request in progress (its body, the app's work) is not timed
  here (the body is, by :class:`~stategraph.service.bodies.BodyLimit`).
- **Connection cap.** A worker holds at most ``max_connections``. A connection past the cap
  closes the oldest connection still waiting for its headers (a slow or idle client), or,
  if every connection is busy with a request, is itself closed at once. A legitimate client
  sends its headers as it connects, so filling the server with idle connections no longer
  keeps it out; the cap stays below the process's descriptor limit, so accepting never fails
  for want of one (asyncio then stops accepting for a second at a time; see
  :func:`default_max_connections`).

The header size is h11's incomplete-event limit (:data:`MAX_HEADER_BYTES`; past it, 400).
"""

from __future__ import annotations

import asyncio
import functools
import resource
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "HEADER_TIMEOUT",
    "KEEP_ALIVE",
    "MAX_HEADER_BYTES",
    "GuardedH11",
    "default_max_connections",
    "uvicorn_options",
]

HEADER_TIMEOUT = 10.0
"""Seconds a client has to send a request's headers, from connecting or from the end of the
previous response."""
KEEP_ALIVE = 5
"""Seconds an idle kept-alive connection stays open (uvicorn's ``timeout_keep_alive``)."""
MAX_HEADER_BYTES = 16 * 1024
"""The largest request line and headers accepted (h11's incomplete event size)."""


def default_max_connections() -> int:
    """The connections one worker holds by default: a quarter of the process's descriptor
    limit, at most 1,000 (256 under the common limit of 1,024).

    The rest is for the stores (a tenant's SQLite file, its WAL and its lock), the libraries,
    and the connections asyncio accepts in a burst before the cap sees them: up to the
    backlog (half the cap) per event-loop turn, and a flood lands two or three bursts before
    the connections they displace are closed."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1000
    return max(8, min(1000, soft // 4))


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a connection cap (see the module).

    Built by uvicorn for each connection, through :func:`uvicorn_options`, which binds the
    two limits.
    """

    def __init__(
        self,
        config: Any,
        server_state: Any,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        header_timeout: float = HEADER_TIMEOUT,
        max_connections: int = 1000,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.header_timeout = header_timeout
        self.max_connections = max_connections
        self.waiting_since: float | None = None
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections and not self._make_room():
            self.transport.close()
            return
        self._await_headers()

    def _make_room(self) -> bool:
        """Close the connection that has waited longest for its headers; False if none is
        waiting (every other connection is serving a request)."""
        waiting = [
            c
            for c in self.connections
            if c is not self and isinstance(c, GuardedH11) and c.waiting_since is not None
        ]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c.waiting_since or 0.0)
        oldest.waiting_since = None
        oldest.transport.close()
        return True

    def _await_headers(self) -> None:
        self._cancel_deadline()
        self.waiting_since = self.loop.time()
        self._deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.waiting_since is not None and not self.transport.is_closing():
            self.waiting_since = None
            self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if self.waiting_since is not None and self.conn.their_state is not h11.IDLE:
            self.waiting_since = None  # the headers are in: the request is the app's now
            self._cancel_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self.waiting_since = None
        self._cancel_deadline()
        super().connection_lost(exc)


def uvicorn_options(
    *, header_timeout: float = HEADER_TIMEOUT, max_connections: int | None = None
) -> dict[str, Any]:
    """The options of :class:`uvicorn.Config` that guard a server's connections: the
    protocol with its two limits bound, uvicorn's keep-alive timeout, and the header size
    cap. Picklable, for worker processes.

    Args:
        header_timeout: seconds for a request's headers (see :class:`GuardedH11`).
        max_connections: connections held per worker (None: :func:`default_max_connections`).
    """
    cap = default_max_connections() if max_connections is None else max_connections
    return {
        "http": functools.partial(GuardedH11, header_timeout=header_timeout, max_connections=cap),
        "timeout_keep_alive": KEEP_ALIVE,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        # asyncio accepts up to ``backlog`` connections in one go before any of them is seen
        # (and so before the cap can close one): half the cap keeps a flood's bursts within
        # the descriptors the cap leaves free (it is also the kernel's queue of connections
        # not yet accepted)
        "backlog": max(8, min(2048, cap // 2)),
    }
