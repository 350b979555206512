"""``GET /v1/verify`` over real HTTP (issue 22, items 2 and 4), on both backends: a head the
client makes up is an answer (409 ``HeadMismatchError``, "does not match"), never a tamper flag
that locks the tenant; ``deep=true`` checks the tables against the log, and an edit of them
found there (a real inconsistency in the store) is 423 and refuses writes."""

from __future__ import annotations

import sqlite3
from typing import Any

import httpx
import psycopg
import pytest

from stategraph.service.tenants import SQLiteTenants

from .conftest import LiveServer, Setup

pytestmark = pytest.mark.citus  # the service tests also run on a Citus coordinator

SEED = [
    {"id": "m1", "text": "The user plans to move from Shanghai to Shenzhen in December 2026"},
    {"id": "m2", "kind": "belief", "text": "Commute time for Shenzhen", "because": ["m1"]},
    {"id": "m3", "kind": "action", "text": "Cancel the broadband", "because": ["m1"]},
]


def seeded(live: LiveServer, setup: Setup) -> tuple[httpx.Client, dict[str, Any]]:
    c = httpx.Client(base_url=live.url, headers=setup.headers("alice"), timeout=30)
    for body in SEED:
        assert c.post("/v1/states", json=body).status_code == 201
    assert c.post("/v1/revise", json={"retract": ["m1"]}).status_code == 200
    head: dict[str, Any] = c.get("/v1/head").json()
    return c, head


def error(r: httpx.Response) -> dict[str, Any]:
    body: dict[str, Any] = r.json()["error"]
    assert body["status"] == r.status_code
    return body


def flip_truth(setup: Setup, tenant: str, state_id: str) -> None:
    """Set a state's stored truth value to true behind the store's back, with plain SQL."""
    if setup.backend == "postgres":
        with psycopg.connect(setup.database, autocommit=True) as conn:
            conn.execute(
                "UPDATE stategraph.states SET truth = 'true' WHERE tenant = %s AND id = %s",
                (tenant, state_id),
            )
        return
    assert isinstance(setup.tenants, SQLiteTenants)
    with sqlite3.connect(setup.tenants.path(tenant)) as db:
        db.execute("UPDATE states SET truth = 'true' WHERE id = ?", (state_id,))


def test_a_made_up_head_is_an_answer_not_a_lock(live: LiveServer, setup: Setup) -> None:
    """Before: 423, and every write of the tenant refused until someone with shell access ran
    --acknowledge-tamper."""
    c, head = seeded(live, setup)
    made_up = [
        {"expect_seq": 1, "expect_hash": "f" * 64},
        {"expect_seq": head["seq"] + 5, "expect_hash": head["hash"]},
        {"expect_seq": head["seq"], "expect_hash": "0" * 64, "deep": "true"},
    ]
    for params in made_up:
        r = c.get("/v1/verify", params=params)
        assert (r.status_code, error(r)["type"]) == (409, "HeadMismatchError"), params
        assert "does not match" in error(r)["message"]
    w = c.post("/v1/states", json={"id": "m9", "text": "still writable"})
    assert w.status_code == 201, w.text
    r = c.get("/v1/verify", params={"expect_seq": head["seq"], "expect_hash": head["hash"]})
    assert r.status_code == 200 and r.json()["entries"] == head["seq"] + 1
    c.close()


def test_an_edit_of_the_tables_is_found_by_a_deep_verify(live: LiveServer, setup: Setup) -> None:
    c, head = seeded(live, setup)
    r = c.get("/v1/verify", params={"deep": "true"})
    assert r.status_code == 200 and r.json()["tables"] is True
    flip_truth(setup, "alice", "m3")
    assert c.get("/v1/verify").status_code == 200  # the chain alone cannot see it
    r = c.get("/v1/verify", params={**head_params(head), "deep": "true"})
    assert (r.status_code, error(r)["type"]) == (423, "LogIntegrityError")
    assert "does not match the stored tables" in error(r)["message"]
    w = c.post("/v1/states", json={"id": "m9", "text": "x"})
    assert (w.status_code, error(w)["type"]) == (423, "TamperedStoreError")
    bob = httpx.post(
        f"{live.url}/v1/states", json={"id": "b1"}, headers=setup.headers("bob"), timeout=30
    )
    assert bob.status_code == 201  # other tenants write on
    why = c.get("/v1/why/m3")
    assert (why.status_code, error(why)["type"]) == (409, "InconsistentStoreError")
    c.close()


def head_params(head: dict[str, Any]) -> dict[str, Any]:
    return {"expect_seq": head["seq"], "expect_hash": head["hash"]}
