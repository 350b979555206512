"""A scripted agent (no LLM) that uses its memory through the MCP server, in Chinese: it
recalls before it acts, asks the user first about what is in doubt, and records the answer.

The agent starts the real ``stategraph mcp`` stdio server and talks to it with the official MCP
client: it remembers the seed scenario with bases (a move to Shenzhen, the commute, the
broadband to-do, a taste for Cantonese food), two plans written without a known basis (the
move was in context) and an action resting on one of them. The user says they will not move
after all (不搬了); the agent revises.
Asked what to do before the move, recall returns no broadband to-do; the two plans come back
in doubt, each with the question to ask first; the scripted user answers, and the agent
confirms one and rejects the other (and what rested on it goes), reporting what followed.

Run: ``python examples/recall_loop.py``
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from stategraph.cli.demo import SCENARIO

T = SCENARIO["zh"]
PLANS = {"p1": "周末和朋友在深圳喝早茶", "p2": "在深圳南山办一张健身卡"}
ANSWERS = {"p1": ("还去，朋友会来上海接我", True), "p2": ("不办了", False)}
"""What the scripted user says to each question, and whether that means it still holds."""


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    result = await session.call_tool(tool, arguments)
    if result.is_error:
        raise RuntimeError(str(result.content))
    content = result.structured_content or {}
    return content.get("result", content)


async def agent(session: ClientSession) -> None:
    await call(session, "remember", id="m1", text=T["m1"])
    await call(session, "remember", id="m2", text=T["m2"], kind="belief", because=["m1"])
    await call(session, "remember", id="m3", text=T["m3"], kind="action", because=["m1"])
    await call(session, "remember", id="m4", text=T["m4"])
    for pid, text in PLANS.items():
        await call(session, "remember", id=pid, text=text, kind="plan", context=["m1"])
    await call(session, "remember", id="a2", text="周一交年费", kind="action", because=["p2"])

    print("user: 不搬了，我留在上海。")
    new = {"id": "m1b", "kind": "fact", "text": T["m1b"]}
    done = await call(session, "revise", supersede=[{"id": "m1", "with": new}])
    print(f"revise: invalidated {done['invalidated']}, to confirm {done['needs_confirmation']}")

    holding = [r["id"] for r in await call(session, "recall", query="宽带")]
    print(f"recall 宽带 (holding): {holding}")
    for r in await call(session, "recall", query="宽带", include_invalidated=True):
        failed = [i["first_failed"] for i in r["why_not"]["items"]]
        print(f"recall 宽带 (with invalidated): {r['id']} {r['status']}, rested on {failed}")
    food = [(r["id"], r["status"]) for r in await call(session, "recall", query="粤菜")]
    print(f"recall 粤菜: {food}")

    settled: set[str] = set()
    for r in await call(session, "recall", query="深圳 早茶 健身卡"):
        if r["status"] not in ("needs_confirmation", "undefined") or r["id"] in settled:
            continue
        print(f"agent asks before relying on {r['id']}: {r['ask_first']}")
        said, holds = ANSWERS[r["id"]]
        print(f"user: {said}")
        tool = "confirm" if holds else "reject"
        report = await call(session, tool, id=r["id"], by="user", note=said)
        settled.update(report["invalidated"] + report["restored"])
        print(
            f"{tool} {r['id']}: changed {report['changed']}, restored {report['restored']}, "
            f"invalidated {report['invalidated']}"
        )
    after = sorted((r["id"], r["status"]) for r in await call(session, "recall", query="深圳"))
    print(f"recall 深圳 after the answers: {after}")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "stategraph", "mcp", "--store", f"sqlite:///{folder}", "--tenant", "me"],
            env=dict(os.environ),  # the same Python path as this agent's
        )

        async def run() -> None:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                await agent(s)

        anyio.run(run)


if __name__ == "__main__":
    main()
