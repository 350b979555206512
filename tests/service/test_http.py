"""The HTTP API through Starlette's test client: each route over the real app and real
SQLite stores, and every error as JSON with the library's type and its status."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from stategraph.service.errors import HTTP_STATUS

from .conftest import Setup

SEED = [
    {"id": "m1", "text": "The user plans to move from Shanghai to Shenzhen in December 2026"},
    {"id": "m2", "kind": "belief", "text": "Commute time for Shenzhen", "because": ["m1"]},
    {"id": "m3", "kind": "action", "text": "Cancel the broadband", "because": ["m1"]},
    {"id": "m4", "text": "The user prefers Cantonese food"},
]


SUMMARY = ("invalidated", "kept", "restored", "needs_confirmation", "consequences")


def seed(client: TestClient, headers: dict[str, str]) -> None:
    for body in SEED:
        assert client.post("/v1/states", json=body, headers=headers).status_code == 201


def error(response: Any) -> dict[str, Any]:
    body: dict[str, Any] = response.json()["error"]
    assert body["status"] == response.status_code
    return body


def test_the_seed_scenario_over_http(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    change = {"supersede": {"id": "m1", "with": {"id": "m1b", "text": "The user stays"}}}
    r = client.post("/v1/revise", json=change, headers=h)
    assert r.status_code == 200
    report = r.json()
    verdicts = {e["id"]: e["verdict"] for e in report["entries"]}
    assert verdicts == {"m2": "invalidated", "m3": "invalidated"}
    assert {e["id"]: e["consequence"] for e in report["entries"]}["m3"] == "cancel"
    # the summary lists of Python's Report and MCP's revise, beside the entries
    assert {k: report[k] for k in SUMMARY} == {
        "invalidated": ["m2", "m3"],
        "kept": [],
        "restored": [],
        "needs_confirmation": [],
        "consequences": {"m3": "cancel"},
    }
    shown = client.get("/v1/states/m2", headers=h).json()
    assert (shown["truth"], shown["active"], shown["state"]["kind"]) == ("false", True, "belief")
    listed = client.get("/v1/states", headers=h).json()
    assert [(s["state"]["id"], s["truth"], s["active"]) for s in listed] == [
        ("m1", "false", False),
        ("m1b", "true", True),
        ("m2", "false", True),
        ("m3", "false", True),
        ("m4", "true", True),
    ]
    page = client.get("/v1/states", params={"after": "m1b", "limit": 2}, headers=h).json()
    assert [s["state"]["id"] for s in page] == ["m2", "m3"]
    assert client.get("/v1/why/m4", headers=h).json()["root"] == "m4"
    why_not = client.get("/v1/why-not/m2", headers=h).json()
    assert why_not["items"][0]["first_failed"] == "m1"


def test_add_takes_the_basis_shorthand(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    body = {
        "id": "p1",
        "kind": "plan",
        "text": "Weekend in Shenzhen",
        "because": [{"all": ["m1", "m4"], "unless": ["x9"]}, "m4"],
    }
    assert client.post("/v1/states", json=body, headers=h).status_code == 201
    r = client.post("/v1/revise", json={"retract": ["m1"]}, headers=h).json()
    kept = {e["id"]: e for e in r["entries"]}["p1"]
    assert kept["verdict"] == "kept"
    assert kept["reason"]["surviving"]["premises"] == ["m4"]
    proof = client.get("/v1/why/p1", headers=h).json()
    assert {s["id"] for s in proof["steps"]} == {"p1", "m4"}


def test_history_head_and_verify(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    entries = client.get("/v1/history", params={"limit": 2}, headers=h).json()
    assert [e["seq"] for e in entries] == [3, 4]
    assert [e["seq"] for e in client.get("/v1/history?since=3", headers=h).json()] == [4]
    head = client.get("/v1/head", headers=h).json()
    assert head["seq"] == 4
    verified = client.get(
        "/v1/verify", params={"expect_seq": 4, "expect_hash": head["hash"]}, headers=h
    ).json()
    assert verified == {"entries": 4, "head": head, "tables": False}


def test_review_lists_confirms_and_rejects(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    client.post("/v1/states", json={"id": "f1", "text": "fact"}, headers=h)
    client.post("/v1/states", json={"id": "f2", "text": "fact"}, headers=h)
    for sid in ("b1", "b2"):
        body = {"id": sid, "kind": "belief", "text": sid, "context": ["f1"]}
        assert client.post("/v1/states", json=body, headers=h).status_code == 201
    r = client.post("/v1/revise", json={"retract": ["f1"]}, headers=h).json()
    assert sorted(r["entries"][i]["id"] for i in range(2)) == ["b1", "b2"]
    pending = client.get("/v1/review", headers=h).json()
    assert [p["id"] for p in pending] == ["b1", "b2"]
    confirmed = client.post(
        "/v1/review/confirm", json={"id": "b1", "by": "ann", "note": "still true"}, headers=h
    )
    assert confirmed.status_code == 200
    assert client.get("/v1/states/b1", headers=h).json()["truth"] == "true"
    rejected = client.post("/v1/review/reject", json={"id": "b2", "by": "ann"}, headers=h)
    assert rejected.status_code == 200
    assert client.get("/v1/states/b2", headers=h).json()["active"] is False
    assert client.get("/v1/review", headers=h).json() == []
    again = client.post("/v1/review/confirm", json={"id": "b1", "by": "ann"}, headers=h)
    assert (again.status_code, error(again)["type"]) == (409, "NotPendingError")


def test_no_token_or_an_unknown_one_is_401_alike(client: TestClient) -> None:
    missing = client.get("/v1/states")
    unknown = client.get("/v1/states", headers={"Authorization": "Bearer sg_not-a-token"})
    basic = client.get("/v1/states", headers={"Authorization": "Basic YTpi"})
    for r in (missing, unknown, basic):
        assert r.status_code == 401
        assert r.headers["www-authenticate"] == "Bearer"
        assert error(r)["type"] == "UnauthorizedError"
    assert missing.json() == unknown.json() == basic.json()


def test_errors_carry_the_library_type_and_status(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    cases = [
        (client.get("/v1/states/nope", headers=h), 404, "UnknownStateError"),
        (client.get("/v1/why/nope", headers=h), 404, "UnknownStateError"),
        (client.get("/v1/why-not/nope", headers=h), 404, "UnknownStateError"),
        (
            client.post("/v1/revise", json={"retract": ["nope"]}, headers=h),
            404,
            "UnknownStateError",
        ),
        (client.post("/v1/revise", json={"retract": ["m1"]}, headers=h), 200, None),
        (client.get("/v1/why/m2", headers=h), 409, "NotHoldingError"),
        (client.post("/v1/states", json={"id": "m4"}, headers=h), 409, "DuplicateStateError"),
        (
            client.post("/v1/states", json={"id": "x", "kind": "no way"}, headers=h),
            400,
            "InvalidInputError",
        ),
        (client.post("/v1/states", json={"text": "no id"}, headers=h), 400, "InvalidInputError"),
        (
            client.post("/v1/revise", json={"retract": "m4", "bogus": 1}, headers=h),
            400,
            "InvalidInputError",
        ),
        (client.get("/v1/history", params={"limit": 0}, headers=h), 400, "InvalidInputError"),
        (client.get("/v1/verify", params={"expect_seq": 1}, headers=h), 400, "InvalidInputError"),
        (client.get("/v1/nowhere", headers=h), 404, "HTTPError"),
        (client.delete("/v1/states", headers=h), 405, "HTTPError"),
    ]
    for response, status, kind in cases:
        assert response.status_code == status, response.text
        if kind is not None:
            assert error(response)["type"] == kind
    missing = client.get("/v1/states/nope", headers=h).json()["error"]
    assert missing["state_id"] == "nope"
    invalid = client.post("/v1/states", json={"text": "no id"}, headers=h).json()["error"]
    assert ["id", "Field required"] in invalid["errors"]


def test_bodies_are_parsed_strictly(client: TestClient, setup: Setup) -> None:
    h = {**setup.headers("alice"), "content-type": "application/json"}
    twice = client.post("/v1/states", content=b'{"id": "a", "id": "b"}', headers=h)
    assert (twice.status_code, error(twice)["type"]) == (400, "DuplicateKeyError")
    deep = b'{"id": "a", "metadata": ' + b'{"k": ' * 100 + b"1" + b"}" * 101
    r = client.post("/v1/states", content=deep, headers=h)
    assert (r.status_code, error(r)["type"]) == (400, "InputLimitError")
    nan = client.post("/v1/states", content=b'{"id": "a", "metadata": {"x": NaN}}', headers=h)
    assert (nan.status_code, error(nan)["type"]) == (400, "InputSyntaxError")
    latin = client.post("/v1/states", content='{"id": "é"}'.encode("latin-1"), headers=h)
    assert (latin.status_code, error(latin)["type"]) == (400, "UnreadableInputError")
    assert client.get("/v1/states", headers=h).json() == []


def test_a_body_over_the_limit_is_413_before_it_is_read(setup: Setup) -> None:
    with TestClient(setup.app(max_body=1000)) as c:
        h = {**setup.headers("alice"), "content-type": "application/json"}
        big = b'{"id": "a", "text": "' + b"x" * 2000 + b'"}'
        r = c.post("/v1/states", content=big, headers=h)
        assert (r.status_code, error(r)["type"], error(r)["limit"]) == (
            413,
            "RequestTooLargeError",
            1000,
        )

        def chunks() -> Any:  # no Content-Length: counted as it arrives
            yield b'{"id": "a", "text": "'
            for _ in range(10):
                yield b"x" * 500
            yield b'"}'

        r = c.post("/v1/states", content=chunks(), headers=h)
        assert r.status_code == 413
        assert c.post("/v1/states", json={"id": "a"}, headers=h).status_code == 201


def test_a_busy_store_is_503_with_retry_after(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    with setup.another_writer("alice"):  # another process's writer holds the lock
        r = client.post("/v1/states", json={"id": "m5", "text": "x"}, headers=h)
        assert (r.status_code, error(r)["type"], r.headers["retry-after"]) == (
            503,
            "StoreBusyError",
            "1",
        )
        assert "data" not in r.text and setup.location not in r.text  # no path leaks
        assert "postgresql" not in r.text and "127.0.0.1" not in r.text
        assert client.get("/v1/states/m1", headers=h).status_code == 200  # reads go on
    assert client.post("/v1/states", json={"id": "m5", "text": "x"}, headers=h).status_code == 201


def test_a_writer_waits_for_its_tenants_turn(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    with setup.another_writer("alice", whole_request=True):  # another worker writes for alice
        r = client.post("/v1/states", json={"id": "m5", "text": "x"}, headers=h)
        assert (r.status_code, error(r)["type"]) == (503, "StoreBusyError")
        assert setup.location not in r.text
        bob = client.post("/v1/states", json={"id": "m5"}, headers=setup.headers("bob"))
        assert bob.status_code == 201  # other tenants write on
    assert client.post("/v1/states", json={"id": "m5", "text": "x"}, headers=h).status_code == 201


def test_a_tampered_store_is_423_and_refuses_writes(client: TestClient, setup: Setup) -> None:
    h = setup.headers("alice")
    seed(client, h)
    setup.tamper("alice", 2)
    r = client.get("/v1/verify", headers=h)
    assert (r.status_code, error(r)["type"], error(r)["seq"]) == (423, "LogIntegrityError", 2)
    w = client.post("/v1/states", json={"id": "m9", "text": "x"}, headers=h)
    assert (w.status_code, error(w)["type"]) == (423, "TamperedStoreError")
    assert setup.location not in w.text


def test_every_library_error_has_a_status() -> None:
    import stategraph.errors as errors

    for name in errors.__all__:
        cls = getattr(errors, name)
        status = next(HTTP_STATUS[c.__name__] for c in cls.__mro__ if c.__name__ in HTTP_STATUS)
        assert status in (400, 404, 409, 423, 500, 503), name


def test_the_openapi_schema_is_served(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert {
        "/v1/states",
        "/v1/states/{state_id}",
        "/v1/revise",
        "/v1/why/{state_id}",
        "/v1/why-not/{state_id}",
        "/v1/history",
        "/v1/head",
        "/v1/verify",
        "/v1/review",
        "/v1/review/confirm",
        "/v1/review/reject",
    } <= paths
    assert "HTTPBearer" in schema["components"]["securitySchemes"]
    assert "Report" in schema["components"]["schemas"]
    assert "ErrorResponse" in schema["components"]["schemas"]
    assert client.get("/docs").status_code == 200
