"""The MCP server's stdio transport, under the limits the HTTP API keeps: every line answered.

The SDK's own stdio transport reads a line of any length (a 50 MB line was read whole and
stored), decodes junk bytes into replacement characters, and hands every line it cannot parse
to the server as an exception that the server only logs: malformed JSON, binary junk, a bare
JSON array or a 10,000-level nest got no answer, and the client waited forever. A lone
surrogate (JSON's ``"\\udc00"``) reached the server, whose answer then failed to serialise:
no answer either.

Here each line is read up to :data:`MAX_MESSAGE` bytes (1 MiB, the HTTP API's body cap; the
rest of a longer line is skipped, never held), then parsed as the HTTP API parses a body
(:func:`stategraph.loaders.parse_json`: nesting past 64 levels, a key given twice, ``NaN``
refused without recursion), and checked as one JSON-RPC 2.0 message. Whatever fails is
answered on stdout with a JSON-RPC error that says why: ``-32700`` (parse error) for what is
not JSON, ``-32600`` (invalid request) for JSON that is no single valid message, with the
request's ``id`` when one can be read (so the client's waiting call ends; for a line that does
not parse, its top-level ``"id"`` read from its start), else ``null``.
Only valid messages reach the server.

As the SDK's transport does, file descriptors 0 and 1 are moved away from the wire while it
serves (stray reads get end-of-file, stray prints go to stderr) and restored after.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from stategraph.errors import DuplicateKeyError, InputFileError
from stategraph.loaders import Limits, parse_json

__all__ = ["MAX_MESSAGE", "MessageError", "guarded_stdio", "read_message"]

MAX_MESSAGE = 1 << 20
"""The largest message read, in bytes (the HTTP API's body cap)."""
_DEPTH = 64
_SKIP = 1 << 16
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_ID_VALUE = re.compile(rb'\s*:\s*("(?:[^"\\]|\\.){0,256}"|-?\d{1,18})\s*[,}]')


class MessageError(Exception):
    """A line that is no valid JSON-RPC message: the error to answer it with.

    Attributes:
        code: the JSON-RPC error code (-32700 or -32600).
        message: why, for the client to read.
        id: the request's id, when one could be read (else None: JSON ``null``).
    """

    def __init__(self, code: int, message: str, id: str | int | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.id = code, message, id

    def answer(self) -> bytes:
        """The JSON-RPC error line that answers it."""
        body = {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }
        return json.dumps(body).encode() + b"\n"


def _id_of(obj: Any) -> str | int | None:
    """The id of a parsed message, if it is one a response can carry back."""
    value = obj.get("id") if isinstance(obj, dict) else None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    if isinstance(value, str) and _is_unicode(value) is False:
        return None
    return value


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _id_in_prefix(data: bytes) -> str | int | None:
    """The top-level ``"id"`` of a line that cannot be parsed whole (too long, or broken after
    its id), read from its first 64 KiB: enough to answer the call the client waits on. An
    ``"id"`` nested in the parameters (a memory's id) is never taken for it."""
    depth = 0
    for token in _TOKENS.finditer(data[:_SKIP]):
        t = token.group()
        if t in (b"{", b"["):
            depth += 1
        elif t in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and t == b'"id"':
            value = _ID_VALUE.match(data, token.end())
            if value is None:
                return None
            try:
                found = json.loads(value.group(1))
            except ValueError:
                return None
            return _id_of({"id": found})
    return None


def read_message(line: bytes) -> types.JSONRPCMessage:
    """One line read from stdin as a JSON-RPC message.

    Raises:
        MessageError: the line is not UTF-8 or not JSON (``-32700``), or JSON that is no
            single valid JSON-RPC 2.0 message (``-32600``), with the reason.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MessageError(
            types.PARSE_ERROR, f"not UTF-8 (a bad byte at offset {exc.start}): send JSON text"
        ) from None
    limits = Limits(max_bytes=MAX_MESSAGE, max_depth=_DEPTH)
    try:
        obj = parse_json(text, "message", limits)
    except DuplicateKeyError as exc:  # which of two ids? neither
        raise MessageError(types.PARSE_ERROR, exc.reason) from None
    except InputFileError as exc:
        raise MessageError(types.PARSE_ERROR, exc.reason, _id_in_prefix(line)) from None
    if isinstance(obj, list):
        raise MessageError(
            types.INVALID_REQUEST,
            "a batch (JSON array) is not supported: send one JSON-RPC message per line",
        )
    if not isinstance(obj, dict):
        raise MessageError(
            types.INVALID_REQUEST, f"a JSON-RPC message is an object, not a {type(obj).__name__}"
        )
    if not _is_unicode(json.dumps(obj, ensure_ascii=False)):
        raise MessageError(
            types.INVALID_REQUEST,
            "the message holds a lone surrogate (a \\ud800-\\udfff escape on its own): it is "
            "no character; send valid Unicode",
            _id_of(obj),
        )
    try:
        return types.jsonrpc_message_adapter.validate_python(obj, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise MessageError(
            types.INVALID_REQUEST,
            f"not a valid JSON-RPC 2.0 message ({where}: {first['msg']})",
            _id_of(obj),
        ) from None


async def _lines(stdin: BinaryIO, max_bytes: int) -> AsyncIterator[bytes | MessageError]:
    """Each line of ``stdin``, or the error answering one too long; a long line's rest is
    skipped a chunk at a time, never held whole. Reads run in a worker thread, abandoned if
    the server stops first (a blocked read cannot be interrupted)."""

    async def readline(size: int) -> bytes:
        return await anyio.to_thread.run_sync(stdin.readline, size, abandon_on_cancel=True)

    while raw := await readline(max_bytes + 1):
        if len(raw) <= max_bytes or raw.endswith(b"\n"):
            yield raw
            continue
        id = _id_in_prefix(raw)
        while (more := await readline(_SKIP)) and not more.endswith(b"\n"):
            pass
        yield MessageError(
            types.INVALID_REQUEST,
            f"the message is larger than {max_bytes} bytes: send less in one call",
            id,
        )


def _claim(fd: int, stream: Any, mode: str, diversion: int) -> tuple[BinaryIO, int | None]:
    """A private duplicate of a standard descriptor to serve the wire from, with the
    descriptor itself pointed at ``diversion``; the duplicate to restore it from."""
    try:
        if stream.fileno() != fd:
            raise OSError
        private = os.dup(fd)
    except (AttributeError, OSError, ValueError):
        os.close(diversion)
        return stream.buffer, None
    os.dup2(diversion, fd)
    os.close(diversion)
    # buffered both ways: a raw write to a pipe may take only part of a long line
    return cast(BinaryIO, os.fdopen(os.dup(private), mode)), private


@asynccontextmanager
async def guarded_stdio(
    max_bytes: int = MAX_MESSAGE,
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    """Serve MCP over this process's stdin and stdout: the streams a server runs on.

    Args:
        max_bytes: the largest message read (longer lines are answered with an error).
    """
    wire_in, saved_in = _claim(0, sys.stdin, "rb", os.open(os.devnull, os.O_RDONLY))
    wire_out, saved_out = _claim(1, sys.stdout, "wb", os.dup(2))
    stdout = anyio.wrap_file(wire_out)
    lock = anyio.Lock()
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](0)

    async def write(line: bytes) -> None:
        async with lock:
            await stdout.write(line)
            await stdout.flush()

    async def reader() -> None:
        async with to_server:
            async for raw in _lines(wire_in, max_bytes):
                if isinstance(raw, MessageError):
                    await write(raw.answer())
                    continue
                if not raw.strip():
                    continue
                try:
                    message = read_message(raw)
                except MessageError as refused:
                    await write(refused.answer())
                    continue
                await to_server.send(SessionMessage(message))

    async def writer() -> None:
        async with from_server:
            async for sent in from_server:
                text = sent.message.model_dump_json(by_alias=True, exclude_unset=True)
                await write(text.encode() + b"\n")

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            yield from_client, to_client
            tg.cancel_scope.cancel()
    finally:
        for fd, saved in ((0, saved_in), (1, saved_out)):
            if saved is not None:
                os.dup2(saved, fd)
                os.close(saved)
