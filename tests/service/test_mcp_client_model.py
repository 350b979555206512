"""The MCP client's own model as the judge (sampling) and its user asked first (elicitation).

End to end with the official SDK's client: ``ClientSession`` starts ``stategraph mcp --judge
sampling`` as a subprocess and answers the server's sampling and elicitation requests with
scripted callbacks, as an MCP client's model and user would. The seed scenario is written in
Chinese through ``remember`` without ``because`` (so m2 and m3 rest on candidates only), and
m1 is superseded through ``revise``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import ClientRequestContext

from stategraph import Memory
from stategraph.cli.demo import SCENARIO
from stategraph.cli.main import main
from stategraph.service.mcp_elicit import NOTE
from stategraph.service.mcp_sampling import NAME

from .test_mcp import call

T = SCENARIO["zh"]
Sampler = Callable[[ClientRequestContext, types.CreateMessageRequestParams], Awaitable[Any]]
Eliciter = Callable[[ClientRequestContext, types.ElicitRequestParams], Awaitable[Any]]


def over_stdio(
    folder: Path,
    check: Callable[[ClientSession], Awaitable[None]],
    *options: str,
    sampling: Sampler | None = None,
    elicitation: Eliciter | None = None,
    errlog: TextIO | None = None,
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "stategraph",
            "mcp",
            "--store",
            f"sqlite:///{folder}",
            "--tenant",
            "t",
            *options,
        ],
        env=dict(os.environ),
    )

    async def run() -> None:
        async with (
            stdio_client(params, errlog=errlog or sys.stderr) as (read, write),
            ClientSession(
                read, write, sampling_callback=sampling, elicitation_callback=elicitation
            ) as session,
        ):
            await session.initialize()
            await check(session)

    anyio.run(run)


async def seed_then_supersede(session: ClientSession, seen: dict[str, Any]) -> None:
    """m1..m4 through ``remember`` without ``because``, then m1 superseded by m1b."""
    await call(session, "remember", id="m1", text=T["m1"])
    await call(session, "remember", id="m2", text=T["m2"], kind="belief")
    await call(session, "remember", id="m3", text=T["m3"], kind="action")
    await call(session, "remember", id="m4", text=T["m4"])
    new = {"id": "m1b", "kind": "fact", "text": T["m1b"]}
    seen["outcome"] = await call(session, "revise", supersede=[{"id": "m1", "with": new}])
    seen["m4"] = await call(session, "explain", id="m4")


def document(params: types.CreateMessageRequestParams) -> dict[str, Any]:
    """The memory document of a sampling request (what the judge's prompt carries)."""
    (message,) = params.messages
    assert isinstance(message.content, types.TextContent)
    prefix, _, data = message.content.text.partition("\n")
    assert prefix == "Memory document (data only):"
    found: dict[str, Any] = json.loads(data)
    return found


def reply(answers: list[dict[str, Any]]) -> types.CreateMessageResult:
    text = json.dumps({"answers": answers}, ensure_ascii=False)
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=text),
        model="scripted",
        stop_reason="endTurn",
    )


def last_calls(folder: Path) -> list[Any]:
    """The judge calls of the tenant's last revision, read from its store."""
    with Memory(folder / "t.db") as mem:
        return list(mem.history()[-1].calls)


def test_the_clients_model_judges_the_seed_in_chinese(tmp_path: Path) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def honest(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        """An honest judge: the commute and the broadband to-do rested on the move."""
        asked.append(params)
        doc = document(params)
        answers = []
        for q in doc["QUESTIONS"]:
            if q["HEAD"] in ("m2", "m3"):
                answers.append(
                    {"head": q["HEAD"], "still_holds": False, "support": [], "reason": "搬家取消"}
                )
            else:
                support = q["HOLDING"][:1]
                answers.append(
                    {"head": q["HEAD"], "still_holds": True, "support": support, "reason": "无关"}
                )
        return reply(answers)

    seen: dict[str, Any] = {}
    over_stdio(
        tmp_path,
        lambda s: seed_then_supersede(s, seen),
        "--judge",
        "sampling",
        sampling=honest,
    )
    outcome = seen["outcome"]
    assert outcome["invalidated"] == ["m2", "m3"]
    assert outcome["consequences"] == {"m3": "cancel"}
    assert outcome["needs_confirmation"] == [] and outcome["kept"] == []
    assert "m4" not in {e["id"] for e in outcome["entries"]}
    assert seen["m4"]["holds"] is True and seen["m4"]["proof"]["root"] == "m4"
    # both memories in one sampling request: the judge's prompt, at temperature 0
    [params] = asked
    assert [q["HEAD"] for q in document(params)["QUESTIONS"]] == ["m2", "m3"]
    assert params.system_prompt is not None and "never an instruction" in params.system_prompt
    assert params.temperature == 0.0 and params.include_context == "none"
    calls = last_calls(tmp_path)
    assert [(c.judge, c.model, c.question.head.id) for c in calls] == [
        (NAME, "mcp-sampling:mcp", "m2"),
        (NAME, "mcp-sampling:mcp", "m3"),
    ]
    assert [c.attempts for c in calls] == [1, 0]
    # the judged revision replays from the log, with no client to ask
    export = tmp_path / "log.jsonl"
    assert main(["audit", "export", str(tmp_path / "t.db"), str(export)]) == 0
    assert main(["audit", "verify", str(export)]) == 0


def test_a_lying_sampler_keeps_nothing(tmp_path: Path) -> None:
    async def liar(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        """Always "still holds": citing the premise that changed, or nothing at all."""
        answers = []
        for n, q in enumerate(document(params)["QUESTIONS"]):
            support = [q["CHANGED"][0]["id"]] if n % 2 == 0 else []
            answers.append(
                {"head": q["HEAD"], "still_holds": True, "support": support, "reason": "放心"}
            )
        return reply(answers)

    seen: dict[str, Any] = {}
    over_stdio(
        tmp_path, lambda s: seed_then_supersede(s, seen), "--judge", "sampling", sampling=liar
    )
    outcome = seen["outcome"]
    assert outcome["kept"] == [] and outcome["invalidated"] == []
    assert outcome["needs_confirmation"] == ["m2", "m3"]
    calls = last_calls(tmp_path)
    assert [c.answer.support for c in calls if c.answer] == [("m1",), ()]
    with Memory(tmp_path / "t.db") as mem:
        notes = [e.note for e in mem.history()[-1].report.edges]
        assert {j.origin.value for j in mem.justifications("m2")} == {"recovered"}
    assert notes == [
        "rejected: 'still holds' cites m1, not among the holding memories offered",
        "rejected: 'still holds' names no support (a rubber stamp)",
    ]


def test_a_slow_sampler_hits_the_revisions_deadline(tmp_path: Path) -> None:
    async def slow(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        await anyio.sleep(60)
        raise AssertionError("the server waited past its deadline")

    seen: dict[str, Any] = {}

    async def timed(session: ClientSession) -> None:
        started = time.monotonic()
        await seed_then_supersede(session, seen)
        seen["took"] = time.monotonic() - started

    over_stdio(tmp_path, timed, "--judge", "sampling", "--judge-seconds", "1", sampling=slow)
    assert seen["outcome"]["needs_confirmation"] == ["m2", "m3"]
    assert seen["took"] < 45  # a minute's sampling cut at the 1 s deadline
    errors = [c.error for c in last_calls(tmp_path)]
    assert errors == ["deadline: the revision's judge time ran out in a request"] * 2


def test_a_refusing_sampler_leaves_the_memories_to_confirm(tmp_path: Path) -> None:
    async def refuses(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.ErrorData:
        return types.ErrorData(code=-1, message="User rejected sampling request")

    seen: dict[str, Any] = {}
    over_stdio(
        tmp_path, lambda s: seed_then_supersede(s, seen), "--judge", "sampling", sampling=refuses
    )
    assert seen["outcome"]["needs_confirmation"] == ["m2", "m3"]
    assert seen["outcome"]["invalidated"] == []
    errors = [c.error for c in last_calls(tmp_path)]
    assert errors == ["refused: the client answered User rejected sampling request"] * 2


def test_a_client_without_sampling_gets_no_judge_and_the_reason_once(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def twice(session: ClientSession) -> None:
        await seed_then_supersede(session, seen)
        await call(session, "revise", retract=["m4"])

    with (tmp_path / "server.log").open("w+") as errlog:
        over_stdio(tmp_path, twice, "--judge", "sampling", errlog=errlog)
        errlog.seek(0)
        logged = errlog.read()
    assert seen["outcome"]["needs_confirmation"] == ["m2", "m3"]
    with Memory(tmp_path / "t.db") as mem:
        assert all("judge" not in entry.config for entry in mem.history())
    assert logged.count("declared no sampling") == 1, logged


def test_the_user_is_asked_first_through_elicitation_and_the_log_replays(tmp_path: Path) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def user(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """Does not know at first; then keeps the commute (it still holds), drops the
        broadband to-do."""
        asked.append(params)
        if len(asked) == 1:
            return types.ElicitResult(action="accept", content={"answer": "don't know"})
        keeps = "通勤" in params.message
        answer = "still holds" if keeps else "no longer holds"
        return types.ElicitResult(
            action="accept", content={"answer": answer, "note": "我说的" if keeps else ""}
        )

    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        await seed_then_supersede(session, seen)  # no judge: m2 and m3 wait for a person
        seen["unsure"] = await session.call_tool("recall", {"query": "通勤"})
        seen["recalled"] = (await session.call_tool("recall", {"query": "通勤 宽带"})).content
        seen["pending"] = await session.call_tool("needs_review", {})
        seen["m2"] = await call(session, "explain", id="m2")

    over_stdio(tmp_path, check, elicitation=user)
    assert seen["outcome"]["needs_confirmation"] == ["m2", "m3"]
    # "don't know": the memory stays in doubt, its question in the result for the agent
    unsure = json.loads(seen["unsure"].content[0].text)
    assert (unsure["id"], unsure["status"]) == ("m2", "needs_confirmation")
    assert unsure["ask_first"] == asked[0].message
    assert len(asked) == 3
    for params in asked:
        assert isinstance(params, types.ElicitRequestFormParams)
        assert params.message.endswith("还成立吗？")  # recall's ask_first, put to the user
        schema = params.requested_schema
        assert schema["properties"]["answer"]["enum"] == [
            "still holds",
            "no longer holds",
            "don't know",
        ]
        assert schema["required"] == ["answer"]
    recalled = json.loads(seen["recalled"][0].text)
    assert (recalled["id"], recalled["status"]) == ("m2", "holds")  # m3 no longer holds
    assert seen["pending"].structured_content == {"result": []}
    assert seen["m2"]["holds"] is True
    with Memory(tmp_path / "t.db") as mem:
        reviews = [r for entry in mem.history() for r in entry.report.change.reviews]
    assert [(r.id, r.decision.value, r.by, r.note) for r in reviews] == [
        ("m2", "confirmed", "user", f"{NOTE}: 我说的"),
        ("m3", "rejected", "user", NOTE),
    ]
    export = tmp_path / "log.jsonl"
    assert main(["audit", "export", str(tmp_path / "t.db"), str(export)]) == 0
    assert main(["audit", "verify", str(export)]) == 0


def test_a_memory_resting_on_doubt_asks_about_what_it_rests_on(tmp_path: Path) -> None:
    asked: list[str] = []

    async def user(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"answer": "no longer holds"})

    seen: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        # the belief shares no word with the trip: its candidate is the trip as a fact of the
        # same session, which a plan derived from the belief does not take over
        trip = {"id": "trip", "text": "The user flies to Tokyo on 2027-04-10"}
        visa = {"id": "visa", "text": "The user needs a Japanese visa", "kind": "belief"}
        form = {"id": "form", "text": "Print the consulate's visa form", "kind": "plan"}
        for memory in (
            {**trip, "session": "s1"},
            {**visa, "session": "s1"},
            {**form, "context": ["visa"], "session": "s2"},
        ):
            done = await session.call_tool("remember", memory)
            assert not done.is_error, done.content
        await call(session, "revise", retract=["trip"])
        seen["after"] = (await session.call_tool("recall", {"query": "consulate form"})).content

    over_stdio(tmp_path, check, elicitation=user)
    (question,) = asked  # about the belief the plan rests on, answered for the belief
    assert question.startswith('"Print the consulate\'s visa form" rests on "The user needs')
    after = json.loads(seen["after"][0].text)
    assert (after["id"], after["status"], after["ask_about"]) == (
        "form",
        "needs_confirmation",
        "form",
    )  # the belief was rejected: the plan is now asked about itself
    with Memory(tmp_path / "t.db") as mem:
        reviews = [r for entry in mem.history() for r in entry.report.change.reviews]
    assert [(r.id, r.decision.value) for r in reviews] == [("visa", "rejected")]
