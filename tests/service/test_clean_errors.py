"""Hostile values over HTTP get a clear 400, write nothing, and leave the connection open
(issue 22, item 8): a lone surrogate in any text, a ``since`` past any sequence number, and
an unexpected error (500) that no longer resets a kept-alive connection.

Requests go over one raw socket to the real app served by uvicorn on loopback, so "the
connection stays open" is what the server does, not what a client library retries.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from stategraph.service.tenants import SQLiteTenants
from stategraph.store import SQLiteStore

from .conftest import LiveServer, Setup

SURROGATE = "\\udc00"
"""The JSON escape of a lone surrogate: valid JSON, but no character."""


class Connection:
    """One kept-alive HTTP/1.1 connection; each request is answered on it or it fails."""

    def __init__(self, url: str, token: str) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        self.token = token
        self.buffer = b""

    def close(self) -> None:
        self.sock.close()

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, Any]:
        lines = [
            f"{method} {path} HTTP/1.1",
            "Host: test",
            f"Authorization: Bearer {self.token}",
            "Content-Type: application/json",
            f"Content-Length: {len(body or b'')}",
        ]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
        head = self._read_until(b"\r\n\r\n").decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        fields = dict(h.lower().split(": ", 1) for h in head[1:])
        assert "chunked" not in fields.get("transfer-encoding", "")
        size = int(fields["content-length"])
        while len(self.buffer) < size:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection mid-body")
            self.buffer += chunk
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return status, json.loads(data)


@pytest.fixture
def conn(live: LiveServer, setup: Setup) -> Iterator[Connection]:
    c = Connection(live.url, setup.token["alice"])
    try:
        yield c
    finally:
        c.close()


def _refused(answer: tuple[int, Any], kind: str = "InvalidInputError") -> str:
    status, body = answer
    assert status == 400, body
    assert body["error"]["type"] == kind, body
    return str(body["error"]["message"]) + json.dumps(body["error"].get("errors", []))


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/states", '{"id": "a", "text": "x%s"}'),
        ("/v1/states", '{"id": "a%s", "text": "x"}'),
        ("/v1/states", '{"id": "a", "atoms": ["p(%s)"]}'),
        ("/v1/states", '{"id": "a", "metadata": {"deep": [{"k%s": 1}]}}'),
        ("/v1/states", '{"id": "b", "kind": "belief", "because": ["a%s"]}'),
        ("/v1/revise", '{"assert": [{"id": "a", "text": "%s"}]}'),
        ("/v1/revise", '{"retract": ["%s"]}'),
        ("/v1/revise", '{"supersede": {"id": "m", "with": {"id": "n", "text": "%s"}}}'),
        ("/v1/review/confirm", '{"id": "m", "by": "x%s"}'),
        ("/v1/review/reject", '{"id": "m", "by": "x", "note": "%s"}'),
    ],
)
def test_a_lone_surrogate_anywhere_is_400_and_writes_nothing(
    conn: Connection, path: str, body: str
) -> None:
    message = _refused(conn.request("POST", path, (body % SURROGATE).encode()))
    assert "surrogate" in message or "unicode string" in message  # ours, or pydantic's
    status, head = conn.request("GET", "/v1/head")  # the same connection, still open
    assert (status, head["seq"]) == (200, 0)
    assert conn.request("GET", "/v1/states")[1] == []


@pytest.mark.parametrize("since", ["1" * 20, "9" * 5000, str(1 << 63)])
def test_a_since_past_any_sequence_number_is_400(conn: Connection, since: str) -> None:
    assert conn.request("POST", "/v1/states", b'{"id": "a"}')[0] == 201
    message = _refused(conn.request("GET", f"/v1/history?since={since}"))
    assert "sequence number" in message
    status, entries = conn.request("GET", f"/v1/history?since={(1 << 63) - 1}")
    assert (status, entries) == (200, [])
    assert [e["seq"] for e in conn.request("GET", "/v1/history?since=0")[1]] == [1]


def _broken(store: SQLiteStore) -> Any:
    store.close()
    raise RuntimeError("a bug the server did not foresee")


def test_an_internal_error_is_500_and_the_connection_stays_open(setup: Setup) -> None:
    """A server fault (here a memory factory that fails, standing for any bug) is answered
    with the JSON 500, its detail kept in the log, and the next request on the same
    connection is served."""
    tenants = SQLiteTenants(setup.folder, busy_timeout=0.2, memory_factory=_broken)
    try:
        from stategraph.service.auth import Tokens
        from stategraph.service.http import create_app

        app = create_app(tenants, Tokens.from_file(setup.tokens_file))
        with LiveServer(app) as server:
            c = Connection(server.url, setup.token["alice"])
            try:
                for _ in range(3):
                    status, body = c.request("GET", "/v1/states")
                    assert status == 500
                    assert body["error"]["type"] == "InternalError"
                    assert "a bug" not in json.dumps(body)
            finally:
                c.close()
    finally:
        tenants.close()
