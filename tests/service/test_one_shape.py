"""One input shape on every surface: the same memories and the same change, fed through
Python, files on the command line, the HTTP API and the MCP server, make equal stores.

A memory is ``{id, kind, text, status, because, unless, context}`` with ``because`` as
alternatives (an id, a list of ids that must all hold, or ``{all, unless}``): ``Memory.add``,
an ``import --memories`` line, ``POST /v1/states`` and MCP's ``remember`` take it. A change is
``{retract, assert, supersede: [{id, with}], add_justifications, remove_justifications}``:
``Memory.revise``, a change file, ``POST /v1/revise`` and MCP's ``revise`` take it. The stores
are compared by their states, truth values and justifications. MCP's shapes of earlier
releases (``because: [["m1"]]``, a supersede's ``new``, ``add``) are still accepted, and make
the same store.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import yaml
from mcp import ClientSession, StdioServerParameters, stdio_client

from stategraph import Memory
from stategraph.cli.main import main
from stategraph.service.auth import Tokens, add_token
from stategraph.service.http import create_app
from stategraph.service.tenants import SQLiteTenants

from .conftest import LiveServer

MEMORIES: list[dict[str, Any]] = [
    {"id": "m1", "text": "The user plans to move from Shanghai to Shenzhen in December"},
    {"id": "m2", "kind": "belief", "text": "Commute time is for Shenzhen", "because": ["m1"]},
    {
        "id": "m3",
        "kind": "action",
        "text": "Cancel the home broadband before the move",
        "because": ["m1"],
        "status": "pending",
    },
    {"id": "m4", "text": "The user prefers Cantonese food"},
    {
        "id": "m5",
        "kind": "plan",
        "text": "Recommend Cantonese restaurants near the new home",
        "because": [["m4", "m2"], {"all": ["m4"], "unless": ["m7"]}],
    },
]
CHANGE: dict[str, Any] = {
    "retract": ["m4"],
    "assert": [{"id": "m6", "text": "The user likes dim sum"}],
    "supersede": [{"id": "m1", "with": {"id": "m1b", "text": "The user stays in Shanghai"}}],
    "add_justifications": [{"head": "m5", "premises": ["m6"]}],
}


def snapshot(path: Path) -> dict[str, Any]:
    """What a store holds: each state's fields and truth value, and every justification."""
    with Memory(str(path)) as mem:
        states = {
            s.id: (s.kind, s.text, s.status, s.atoms, mem.is_active(s.id), mem.truth(s.id).value)
            for s in mem.states()
        }
        justs = sorted(
            (j.head, j.premises, j.unless, j.origin.value, tuple(sorted(j.checked.items())))
            for j in mem.justifications()
        )
        return {"states": states, "justifications": justs}


def through_python(folder: Path) -> Path:
    path = folder / "python.db"
    with Memory(str(path)) as mem:
        for m in MEMORIES:
            basis = {k: m[k] for k in ("because", "unless", "context") if k in m}
            state = {k: v for k, v in m.items() if k not in basis}
            mem.add(state, **basis)
        mem.revise(CHANGE)
    return path


def through_files(folder: Path) -> Path:
    path = folder / "cli.db"
    lines = folder / "memories.jsonl"
    lines.write_text("".join(json.dumps(m) + "\n" for m in MEMORIES), encoding="utf-8")
    change = folder / "change.yaml"
    change.write_text(yaml.safe_dump(CHANGE), encoding="utf-8")
    assert main(["import", str(path), str(lines), "--memories", "--one-process"]) == 0
    assert main(["revise", str(path), "--change", str(change)]) == 0
    return path


def through_http(folder: Path) -> Path:
    tokens = folder / "tokens.json"
    token = add_token(tokens, "web")
    tenants = SQLiteTenants(folder / "http")
    app = create_app(tenants, Tokens.from_file(tokens))
    with (
        LiveServer(app) as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as c,
    ):
        for m in MEMORIES:
            assert c.post("/v1/states", json=m).status_code == 201
        r = c.post("/v1/revise", json=CHANGE)
        assert r.status_code == 200, r.text
    return folder / "http" / "web.db"


def _old_mcp_shapes(memory: dict[str, Any]) -> dict[str, Any]:
    """A memory as MCP's ``remember`` took it before: every alternative a list."""
    because = memory.get("because")
    if because is None:
        return memory
    nested = [[alt] if isinstance(alt, str) else alt for alt in because]
    return {**memory, "because": nested}


def through_mcp(folder: Path, old_shapes: bool = False) -> Path:
    data = folder / ("mcp-old" if old_shapes else "mcp")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "stategraph", "mcp", "--store", f"sqlite:///{data}", "--tenant", "agent"],
        env=dict(os.environ),
    )

    async def check(session: ClientSession) -> None:
        for m in MEMORIES:
            result = await session.call_tool("remember", _old_mcp_shapes(m) if old_shapes else m)
            assert not result.is_error, result.content
        change: dict[str, Any] = CHANGE
        if old_shapes:  # a supersede's "new", and "add" for "assert"
            change = {k: v for k, v in CHANGE.items() if k not in ("assert", "supersede")}
            change["add"] = CHANGE["assert"]
            change["supersede"] = [{"id": s["id"], "new": s["with"]} for s in CHANGE["supersede"]]
        result = await session.call_tool("revise", change)
        assert not result.is_error, result.content

    async def run() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await check(session)

    anyio.run(run)
    return data / "agent.db"


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("shapes")
    return {
        "python": snapshot(through_python(folder)),
        "files": snapshot(through_files(folder)),
        "http": snapshot(through_http(folder)),
        "mcp": snapshot(through_mcp(folder)),
        "mcp, shapes of earlier releases": snapshot(through_mcp(folder, old_shapes=True)),
    }


def test_the_change_does_what_it_says(stores: dict[str, dict[str, Any]]) -> None:
    truth = {sid: row[-1] for sid, row in stores["python"]["states"].items()}
    assert truth == {
        "m1": "false",
        "m1b": "true",
        "m2": "false",
        "m3": "false",
        "m4": "false",
        "m5": "true",
        "m6": "true",
    }


@pytest.mark.parametrize("surface", ["files", "http", "mcp", "mcp, shapes of earlier releases"])
def test_every_surface_makes_the_same_store(
    stores: dict[str, dict[str, Any]], surface: str
) -> None:
    assert stores[surface] == stores["python"]


def test_history_json_speaks_the_file_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = through_files(tmp_path)
    capsys.readouterr()
    assert main(["history", str(path), "--json"]) == 0
    last = json.loads(capsys.readouterr().out)[-1]
    change = last["report"]["change"]
    assert change["supersede"][0]["with"]["id"] == "m1b"
    assert [s["id"] for s in change["assert"]] == ["m6"]
    assert "assert_" not in json.dumps(last) and '"with_"' not in json.dumps(last)
