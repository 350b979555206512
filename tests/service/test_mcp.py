"""The MCP server, tested with the official SDK's own client.

Over stdio: a ``ClientSession`` starts ``stategraph mcp`` as a subprocess, lists the tools,
remembers the seed scenario (m1..m4 of :mod:`stategraph.demo`), supersedes m1 and gets m2 and
m3 invalidated (issue 16's acceptance). Over streamable HTTP: each bearer token acts as its
tenant, and a call without one is refused.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from stategraph.cli.demo import SCENARIO
from stategraph.service.auth import add_token

from .conftest import Setup

Session = Callable[[ClientSession], Awaitable[None]]


def over_stdio(store: str, tenant: str, check: Session) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "stategraph", "mcp", "--store", store, "--tenant", tenant],
        env=dict(os.environ),  # this Python path: the code under test, not an installed copy
    )

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await check(session)

    anyio.run(main)


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def remember_the_seed(session: ClientSession) -> None:
    t = SCENARIO["en"]
    await call(session, "remember", id="m1", text=t["m1"])
    await call(session, "remember", id="m2", text=t["m2"], kind="belief", because=["m1"])
    # the shape of earlier releases, [["m1"]], means the same: one alternative, m1
    await call(session, "remember", id="m3", text=t["m3"], kind="action", because=[["m1"]])
    await call(session, "remember", id="m4", text=t["m4"])


def test_a_client_lists_the_tools_and_supersedes_m1(setup: Setup) -> None:
    """On each backend: SQLite files in a folder, or the PostgreSQL database."""
    store = f"sqlite:///{setup.folder}" if setup.backend == "sqlite" else setup.database
    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        listed = await session.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert set(tools) == {
            "remember",
            "revise",
            "explain",
            "needs_review",
            "recall",
            "confirm",
            "reject",
        }
        remember = tools["remember"]
        assert remember.description and "basis" in remember.description
        props = remember.input_schema["properties"]
        assert {"id", "text", "kind", "because", "unless", "context", "status"} <= set(props)
        assert "derived from" in props["because"]["description"]
        assert remember.input_schema["required"] == ["id", "text"]
        assert tools["revise"].output_schema is not None
        await remember_the_seed(session)
        new = {"id": "m1b", "kind": "fact", "text": SCENARIO["en"]["m1b"]}
        seen["outcome"] = await call(session, "revise", supersede=[{"id": "m1", "with": new}])
        seen["m2"] = await call(session, "explain", id="m2")
        seen["m4"] = await call(session, "explain", id="m4")

    over_stdio(store, "agent-1", check)
    outcome = seen["outcome"]
    assert outcome["changed"] == ["m1", "m1b"]
    assert outcome["invalidated"] == ["m2", "m3"]
    assert outcome["consequences"] == {"m3": "cancel"}
    assert outcome["kept"] == [] and outcome["needs_confirmation"] == []
    assert seen["m2"]["holds"] is False and "m1 does not hold" in seen["m2"]["text"]
    assert seen["m4"]["holds"] is True and seen["m4"]["proof"]["root"] == "m4"
    assert "agent-1" in setup.tenants.tenants()


def test_errors_come_back_as_tool_errors_naming_the_type(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        await remember_the_seed(session)
        seen["unknown"] = await session.call_tool("explain", {"id": "nope"})
        seen["twice"] = await session.call_tool("remember", {"id": "m1", "text": "again"})
        seen["premise"] = await session.call_tool(
            "remember", {"id": "b", "text": "x", "kind": "belief", "because": [["gone"]]}
        )

    over_stdio(f"sqlite:///{tmp_path}", "t", check)
    for name, fragment in [
        ("unknown", "UnknownStateError: unknown state id 'nope'"),
        ("twice", "DuplicateStateError: invalid change (assert)"),
        ("premise", "UnknownStateError"),
    ]:
        result = seen[name]
        assert result.is_error, name
        assert fragment in result.content[0].text, (name, result.content[0].text)


def test_needs_review_lists_what_a_person_must_settle(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        await call(session, "remember", id="f1", text="The user flies to Tokyo on May 10")
        await call(session, "remember", id="p1", text="Book a dinner", kind="plan", context=["f1"])
        seen["revised"] = await call(session, "revise", retract=["f1"])
        seen["pending"] = await call(session, "needs_review")

    over_stdio(f"sqlite:///{tmp_path}", "t", check)
    assert seen["revised"]["needs_confirmation"] == ["p1"]
    pending = seen["pending"]["result"]
    assert [(p["id"], p["cause"]) for p in pending] == [("p1", "unverified_candidate")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def mcp_http(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    tokens = tmp_path / "tokens.json"
    token = {t: add_token(tokens, t) for t in ("alice", "bob")}
    port = _free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "stategraph", "mcp", "--http", "--port", str(port)),
            *("--store", f"sqlite:///{tmp_path}/data", "--tokens", str(tokens)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        server.terminate()
        server.wait(timeout=20)


def over_http(url: str, token: str | None, check: Session) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else None

    async def main() -> None:
        async with (
            create_mcp_http_client(headers=headers) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await check(session)

    anyio.run(main)


def test_over_streamable_http_each_token_is_its_tenant(
    mcp_http: tuple[str, dict[str, str]],
) -> None:
    url, token = mcp_http
    seen: dict[str, Any] = {}

    async def as_alice(session: ClientSession) -> None:
        await remember_the_seed(session)
        seen["alice"] = await call(session, "explain", id="m1")

    async def as_bob(session: ClientSession) -> None:
        seen["bob"] = await session.call_tool("explain", {"id": "m1"})

    over_http(url, token["alice"], as_alice)
    over_http(url, token["bob"], as_bob)
    assert seen["alice"]["holds"] is True
    assert seen["bob"].is_error and "UnknownStateError" in seen["bob"].content[0].text
    refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused.status_code == 401
