"""recall, confirm and reject over the real MCP stdio server, with the official SDK's client:
the loop "ask the user the next time it is used", end to end."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession

from stategraph.cli.demo import SCENARIO

from .conftest import Setup
from .test_mcp import call, over_stdio


async def recall(session: ClientSession, query: str, **more: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = (await call(session, "recall", query=query, **more))["result"]
    return found


def test_recall_ask_first_and_the_user_s_answer_over_stdio(setup: Setup) -> None:
    store = f"sqlite:///{setup.folder}" if setup.backend == "sqlite" else setup.database
    t = SCENARIO["zh"]

    async def check(session: ClientSession) -> None:
        await call(session, "remember", id="m1", text=t["m1"])
        await call(session, "remember", id="m3", text=t["m3"], kind="action", because=["m1"])
        await call(session, "remember", id="m4", text=t["m4"])
        await call(
            session, "remember", id="p1", text="周末去深圳吃早茶", kind="plan", context=["m1"]
        )
        new = {"id": "m1b", "kind": "fact", "text": t["m1b"]}
        done = await call(session, "revise", supersede=[{"id": "m1", "with": new}])
        assert "m3" in done["invalidated"] and "p1" in done["needs_confirmation"]
        assert await recall(session, "宽带") == []
        (gone,) = await recall(session, "宽带", include_invalidated=True)
        assert (gone["id"], gone["status"]) == ("m3", "invalidated") and gone["why_not"]
        assert [(r["id"], r["status"]) for r in await recall(session, "粤菜")] == [("m4", "holds")]
        (doubt,) = await recall(session, "早茶")
        assert doubt["status"] == "needs_confirmation"
        assert await recall(session, "早茶", include_doubtful=False) == []
        assert await recall(session, "早茶", kinds=["fact"]) == []
        assert doubt["ask_first"].startswith("之前：“用户计划 2026-12 从上海搬到深圳”。此后：")
        assert "改为“用户最终决定留在上海" in doubt["ask_first"]
        settled = await call(session, "reject", id="p1", by="the user", note="不去了")
        assert settled["changed"] == ["p1"]
        assert await recall(session, "早茶") == []
        result = await session.call_tool("confirm", {"id": "p1", "by": "the user"})
        assert result.is_error and "NotPendingError" in str(result.content)
        result = await session.call_tool("recall", {"query": " "})
        assert result.is_error and "InvalidInputError" in str(result.content)

    over_stdio(store, "alice", check)
