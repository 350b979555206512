"""One input shape on every surface: each documented shape of a memory and of a change, sent
through Python, files on the command line, the HTTP API, the MCP server and (for what it
writes: memories, retractions) the LangGraph store, makes equal stores and equal answers; and
each input that does not validate is refused by each with the same one-line message.

A memory is ``{id, kind, text, status, because, unless, context}``, ``because`` one
alternative or a list of them (an id, a list of ids that must all hold, or ``{all, unless}``,
each an id or a list), ``unless`` and ``context`` an id or a list: ``Memory.add``, an
``import --memories`` line, ``POST /v1/states``, MCP's ``remember`` and a LangGraph ``put``
take it. A change is ``{retract, assert, supersede, add_justifications,
remove_justifications}``, each one entry or a list: ``Memory.revise``, a change file, ``POST
/v1/revise`` and MCP's ``revise`` take it (``docs/reference/shapes.md``). The stores are
compared by their states, truth values and justifications, and each change's answer by its
summary lists (invalidated, kept, restored, needs_confirmation, consequences). MCP's shapes of
earlier releases (``because: [["m1"]]``, a supersede's ``new``, ``add``) are still accepted,
and make the same store.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import yaml
from mcp import ClientSession, StdioServerParameters, stdio_client

from stategraph import Memory
from stategraph.cli.main import main
from stategraph.errors import InvalidInputError
from stategraph.model import Report
from stategraph.service.auth import Tokens, add_token
from stategraph.service.http import create_app
from stategraph.service.tenants import SQLiteTenants

from .conftest import LiveServer

MEMORIES: list[dict[str, Any]] = [
    {"id": "m1", "text": "The user plans to move from Shanghai to Shenzhen in December"},
    {"id": "m4", "text": "The user prefers Cantonese food"},
    {"id": "f3", "text": "The user has a gym card"},
    # because: one id, without the list
    {"id": "m2", "kind": "belief", "text": "Commute time is for Shenzhen", "because": "m1"},
    # because: alternatives, each an id ("m1, or else m4")
    {
        "id": "m3",
        "kind": "action",
        "text": "Cancel the home broadband before the move",
        "because": ["m1"],
        "status": "pending",
    },
    # because: a list of ids that must all hold, and {all, unless} with lists
    {
        "id": "m5",
        "kind": "plan",
        "text": "Recommend Cantonese restaurants near the new home",
        "because": [["m4", "m2"], {"all": ["m4"], "unless": ["m7"]}],
    },
    # because: one {all, unless} without the list, each an id without the list
    {
        "id": "b1",
        "kind": "belief",
        "text": "Eats out often",
        "because": {"all": "m4", "unless": "m7"},
    },
    # alternatives of plain ids; unless as one id
    {"id": "b2", "kind": "belief", "text": "Trains often", "because": ["f3", "m1"], "unless": "m8"},
    # context: one id, and a list
    {"id": "p1", "kind": "plan", "text": "Find a gym in Shenzhen", "context": "m1"},
    {"id": "p2", "kind": "plan", "text": "Dim sum on Sunday", "context": ["m4", "f3"]},
    # an action already done
    {
        "id": "a1",
        "kind": "action",
        "text": "Booked the movers",
        "because": "m1",
        "status": "executed",
    },
]

CHANGES: list[dict[str, Any]] = [
    {"retract": "f3"},  # one id, without the list
    {"assert": {"id": "m6", "text": "The user likes dim sum"}},  # one state, without the list
    {"add_justifications": {"head": "m5", "premises": "m6"}},  # one, premises as one id
    {"remove_justifications": {"head": "b1", "premises": ["m4"], "unless": "m7"}},
    {"supersede": {"id": "m1", "with": {"id": "m1b", "text": "The user stays in Shanghai"}}},
    {  # every field as a list
        "retract": ["m4"],
        "assert": [{"id": "m9", "text": "The user cooks at home"}],
        "supersede": [{"id": "m6", "with": {"id": "m6b", "text": "The user likes dumplings"}}],
        "add_justifications": [{"head": "p2", "premises": ["m9"]}],
    },
]

SUMMARY = ("invalidated", "kept", "restored", "needs_confirmation", "consequences")


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


def summary(report: Report | dict[str, Any]) -> dict[str, Any]:
    """A revision's answer as its summary lists."""
    if isinstance(report, Report):
        return {k: getattr(report, k) for k in SUMMARY}
    return {k: report[k] for k in SUMMARY}


Run = tuple[Path, list[dict[str, Any]]]


def through_python(folder: Path) -> Run:
    path = folder / "python.db"
    with Memory(str(path)) as mem:
        for m in MEMORIES:
            basis = {k: m[k] for k in ("because", "unless", "context") if k in m}
            mem.add({k: v for k, v in m.items() if k not in basis}, **basis)
        answers = [summary(mem.revise(change)) for change in CHANGES]
    return path, answers


def through_files(folder: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    path = folder / "cli.db"
    lines = folder / "memories.jsonl"
    lines.write_text("".join(json.dumps(m) + "\n" for m in MEMORIES), encoding="utf-8")
    assert main(["import", str(path), str(lines), "--memories", "--one-process"]) == 0
    answers = []
    for i, change in enumerate(CHANGES):
        file = folder / f"change-{i}.yaml"
        file.write_text(yaml.safe_dump(change), encoding="utf-8")
        capsys.readouterr()
        assert main(["revise", str(path), "--change", str(file), "--json"]) == 0
        answers.append(summary(Report.model_validate_json(capsys.readouterr().out)))
    return path, answers


def through_http(folder: Path) -> Run:
    tokens = folder / "tokens.json"
    token = add_token(tokens, "web")
    app = create_app(SQLiteTenants(folder / "http"), Tokens.from_file(tokens))
    answers = []
    with (
        LiveServer(app) as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as c,
    ):
        for m in MEMORIES:
            r = c.post("/v1/states", json=m)
            assert r.status_code == 201, r.text
        for change in CHANGES:
            r = c.post("/v1/revise", json=change)
            assert r.status_code == 200, r.text
            answers.append(summary(r.json()))
    return folder / "http" / "web.db", answers


def _old_mcp_shapes(memory: dict[str, Any]) -> dict[str, Any]:
    """A memory as MCP's ``remember`` took it before: every alternative a list."""
    because = memory.get("because")
    if because is None or isinstance(because, (str, dict)):
        because = [because] if because is not None else None
    if because is None:
        return memory
    nested = [[alt] if isinstance(alt, str) else alt for alt in because]
    return {**memory, "because": nested}


def _old_mcp_change(change: dict[str, Any]) -> dict[str, Any]:
    """A change as MCP's ``revise`` took it before: ``add`` for ``assert``, a supersede's
    ``new`` for ``with``."""
    old = dict(change)
    if "assert" in old:
        asserted = old.pop("assert")
        old["add"] = asserted if isinstance(asserted, list) else [asserted]
    if "supersede" in old:
        entries = old["supersede"] if isinstance(old["supersede"], list) else [old["supersede"]]
        old["supersede"] = [{"id": s["id"], "new": s["with"]} for s in entries]
    return old


def mcp_session(folder: Path, check: Callable[[ClientSession], Any]) -> None:
    """``stategraph mcp`` over stdio, a tenant of ``folder``, driven by the SDK's client."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "stategraph", "mcp", "--store", f"sqlite:///{folder}", "--tenant", "agent"],
        env=dict(os.environ),
    )

    async def run() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await check(session)

    anyio.run(run)


def through_mcp(folder: Path, old_shapes: bool = False) -> Run:
    data = folder / ("mcp-old" if old_shapes else "mcp")
    answers: list[dict[str, Any]] = []

    async def check(session: ClientSession) -> None:
        for m in MEMORIES:
            result = await session.call_tool("remember", _old_mcp_shapes(m) if old_shapes else m)
            assert not result.is_error, result.content
        for change in CHANGES:
            result = await session.call_tool(
                "revise", _old_mcp_change(change) if old_shapes else change
            )
            assert not result.is_error, result.content
            assert result.structured_content is not None
            answers.append(summary(result.structured_content))

    mcp_session(data, check)
    return data / "agent.db", answers


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Any], Any]]:
    folder = tmp_path_factory.mktemp("shapes")
    made: dict[str, Run] = {
        "python": through_python(folder),
        "http": through_http(folder),
        "mcp": through_mcp(folder),
        "mcp, shapes of earlier releases": through_mcp(folder, old_shapes=True),
    }
    return {name: (snapshot(path), answers) for name, (path, answers) in made.items()}


def test_the_changes_do_what_they_say(runs: dict[str, tuple[dict[str, Any], Any]]) -> None:
    store, answers = runs["python"]
    truth = {sid: row[-1] for sid, row in store["states"].items()}
    assert truth == {
        **dict.fromkeys(["a1", "b1", "b2", "f3", "m1", "m2", "m3", "m4", "m5", "m6"], "false"),
        **dict.fromkeys(["m1b", "m6b", "m9", "p2"], "true"),
        "p1": "undefined",  # its candidate premises went (f3, then m1): a person decides
    }
    assert answers[0] == {  # f3 retracted: b2 holds through m1; the gym's candidates doubt
        "invalidated": [],
        "kept": ["b2"],
        "restored": [],
        "needs_confirmation": ["p1", "p2"],
        "consequences": {},
    }
    assert answers[4]["invalidated"] == ["b2", "m2", "m3"]  # m1 superseded
    assert answers[4]["consequences"] == {"a1": "review", "m3": "cancel"}
    assert answers[5]["restored"] == ["p2"]  # a new justification through m9


@pytest.mark.parametrize("surface", ["http", "mcp", "mcp, shapes of earlier releases"])
def test_every_surface_makes_the_same_store_and_answers(
    runs: dict[str, tuple[dict[str, Any], Any]], surface: str
) -> None:
    assert runs[surface][0] == runs["python"][0]
    assert runs[surface][1] == runs["python"][1]


def test_files_on_the_command_line_make_the_same_store_and_answers(
    runs: dict[str, tuple[dict[str, Any], Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, answers = through_files(tmp_path, capsys)
    assert snapshot(path) == runs["python"][0]
    assert answers == runs["python"][1]


def test_a_langgraph_put_takes_the_memory_shapes(
    runs: dict[str, tuple[dict[str, Any], Any]],
) -> None:
    """The LangGraph store writes memories and retracts them (its keys are the ids here):
    each memory's basis is the one Python makes, and a delete is a retraction. (A premise
    there is a key already put, ``unless`` included: m7 and m8 are written first.)"""
    pytest.importorskip("langgraph", reason="needs LangGraph: pip install 'stategraph[langgraph]'")
    from stategraph.integrations.ids import parse_id
    from stategraph.integrations.langgraph import StategraphStore

    ns = ("memories", "u1")
    python = Memory()
    with StategraphStore(Memory()) as store:
        blockers = [{"id": "m7", "text": "moved away"}, {"id": "m8", "text": "injured"}]
        for m in [*blockers, *MEMORIES]:
            value = {k: v for k, v in m.items() if k not in ("id", "status")}
            if "status" in m:
                value["action_status"] = m["status"]
            store.put(ns, m["id"], value)
            basis = {k: m[k] for k in ("because", "unless", "context") if k in m}
            python.add({k: v for k, v in m.items() if k not in basis}, **basis)
        store.delete(ns, "f3")
        python.retract("f3")

        def key(sid: str) -> str:
            parsed = parse_id(sid)
            return sid if parsed is None else parsed[1]

        made = sorted(
            (key(j.head), tuple(map(key, j.premises)), tuple(map(key, j.unless)), j.origin.value)
            for j in store.memory.justifications()
        )
        truths = {key(s.id): store.memory.truth(s.id).value for s in store.memory.states()}
    assert made == sorted(
        (j.head, j.premises, j.unless, j.origin.value) for j in python.justifications()
    )
    assert truths == {s.id: python.truth(s.id).value for s in python.states()}


# ---- refusals ----------------------------------------------------------------------------

BAD_MEMORIES: list[dict[str, Any]] = [
    {"id": "x1", "kind": "belief", "text": "", "because": 5},
    {"id": "x2", "kind": "belief", "text": "", "because": [{"any": ["m1"]}]},
    {"id": "x3", "kind": "belief", "text": "", "because": ["m1", 12]},
    {"id": "x4", "kind": "belief", "text": "", "because": "m1", "unless": [None]},
    {"id": "x5", "kind": "plan", "text": "", "context": 7},
    {"id": 12, "text": ""},
    {"id": "x6", "text": "", "becuase": "m1"},
]
BAD_CHANGES: list[dict[str, Any]] = [
    {"retract": 5},
    {"retract": ["m1", None]},
    {"supersede": {"id": "m1"}},
    {"supersede": "m1"},
    {"assert": "m9"},
    {"supersede": {"id": "m1", "with": {"text": "no id"}}},
    {"add_justifications": {"head": "m2", "premises": [3]}},
    {"bogus": 1},
]

Refusals = dict[str, list[str]]


def refused_by_python(folder: Path) -> Refusals:
    said: Refusals = {"memory": [], "change": []}
    with Memory(str(folder / "python-refusals.db")) as mem:
        mem.fact("m1", "a fact")
        mem.belief("m2", "a belief", because="m1")
        for m in BAD_MEMORIES:
            basis = {k: m[k] for k in ("because", "unless", "context") if k in m}
            with pytest.raises(InvalidInputError) as caught:
                mem.add({k: v for k, v in m.items() if k not in basis}, **basis)
            said["memory"].append(str(caught.value))
        for change in BAD_CHANGES:
            with pytest.raises(InvalidInputError) as caught:
                mem.revise(change)
            said["change"].append(str(caught.value))
    return said


def refused_by_http(folder: Path) -> Refusals:
    tokens = folder / "tokens.json"
    token = add_token(tokens, "web")
    app = create_app(SQLiteTenants(folder / "http"), Tokens.from_file(tokens))
    said: Refusals = {"memory": [], "change": []}
    with (
        LiveServer(app) as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as c,
    ):
        assert c.post("/v1/states", json={"id": "m1", "text": "a fact"}).status_code == 201
        m2 = {"id": "m2", "kind": "belief", "text": "a belief", "because": "m1"}
        assert c.post("/v1/states", json=m2).status_code == 201
        for route, what, bodies in [
            ("/v1/states", "memory", BAD_MEMORIES),
            ("/v1/revise", "change", BAD_CHANGES),
        ]:
            for body in bodies:
                r = c.post(route, json=body)
                assert r.status_code == 400, r.text
                error = r.json()["error"]
                assert error["type"] == "InvalidInputError"
                said[what].append(error["message"])
    return said


def refused_by_mcp(folder: Path) -> Refusals:
    said: Refusals = {"memory": [], "change": []}

    async def check(session: ClientSession) -> None:
        await session.call_tool("remember", {"id": "m1", "text": "a fact"})
        m2 = {"id": "m2", "kind": "belief", "text": "a belief", "because": "m1"}
        await session.call_tool("remember", m2)
        for tool, what, arguments in [
            *(("remember", "memory", m) for m in BAD_MEMORIES),
            *(("revise", "change", c) for c in BAD_CHANGES),
        ]:
            result = await session.call_tool(tool, arguments)
            assert result.is_error
            text = result.content[0].text  # type: ignore[union-attr]
            prefix = f"Error executing tool {tool}: InvalidInputError: "
            assert text.startswith(prefix), text
            said[what].append(text.removeprefix(prefix))

    mcp_session(folder / "mcp-refusals", check)
    return said


def refused_by_files(folder: Path, capsys: pytest.CaptureFixture[str]) -> Refusals:
    """Each refusal on stderr, after the line it came from (an import's ``file:line``)."""
    said: Refusals = {"memory": [], "change": []}
    path = folder / "cli-refusals.db"
    seed = folder / "seed.jsonl"
    m2 = {"id": "m2", "kind": "belief", "text": "a belief", "because": "m1"}
    seed.write_text(json.dumps({"id": "m1", "text": "a fact"}) + "\n" + json.dumps(m2) + "\n")
    assert main(["import", str(path), str(seed), "--memories", "--one-process"]) == 0
    for i, m in enumerate(BAD_MEMORIES):
        lines = folder / f"bad-{i}.jsonl"
        lines.write_text(json.dumps(m) + "\n", encoding="utf-8")
        capsys.readouterr()
        assert main(["import", str(path), str(lines), "--memories", "--one-process"]) != 0
        said["memory"].append(capsys.readouterr().err)
    for i, change in enumerate(BAD_CHANGES):
        file = folder / f"bad-{i}.json"
        file.write_text(json.dumps(change), encoding="utf-8")
        capsys.readouterr()
        assert main(["revise", str(path), "--change", str(file)]) != 0
        said["change"].append(capsys.readouterr().err)
    return said


@pytest.fixture(scope="module")
def refusals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Refusals]:
    folder = tmp_path_factory.mktemp("refusals")
    return {
        "python": refused_by_python(folder),
        "http": refused_by_http(folder),
        "mcp": refused_by_mcp(folder),
    }


def test_python_refuses_in_one_clean_line(refusals: dict[str, Refusals]) -> None:
    for message in [*refusals["python"]["memory"], *refusals["python"]["change"]]:
        assert message.startswith(("invalid memory: ", "invalid change: ")), message
        assert "\n" not in message
        for noise in ("pydantic", "type=", "input_value", "Value error", "https://"):
            assert noise not in message, message
    assert refusals["python"]["memory"][0] == (
        "invalid memory: because: an alternative is an id, a list of ids, or {'all': [...], "
        "'unless': [...]}, or a list of them; not 5"
    )
    assert refusals["python"]["change"][0] == (
        "invalid change: retract: expected an id or a list of ids; an id is a string, not int "
        "5: write it in quotes"
    )
    assert "invalid change: assert: Input should be a valid list" in refusals["python"]["change"]


@pytest.mark.parametrize("surface", ["http", "mcp"])
def test_every_surface_refuses_with_the_same_words(
    refusals: dict[str, Refusals], surface: str
) -> None:
    assert refusals[surface] == refusals["python"]


def test_the_command_line_refuses_with_the_same_words(
    refusals: dict[str, Refusals], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = refused_by_files(tmp_path, capsys)
    for what in ("memory", "change"):
        for cli, python in zip(said[what], refusals["python"][what], strict=True):
            assert cli.startswith("stategraph: error: ") and cli.count("\n") == 1, cli
            assert python in cli, cli


def test_history_json_speaks_the_file_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = through_files(tmp_path, capsys)
    capsys.readouterr()
    assert main(["history", str(path), "--json"]) == 0
    last = json.loads(capsys.readouterr().out)[-1]
    change = last["report"]["change"]
    assert change["supersede"][0]["with"]["id"] == "m6b"
    assert [s["id"] for s in change["assert"]] == ["m9"]
    assert "assert_" not in json.dumps(last) and '"with_"' not in json.dumps(last)
