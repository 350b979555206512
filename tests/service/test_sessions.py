"""A memory's session from each surface: the MCP session, the CLI's --session, a LangGraph
namespace or thread (issue 41, item 2)."""

from __future__ import annotations

from pathlib import Path

from mcp import ClientSession

from stategraph import Memory
from stategraph.cli.main import main as cli
from stategraph.integrations.langgraph import StategraphStore

from .conftest import Setup
from .test_mcp import call, over_stdio


def test_the_mcp_session_is_each_memory_s_session(setup: Setup) -> None:
    if setup.backend != "sqlite":
        return
    store = f"sqlite:///{setup.folder}"

    async def check(session: ClientSession) -> None:
        await call(session, "remember", id="f1", text="The user flies to Tokyo")
        await call(session, "remember", id="f0", text="The user packs for Tokyo")
        done = await session.call_tool(
            "remember", {"id": "f2", "text": "The user likes jazz", "session": "chat-7"}
        )
        assert not done.is_error, done.content

    over_stdio(store, "alice", check)
    with setup.tenants.memory("alice") as mem:
        first, second = mem.state("f1").session, mem.state("f2").session
        again = mem.state("f0").session
    assert first is not None and first.startswith("mcp:")
    assert again == first  # one connection, one session: the SDK's session is per request
    assert second == "chat-7"


def test_the_command_line_takes_a_session(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    said = ["add", path, "--id", "f1", "--text", "The user flies to Tokyo", "--session", "s1"]
    assert cli(said) == 0
    with Memory(path) as mem:
        assert mem.state("f1").session == "s1"


def test_a_langgraph_namespace_is_the_session_outside_a_graph(tmp_path: Path) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db"))
    store.put(("users", "u1"), "trip", {"text": "The user flies to Tokyo"})
    (sid,) = [s.id for s in store.memory.states()]
    assert store.memory.state(sid).session == "namespace:users/u1"
