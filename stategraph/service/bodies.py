"""Request bodies under limits: a size cap before anything is read, then JSON parsed as strictly
as an input file.

:class:`BodyLimit` refuses a body past ``max_bytes`` from its ``Content-Length``, and counts
the bytes of a body sent in chunks as they arrive, so an endless body is never held in memory.
:class:`StrictJSONRoute` parses a JSON body with :func:`stategraph.loaders.parse_json`, the
parser change files go through: a key given twice is refused (a JSON parser would keep the last
one silently, so a reviewer and the server could read two different changes), nesting past 64
levels is refused before anything recursive runs, and ``NaN``/``Infinity`` are not JSON. Its
errors are library errors, so they reach the API's one exception handler with their message.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import anyio
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from stategraph.errors import UnreadableInputError
from stategraph.loaders import Limits, parse_json
from stategraph.service.errors import RequestTimeoutError, RequestTooLargeError, error_body

__all__ = ["BODY_TIMEOUT", "BodyLimit", "StrictJSONRoute"]

_DEPTH = 64
_CLOSE = {"Connection": "close"}
"""A connection whose body stopped half-way cannot carry another request."""


BODY_TIMEOUT = 30.0
"""Seconds a client has to send a request's whole body (1 MiB in 30 s is 35 kB/s)."""


class _TooLarge(Exception):
    pass


class _TooSlow(Exception):
    pass


class BodyLimit:
    """ASGI middleware: a request body larger than ``max_bytes`` gets 413 with the API's JSON
    error body (:class:`~stategraph.service.errors.RequestTooLargeError`), and one that has not
    all arrived ``timeout`` seconds after the app first asked for it gets 408
    (:class:`~stategraph.service.errors.RequestTimeoutError`): a client that sends a body a
    byte at a time holds a connection no longer than that.

    Args:
        app: the application to guard.
        max_bytes: the largest body accepted.
        timeout: seconds for the whole body.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, timeout: float = BODY_TIMEOUT) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = JSONResponse(error_body(RequestTooLargeError(self.max_bytes)), status_code=413)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.max_bytes or declared < 0:
                    await refusal(scope, receive, send)
                    return
        seen = 0
        started = False
        deadline: float | None = None

        async def counted() -> Message:
            nonlocal seen, deadline
            if deadline is None:
                deadline = anyio.current_time() + self.timeout
            with anyio.move_on_after(max(deadline - anyio.current_time(), 0.0)) as waited:
                message = await receive()
            if waited.cancelled_caught:
                raise _TooSlow
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if started:
                raise
            await refusal(scope, receive, send)
        except _TooSlow:
            if started:
                raise
            late = RequestTimeoutError(self.timeout)
            await JSONResponse(error_body(late), status_code=408, headers=_CLOSE)(
                scope, receive, send
            )


class StrictJSONRoute(APIRoute):
    """A route whose JSON body is parsed by :func:`stategraph.loaders.parse_json`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        original = super().get_route_handler()

        async def handler(request: Request) -> Response:
            if request.method in ("POST", "PUT", "PATCH"):
                body = await request.body()
                if body.strip():
                    limits = Limits(max_bytes=len(body), max_depth=_DEPTH)
                    try:
                        text = body.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        reason = f"not UTF-8 (a bad byte at offset {exc.start})"
                        raise UnreadableInputError("request body", reason) from None
                    # parsed before FastAPI reads it, so that a refusal keeps its message;
                    # Request.json() returns this value from then on
                    request._json = parse_json(text, "request body", limits)
            return await original(request)

        return handler
