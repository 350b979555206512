"""Tenants are isolated: over a real server, a token for one tenant can neither read, revise,
nor learn the existence of another tenant's states.

Each probe is sent twice with Alice's token: once naming an id that only Bob's memory holds,
once naming an id nobody holds. The two answers must be the same bytes (status, headers that
matter, body), and Bob's memory must be exactly as it was (same log head, same states).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from .conftest import LiveServer, Setup

pytestmark = pytest.mark.citus  # the service tests also run on a Citus coordinator

BOB_ONLY = "bob-secret"
NOBODY = "nobody-at-all"

Probe = Callable[[httpx.Client, str], httpx.Response]

PROBES: dict[str, Probe] = {
    "show": lambda c, sid: c.get(f"/v1/states/{sid}"),
    "why": lambda c, sid: c.get(f"/v1/why/{sid}"),
    "why-not": lambda c, sid: c.get(f"/v1/why-not/{sid}"),
    "retract": lambda c, sid: c.post("/v1/revise", json={"retract": [sid]}),
    "supersede": lambda c, sid: c.post(
        "/v1/revise", json={"supersede": {"id": sid, "with": {"id": f"{sid}-2", "text": "x"}}}
    ),
    "depend on it": lambda c, sid: c.post(
        "/v1/states", json={"id": "a-belief", "kind": "belief", "because": [sid]}
    ),
    "unless it": lambda c, sid: c.post(
        "/v1/revise",
        json={"add_justifications": [{"head": "a1", "premises": [sid]}]},
    ),
    "confirm": lambda c, sid: c.post("/v1/review/confirm", json={"id": sid, "by": "eve"}),
    "reject": lambda c, sid: c.post("/v1/review/reject", json={"id": sid, "by": "eve"}),
}


def _bob_state(live: LiveServer, setup: Setup) -> tuple[Any, Any, Any]:
    with httpx.Client(base_url=live.url, headers=setup.headers("bob")) as bob:
        return (
            bob.get("/v1/head").json(),
            bob.get("/v1/states").json(),
            bob.get("/v1/verify").json(),
        )


def test_a_token_for_alice_cannot_reach_bobs_states(live: LiveServer, setup: Setup) -> None:
    with httpx.Client(base_url=live.url, headers=setup.headers("bob")) as bob:
        assert bob.post("/v1/states", json={"id": BOB_ONLY, "text": "Bob's"}).status_code == 201
        body = {"id": "bob-b", "kind": "belief", "text": "rests on it", "context": [BOB_ONLY]}
        assert bob.post("/v1/states", json=body).status_code == 201
    before = _bob_state(live, setup)
    with httpx.Client(base_url=live.url, headers=setup.headers("alice")) as alice:
        assert alice.post("/v1/states", json={"id": "a1", "text": "Alice's"}).status_code == 201
        for name, probe in PROBES.items():
            on_bob, on_nobody = probe(alice, BOB_ONLY), probe(alice, NOBODY)
            assert on_bob.status_code == on_nobody.status_code, name
            assert on_bob.status_code in (400, 404, 409), (name, on_bob.text)
            assert on_bob.text.replace(BOB_ONLY, "ID") == on_nobody.text.replace(NOBODY, "ID"), name
        assert [s["state"]["id"] for s in alice.get("/v1/states").json()] == ["a1"]
        history = alice.get("/v1/history").json()
        assert BOB_ONLY not in str(history)
        assert alice.get("/v1/review").json() == []
    assert _bob_state(live, setup) == before


def test_bobs_token_sees_nothing_alice_wrote(live: LiveServer, setup: Setup) -> None:
    with httpx.Client(base_url=live.url, headers=setup.headers("alice")) as alice:
        assert alice.post("/v1/states", json={"id": "shared-name", "text": "A"}).status_code == 201
    with httpx.Client(base_url=live.url, headers=setup.headers("bob")) as bob:
        assert bob.get("/v1/states/shared-name").status_code == 404
        assert bob.get("/v1/head").json()["seq"] == 0
        # the same id in Bob's memory is Bob's own state, unrelated to Alice's
        assert bob.post("/v1/states", json={"id": "shared-name", "text": "B"}).status_code == 201
        assert bob.get("/v1/states/shared-name").json()["state"]["text"] == "B"
    with httpx.Client(base_url=live.url, headers=setup.headers("alice")) as alice:
        assert alice.get("/v1/states/shared-name").json()["state"]["text"] == "A"
        assert alice.get("/v1/verify").json()["entries"] == 1
    assert setup.tenants.tenants() == ["alice", "bob"]


def test_reading_creates_no_store(live: LiveServer, setup: Setup) -> None:
    with httpx.Client(base_url=live.url, headers=setup.headers("alice")) as alice:
        assert alice.get("/v1/states").json() == []
        assert alice.get("/v1/states/x").status_code == 404
        assert alice.get("/v1/verify").json()["entries"] == 0
    assert setup.tenants.tenants() == []
