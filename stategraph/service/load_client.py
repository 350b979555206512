"""A lean HTTP/1.1 client for the load test: one keep-alive connection, JSON in and out.

The load test runs on the same two cores as the server it measures, so its client must cost
little: with httpx, the client used as much CPU as the four server workers together (about 2 ms
a request), and the figures measured the client as much as the server. This speaks just what
the API answers (a status line, headers, a ``Content-Length`` body) over asyncio streams; any
failure of the connection is :class:`ConnectionLost`, after which the next request reconnects.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["Connection", "ConnectionLost", "Reply"]


class ConnectionLost(Exception):
    """The connection failed before a whole answer came back: the request is in doubt."""


class Reply:
    """A status, the headers (names lower-cased) and the body of an answer."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to ``host:port``, opened on first use and after a loss.

    Args:
        host: the server's address (loopback).
        port: its port.
        timeout: seconds to wait for an answer before the request counts as lost.
    """

    def __init__(self, host: str, port: int, timeout: float = 60.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    def close(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
            self._streams = None

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: Any = None
    ) -> Reply:
        """Send one request (``body`` as JSON) and read its answer.

        Raises:
            ConnectionLost: the connection could not be made, or broke before the answer.
        """
        try:
            return await asyncio.wait_for(self._exchange(method, path, headers, body), self.timeout)
        except (OSError, EOFError, ValueError, asyncio.IncompleteReadError, TimeoutError) as exc:
            self.close()
            raise ConnectionLost(f"{method} {path}: {type(exc).__name__}: {exc}") from exc

    async def _exchange(self, method: str, path: str, headers: dict[str, str], body: Any) -> Reply:
        if self._streams is None:
            self._streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self._streams
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split(" ", 2)[1])
        answer: dict[str, str] = {}
        for line in head[1:]:
            if line:
                name, _, value = line.partition(":")
                answer[name.strip().lower()] = value.strip()
        if "content-length" not in answer:
            raise ValueError("an answer without Content-Length")
        data = await reader.readexactly(int(answer["content-length"]))
        if answer.get("connection", "").lower() == "close":
            self.close()
        return Reply(status, answer, data)
