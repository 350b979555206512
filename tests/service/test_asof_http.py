"""``?as_of=`` on the read endpoints, through Starlette's test client over the real app and
real SQLite stores: the memory as it was, and never another tenant's."""

from __future__ import annotations

from fastapi.testclient import TestClient

from .conftest import Setup
from .test_http import error, seed


def test_the_read_endpoints_answer_as_of_a_revision(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    before = client.get("/v1/head", headers=h).json()["seq"]
    change = {"supersede": {"id": "m1", "with": {"id": "m1b", "text": "The user stays"}}}
    assert client.post("/v1/revise", json=change, headers=h).status_code == 200
    then = {"as_of": str(before)}
    m3 = client.get("/v1/states/m3", params=then, headers=h).json()
    assert (m3["truth"], m3["active"]) == ("true", True)
    assert client.get("/v1/states/m3", headers=h).json()["truth"] == "false"
    listed = client.get("/v1/states", params=then, headers=h).json()
    assert "m1b" not in {s["state"]["id"] for s in listed}
    why = client.get("/v1/why/m3", params=then, headers=h)
    assert why.status_code == 200 and [s["id"] for s in why.json()["steps"]] == ["m1", "m3"]
    assert client.get("/v1/why/m3", headers=h).status_code == 409
    assert client.get("/v1/why-not/m3", params=then, headers=h).json()["truth"] == "true"
    got = client.get("/v1/recall", params={"q": "broadband", **then}, headers=h).json()
    assert [(r["id"], r["status"]) for r in got] == [("m3", "holds")]
    assert client.get("/v1/review", params=then, headers=h).json() == []
    at = client.get("/v1/history", headers=h).json()[before - 1]["at"]
    by_time = client.get("/v1/states/m3", params={"as_of": at}, headers=h).json()
    assert by_time["truth"] == "true"


def test_a_revision_out_of_range_is_400_and_tenants_stay_apart(
    client: TestClient, setup: Setup
) -> None:
    h = setup.headers("alice")
    seed(client, h)
    for wrong in ("0", "999", "2999-01-01T00:00:00"):
        r = client.get("/v1/states/m3", params={"as_of": wrong}, headers=h)
        assert r.status_code == 400 and error(r)["type"] == "AsOfRangeError"
    r = client.get("/v1/recall", params={"q": "food", "as_of": "soon"}, headers=h)
    assert r.status_code == 400 and error(r)["type"] == "InvalidInputError"
    bob = setup.headers("bob")
    r = client.get("/v1/states/m3", params={"as_of": "1"}, headers=bob)
    assert r.status_code == 400 and error(r)["type"] == "AsOfRangeError"  # bob has no past
    assert (
        client.post("/v1/states", json={"id": "x", "kind": "fact"}, headers=bob).status_code == 201
    )
    assert (
        client.get("/v1/states", params={"as_of": "1"}, headers=bob).json()[0]["state"]["id"] == "x"
    )
    r = client.get("/v1/states/m3", params={"as_of": "1"}, headers=bob)
    assert r.status_code == 404
