"""The MCP server answers every request, says why it refuses one, and reads at most 1 MiB a
message (issue 22, item 12).

The real ``stategraph mcp`` process is driven over stdio with raw bytes (what a broken or
hostile client sends), and with the SDK's own ``ClientSession`` (what a real client waits
for); over streamable HTTP the body cap is the HTTP API's. Every read from the server is
bounded, so a server that does not answer fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from .test_mcp import call, mcp_http, over_http, over_stdio  # noqa: F401  (mcp_http: a fixture)

MIB = 1 << 20
WAIT = 60.0
"""Seconds to wait for an answer before calling it missing (a hang guard, not a timing)."""


class RawClient:
    """``stategraph mcp`` over stdio, spoken to in raw lines."""

    def __init__(self, store: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "stategraph", "mcp", "--store", store, "--tenant", "t"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout

    def send(self, line: bytes) -> None:
        self.stdin.write(line)
        self.stdin.flush()

    def answer(self) -> dict[str, Any]:
        ready, _, _ = select.select([self.stdout], [], [], WAIT)
        assert ready, "no answer"
        line = self.stdout.readline()
        assert line.endswith(b"\n"), line
        answer: dict[str, Any] = json.loads(line)
        return answer

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(message).encode() + b"\n")
        return self.answer()

    def close(self) -> None:
        self.stdin.close()
        self.proc.wait(timeout=WAIT)


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawClient]:
    client = RawClient(f"sqlite:///{tmp_path}/data")
    try:
        hello = client.call(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert hello["id"] == 0 and "result" in hello
        client.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        yield client
    finally:
        client.close()


def _tool(seq: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": seq,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


REFUSED = [
    # (what is sent, the error code, words of the reason, the id answered)
    (b'{"jsonrpc": "2.0", "id": 1, "method": ', -32700, "not JSON", 1),
    (b"\xff\xfe\x00\x01 junk", -32700, "not UTF-8", None),
    (b"\x00" * 100, -32700, "not JSON", None),
    (b'[{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]', -32600, "batch", None),
    (b"[" * 10_000 + b"]" * 10_000, -32700, "nested deeper than 64", None),
    (b'{"a": ' * 10_000 + b"1" + b"}" * 10_000, -32700, "nested deeper than 64", None),
    (b'"just a string"', -32600, "is an object", None),
    (b'{"jsonrpc": "2.0", "id": 3}', -32600, "not a valid JSON-RPC", 3),
    (b'{"jsonrpc": "2.0", "id": 4, "id": 5, "method": "ping"}', -32700, "duplicate key", None),
    (b'{"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"x": NaN}}', -32700, "NaN", 6),
    (
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "remember", '
        b'"arguments": {"id": "s", "text": "x\\udc00"}}}',
        -32600,
        "lone surrogate",
        7,
    ),
    (
        json.dumps(_tool(8, "remember", id="h", text="x" * (2 * MIB))).encode(),
        -32600,
        "larger than 1048576 bytes",
        8,
    ),
]


def test_every_malformed_line_gets_a_json_rpc_error_that_says_why(raw: RawClient) -> None:
    for line, code, words, id in REFUSED:
        raw.send(line + b"\n")
        answer = raw.answer()
        assert answer["jsonrpc"] == "2.0" and answer["id"] == id, (line[:60], answer)
        assert answer["error"]["code"] == code, (line[:60], answer)
        assert words in answer["error"]["message"], (line[:60], answer)
    # the server still serves, and nothing refused was stored
    listed = raw.call({"jsonrpc": "2.0", "id": 20, "method": "tools/list"})
    assert {t["name"] for t in listed["result"]["tools"]} >= {"remember", "explain"}
    for i, memory in enumerate(("s", "h")):
        shown = raw.call(_tool(21 + i, "explain", id=memory))
        assert shown["result"]["isError"] and "UnknownStateError" in json.dumps(shown)


def test_a_line_of_50_mb_is_refused_without_being_stored(raw: RawClient) -> None:
    big = json.dumps(_tool(9, "remember", id="big", text="x" * (50 * MIB))).encode()
    raw.send(big + b"\n")
    answer = raw.answer()
    assert answer["id"] == 9 and "larger than 1048576 bytes" in answer["error"]["message"]
    shown = raw.call(_tool(10, "explain", id="big"))
    assert "UnknownStateError" in json.dumps(shown)


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"id": "a\x00b", "text": "x"}, "control character U+0000"),
        ({"id": "a" * 1_000_000, "text": "x"}, "at most 512 characters"),
        ({"id": "b", "text": "x", "kind": "belief", "because": [["a\x00"]]}, "U+0000"),
        ({"id": "m", "text": "x", "context": ["\u202e"]}, "U+202E"),
    ],
)
def test_a_refused_argument_is_a_tool_error_naming_it(
    tmp_path: Path, arguments: dict[str, Any], words: str
) -> None:
    """With the SDK's own client: the answer names the argument and the reason, where it
    said only "Error executing tool remember"."""
    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        with anyio.fail_after(WAIT):
            seen["result"] = await session.call_tool("remember", arguments)

    over_stdio(f"sqlite:///{tmp_path}", "t", check)
    result = seen["result"]
    assert result.is_error
    text = result.content[0].text
    assert "InvalidInputError" in text and words in text, text


def test_a_client_session_gets_an_error_for_a_message_over_the_cap(tmp_path: Path) -> None:
    """The SDK's client waits for the answer to its call: it gets an error, not silence, and
    the session goes on."""
    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        with anyio.fail_after(WAIT):
            with pytest.raises(MCPError) as refused:
                await session.call_tool("remember", {"id": "big", "text": "x" * (2 * MIB)})
            seen["refused"] = str(refused.value)
            seen["after"] = await call(session, "remember", id="small", text="fits")

    over_stdio(f"sqlite:///{tmp_path}", "t", check)
    assert "larger than 1048576 bytes" in seen["refused"]
    assert seen["after"]["changed"] == ["small"]


def test_over_http_a_body_over_one_mib_is_refused(
    mcp_http: tuple[str, dict[str, str]],  # noqa: F811
) -> None:
    url, token = mcp_http
    headers = {
        "Authorization": f"Bearer {token['alice']}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    body = json.dumps(_tool(1, "remember", id="big", text="x" * (MIB + 100)))
    r = httpx.post(url, content=body, headers=headers, timeout=WAIT)
    assert r.status_code == 413, r.text
    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        seen["small"] = await call(session, "remember", id="small", text="x" * (MIB // 2))

    over_http(url, token["alice"], check)
    assert seen["small"]["changed"] == ["small"]
