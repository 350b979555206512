"""Over HTTP and MCP: ids are strings, and a caller writes no review, judge, rule or assumed
record (issue 22, items 1 and 3; the library's side is in ``tests/core/test_strict_ids.py``
and ``tests/review/test_forged_records.py``).

Before, ``POST /v1/revise`` with ``{"retract": [null]}`` retracted a state called "None",
``{"retract": [{"a": 1}]}`` looked up the id "{'a': 1}", and a body with ``reviews`` and a
premise-less ``review`` justification, or a ``judge`` one with invented notes, was accepted.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import ClientSession

from .conftest import Setup
from .test_http import error
from .test_mcp import over_stdio


def seed(client: TestClient, h: dict[str, str]) -> None:
    for body in (
        {"id": "f"},
        {"id": "g"},
        {"id": "None"},
        {"id": "12"},
        {"id": "{'a': 1}"},
        {"id": "b", "kind": "belief", "because": ["f"]},
    ):
        assert client.post("/v1/states", json=body, headers=h).status_code == 201
    assert client.post("/v1/revise", json={"retract": ["f"]}, headers=h).status_code == 200


def log_and_truths(client: TestClient, h: dict[str, str]) -> tuple[Any, ...]:
    states = client.get("/v1/states", headers=h).json()
    head = client.get("/v1/head", headers=h).json()
    return head["seq"], [(s["state"]["id"], s["truth"], s["active"]) for s in states]


NOT_STRINGS: dict[str, dict[str, Any]] = {
    "retract null": {"retract": [None]},
    "retract a number": {"retract": [12]},
    "retract a mapping": {"retract": [{"a": 1}]},
    "retract one number": {"retract": 12},
    "a premise null": {"add_justifications": [{"head": "b", "premises": [None]}]},
    "an unless number": {"add_justifications": [{"head": "b", "premises": ["g"], "unless": [12]}]},
    "a head number": {"add_justifications": [{"head": 12, "premises": ["g"]}]},
    "a supersede id": {"supersede": {"id": 12, "with": {"id": "h"}}},
    "an asserted id": {"assert": [{"id": False}]},
}  # fmt: skip

FORGED: dict[str, dict[str, Any]] = {
    "a review": {
        "add_justifications": [{"head": "b", "origin": "review", "notes": {"by": "anyone"}}],
        "reviews": [{"id": "b", "decision": "confirmed", "by": "anyone"}],
    },
    "a judge's answer": {
        "add_justifications": [
            {"head": "b", "premises": ["g"], "origin": "judge", "notes": {"g": "made up"}}
        ]
    },
    "a rule": {"add_justifications": [{"head": "b", "premises": ["g"], "origin": "rule"}]},
    "an assumption": {"add_justifications": [{"head": "b", "origin": "assumed"}]},
}


@pytest.mark.parametrize("body", list(NOT_STRINGS.values()), ids=list(NOT_STRINGS))
def test_an_id_that_is_not_a_string_is_400_and_changes_nothing(
    client: TestClient, setup: Setup, body: dict[str, Any]
) -> None:
    h = setup.headers("alice")
    seed(client, h)
    before = log_and_truths(client, h)
    r = client.post("/v1/revise", json=body, headers=h)
    assert r.status_code == 400, r.text
    e = error(r)
    assert e["type"] == "InvalidInputError" and "string" in e["message"]
    assert log_and_truths(client, h) == before


@pytest.mark.parametrize("body", list(FORGED.values()), ids=list(FORGED))
def test_a_forged_review_judge_rule_or_assumption_is_400_and_changes_nothing(
    client: TestClient, setup: Setup, body: dict[str, Any]
) -> None:
    h = setup.headers("alice")
    seed(client, h)
    before = log_and_truths(client, h)
    r = client.post("/v1/revise", json=body, headers=h)
    assert r.status_code == 400, r.text
    e = error(r)
    assert e["type"] == "InvalidInputError" and "never given" in e["message"]
    assert log_and_truths(client, h) == before
    assert client.get("/v1/why/b", headers=h).status_code != 200  # b still does not hold


def test_a_review_goes_through_confirm(client: TestClient, setup: Setup) -> None:
    """The review path still writes the review (for a state waiting for one), and refuses a
    state nothing flagged."""
    h = setup.headers("alice")
    seed(client, h)
    r = client.post("/v1/review/confirm", json={"id": "b", "by": "anyone"}, headers=h)
    assert r.status_code == 409 and error(r)["type"] == "NotPendingError"
    for body in (
        {"id": "u", "kind": "belief", "because": [{"all": ["g"], "unless": ["v"]}]},
        {"id": "v", "kind": "belief", "because": [{"all": ["g"], "unless": ["u"]}]},
    ):
        assert client.post("/v1/states", json=body, headers=h).status_code == 201
    r = client.post("/v1/review/confirm", json={"id": "u", "by": "ana"}, headers=h)
    assert r.status_code == 200 and r.json()["change"]["reviews"][0]["by"] == "ana"


def test_mcp_refuses_an_id_that_is_not_a_string(setup: Setup) -> None:
    """The MCP tools take ids where the library does, and refuse the same values."""
    store = f"sqlite:///{setup.folder}" if setup.backend == "sqlite" else setup.database
    results: dict[str, Any] = {}

    async def check(session: ClientSession) -> None:
        for name in ("f", "None", "12"):
            assert not (await session.call_tool("remember", {"id": name, "text": ""})).is_error
        attempts = {
            "retract null": ("revise", {"retract": [None]}),
            "retract a number": ("revise", {"retract": [12]}),
            "because a number": (
                "remember",
                {"id": "b", "text": "", "kind": "belief", "because": [[12]]},
            ),
            "context null": ("remember", {"id": "b", "text": "", "context": [None]}),
            "an added state's premise": (
                "revise",
                {"add": [{"id": "b", "kind": "belief", "because": [["f", None]]}]},
            ),
            "a replaced id": ("revise", {"supersede": [{"id": 12, "new": {"id": "h"}}]}),
        }
        for label, (tool, arguments) in attempts.items():
            results[label] = await session.call_tool(tool, arguments)
        results["after"] = await session.call_tool("explain", {"id": "None"})

    over_stdio(store, "alice", check)
    after = results.pop("after")
    for label, result in results.items():
        assert result.is_error, label
        assert "string" in str(result.content), (label, result.content)
    assert after.structured_content["holds"] is True  # "None" was not retracted
