"""GET /v1/recall through Starlette's test client, over the real app and real SQLite stores."""

from __future__ import annotations

from fastapi.testclient import TestClient

from .conftest import Setup
from .test_http import error, seed


def test_recall_over_http_after_the_move_is_called_off(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    got = client.get("/v1/recall", params={"q": "broadband"}, headers=h).json()
    assert [(r["id"], r["status"]) for r in got] == [("m3", "holds")]
    change = {"supersede": {"id": "m1", "with": {"id": "m1b", "text": "The user stays"}}}
    assert client.post("/v1/revise", json=change, headers=h).status_code == 200
    assert client.get("/v1/recall", params={"q": "broadband"}, headers=h).json() == []
    params: dict[str, str | int] = {"q": "broadband", "include_invalidated": "true", "k": 3}
    (gone,) = client.get("/v1/recall", params=params, headers=h).json()
    assert (gone["id"], gone["status"]) == ("m3", "invalidated")
    assert gone["why_not"]["items"][0]["first_failed"] == "m1"
    food = client.get("/v1/recall", params={"q": "Cantonese food"}, headers=h).json()
    assert [(r["id"], r["status"], r["ask_first"]) for r in food] == [("m4", "holds", None)]


def test_bad_queries_are_400_and_tenants_are_apart(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    for params in ({"q": "  "}, {"q": "food", "k": 0}, {"q": "food", "k": 1001}):
        r = client.get("/v1/recall", params=params, headers=h)
        assert r.status_code == 400 and error(r)["type"] == "InvalidInputError"
    assert client.get("/v1/recall", params={"q": '"OR NEAR(*'}, headers=h).status_code == 200
    bob = setup.headers("bob")
    assert client.get("/v1/recall", params={"q": "Cantonese food"}, headers=bob).json() == []
