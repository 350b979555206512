"""``serve`` and ``mcp`` configure each tenant's memory as the CLI's write commands do.

The same text memories (the seed scenario in English, written without ``because``) go to the
real ``stategraph serve`` over HTTP on loopback and to the real ``stategraph mcp`` over stdio,
each started with ``--rules relocation --grounder ...``: the rule pack links the commute belief
and the broadband to-do to the move, so superseding the move invalidates them (without the
settings they were never linked, and only ever reached ``needs_confirmation``). The settings
are kept in the tenant's store, where the CLI reads them back. With ``--judge``, the judge the
environment configures (a scripted chat server on loopback here) settles what logic cannot.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from judge.chat_server import ChatServer, Received, Reply, answer_json, completion
from mcp import ClientSession, StdioServerParameters, stdio_client

from stategraph.cli.demo import SCENARIO
from stategraph.errors import JudgeConfigError
from stategraph.judge.settle import JudgeBudget
from stategraph.service.auth import add_token
from stategraph.service.settings import MemorySettings
from stategraph.store.sqlite import SQLiteStore

from .conftest import Setup

T = SCENARIO["en"]
GROUNDER = "stategraph.rule_grounder.v1"
SETTINGS = ("--rules", "relocation,scheduling", "--grounder", GROUNDER)
PACKS = ["relocation", "scheduling"]  # the to-do is a scheduled one: both packs link it


def _env(**extra: str) -> dict[str, str]:
    """This process's environment (its PYTHONPATH included: the code under test) for the
    servers started as subprocesses; the MCP SDK would pass only a handful of variables."""
    return {**os.environ, **extra}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(store: str, tokens: Path, *options: str) -> Iterator[str]:
    """``stategraph serve`` in a process of its own; yields its URL once it answers."""
    port = _free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "stategraph", "serve", "--store", store),
            *("--tokens", str(tokens), "--port", str(port), "--no-access-log", *options),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=_env(),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url) as c:
            for _ in range(600):
                if server.poll() is not None:
                    pytest.fail(f"serve exited: {server.communicate()[1]}")
                try:
                    if c.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.05)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.communicate(timeout=30)


def _store_url(setup: Setup, tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/data" if setup.backend == "sqlite" else setup.database


def _kept_settings(setup: Setup, tmp_path: Path, tenant: str) -> tuple[Any, Any]:
    """The rule packs and grounder kept in the tenant's store, read as the CLI reads them."""
    if setup.backend == "sqlite":
        store = SQLiteStore(tmp_path / "data" / f"{tenant}.db")
    else:
        from stategraph.store.open import open_store

        store = open_store(f"{setup.database}?tenant={tenant}")
    try:
        return store.get_setting("rules"), store.get_setting("grounder")
    finally:
        store.close()


def test_serve_links_text_memories_with_the_rules_it_is_given(setup: Setup, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    token = add_token(tokens, "carol")
    with (
        serving(_store_url(setup, tmp_path), tokens, *SETTINGS) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as c,
    ):
        for sid, kind in (("m1", "fact"), ("m2", "belief"), ("m3", "action"), ("m4", "fact")):
            r = c.post("/v1/states", json={"id": sid, "kind": kind, "text": T[sid]})
            assert r.status_code == 201, r.text
        for sid in ("m2", "m3"):  # linked: each holds through the move
            proof = c.get(f"/v1/why/{sid}")
            assert proof.status_code == 200, proof.text
            assert '"m1"' in proof.text
        change = {"supersede": {"id": "m1", "with": {"id": "m1b", "text": T["m1b"]}}}
        report = c.post("/v1/revise", json=change).json()
        verdicts = {e["id"]: e["verdict"] for e in report["entries"]}
        assert verdicts == {"m2": "invalidated", "m3": "invalidated"}
        states = {s["state"]["id"]: s["truth"] for s in c.get("/v1/states").json()}
        assert states["m2"] == states["m3"] == "false" and states["m4"] == "true"
    assert _kept_settings(setup, tmp_path, "carol") == (PACKS, GROUNDER)


def _over_stdio(store: str, *options: str, env: dict[str, str] | None = None) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "stategraph", "mcp", "--store", store, "--tenant", "dave", *options],
        env=env or _env(),
    )
    return params


async def _call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def _run_mcp(params: StdioServerParameters, check: Any) -> None:
    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await check(session)

    anyio.run(main)


def test_mcp_links_text_memories_with_the_rules_it_is_given(setup: Setup, tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        for sid, kind in (("m1", "fact"), ("m2", "belief"), ("m3", "action"), ("m4", "fact")):
            await _call(session, "remember", id=sid, text=T[sid], kind=kind)
        seen["m2"] = await _call(session, "explain", id="m2")
        seen["m3"] = await _call(session, "explain", id="m3")
        new = {"id": "m1b", "text": T["m1b"]}
        seen["outcome"] = await _call(session, "revise", supersede=[{"id": "m1", "with": new}])

    _run_mcp(_over_stdio(_store_url(setup, tmp_path), *SETTINGS), check)
    for sid in ("m2", "m3"):
        assert seen[sid]["holds"] is True
        assert "m1" in json.dumps(seen[sid]["proof"])
    assert sorted(seen["outcome"]["invalidated"]) == ["m2", "m3"]
    assert seen["outcome"]["needs_confirmation"] == []
    assert seen["outcome"]["consequences"] == {"m3": "cancel"}
    assert _kept_settings(setup, tmp_path, "dave") == (PACKS, GROUNDER)


def test_mcp_asks_the_judge_the_environment_configures(tmp_path: Path) -> None:
    chat = ChatServer().start()
    asked: list[Received] = []

    def rested_on_it(request: Received) -> Reply:
        asked.append(request)
        return Reply(
            body=completion(answer_json(False, [], "it rested on the trip", request.heads))
        )

    chat.script(rested_on_it)
    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        await _call(session, "remember", id="f1", text="The user flies to Tokyo on May 10")
        await _call(
            session,
            "remember",
            id="p1",
            kind="plan",
            text="Book a sushi dinner in Tokyo on May 11",
            context=["f1"],
        )
        seen["outcome"] = await _call(session, "revise", retract=["f1"])

    env = _env(OPENAI_BASE_URL=chat.base_url, OPENAI_API_KEY="k", STATEGRAPH_JUDGE_MODEL="scripted")
    try:
        _run_mcp(_over_stdio(f"sqlite:///{tmp_path}/data", "--judge", env=env), check)
    finally:
        chat.stop()
    assert asked, "the judge was never asked"
    assert seen["outcome"]["invalidated"] == ["p1"]
    assert seen["outcome"]["needs_confirmation"] == []


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_bad_settings_are_one_line_errors_before_serving(tmp_path: Path, command: str) -> None:
    tokens = tmp_path / "tokens.json"
    add_token(tokens, "alice")
    base = [sys.executable, "-m", "stategraph", command, "--store", f"sqlite:///{tmp_path}/d"]
    base += ["--tokens", str(tokens), "--port", str(_free_port())]
    env = _env(OPENAI_BASE_URL="", OPENAI_API_KEY="", STATEGRAPH_JUDGE_MODEL="")
    cases = [
        (["--rules", "no_such_pack"], "no_such_pack"),
        (["--grounder", "no.such.grounder"], "no.such.grounder"),
        (["--judge"], "STATEGRAPH_JUDGE_MODEL"),
        (["--judge-seconds", "0"], "--judge-seconds"),
    ]
    for options, says in cases:
        done = subprocess.run(
            [*base, *options],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("stategraph: error:") and says in done.stderr
        assert "Traceback" not in done.stderr and "listening on" not in done.stderr


def test_the_judge_settings_of_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "STATEGRAPH_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    auto = MemorySettings.from_config({"judge": "auto"})  # no environment: sampling only
    assert (auto.judge, auto.sampling, auto.judge_budget) == (None, True, None)
    sampling = MemorySettings.from_config({"judge": "sampling", "judge_seconds": 5})
    assert sampling.sampling and sampling.judge_budget == JudgeBudget(seconds=5.0)
    off = MemorySettings.from_config({"judge": None})
    assert (off.judge, off.sampling) == (None, False)
    assert off.judge_now() is None and sampling.judge_now() is None  # no MCP call served
    with pytest.raises(JudgeConfigError):
        MemorySettings.from_config({"judge": "openai"})
    with pytest.raises(JudgeConfigError):
        MemorySettings.from_config({"judge": "oracle"})
