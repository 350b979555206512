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

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from stategraph.errors import UnreadableInputError
from stategraph.loaders import Limits, parse_json
from stategraph.service.errors import RequestTooLargeError, error_body

__all__ = ["BodyLimit", "StrictJSONRoute"]

_DEPTH = 64


class _TooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: a request body larger than ``max_bytes`` gets 413 with the API's JSON
    error body (:class:`~stategraph.service.errors.RequestTooLargeError`).

    Args:
        app: the application to guard.
        max_bytes: the largest body accepted.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

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

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
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
