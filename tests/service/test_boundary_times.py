"""Times at the edges of what a datetime holds, with a time zone (issue 42, finding 6):
``0001-01-01T00:00:00+14:00`` is in year 0 in UTC and ``9999-12-31T23:59:59-14:00`` in year
10000, and converting either raised ``OverflowError``: a 500 on ``/v1/recall``,
``/v1/states/ID`` and ``/v1/history?since=``. Now a 400 that gives the range, on both backends,
and a tool error over MCP, whose ``recall`` also reads the past now (finding 9: it ignored
``as_of``)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from mcp import ClientSession

from .conftest import Setup
from .test_http import error, seed
from .test_mcp import call, over_stdio, remember_the_seed

EDGES = ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00")


@pytest.mark.parametrize("when", EDGES)
def test_an_edge_time_is_400_with_the_range_on_every_read(
    client: TestClient, setup: Setup, when: str
) -> None:
    h = setup.headers("alice")
    seed(client, h)
    for path, params in [
        ("/v1/recall", {"q": "broadband", "as_of": when}),
        ("/v1/states/m3", {"as_of": when}),
        ("/v1/why/m3", {"as_of": when}),
        ("/v1/states", {"as_of": when}),
    ]:
        r = client.get(path, params=params, headers=h)
        assert r.status_code == 400, (path, r.text)
        assert error(r)["type"] == "AsOfRangeError"
        assert "give a revision from 1 to 4, or a time from then on" in error(r)["message"]
    r = client.get("/v1/history", params={"since": when}, headers=h)
    assert r.status_code == 400, r.text
    assert "from 0001-01-01T00:00:00+00:00 to 9999-12-31T23:59:59.999999+00:00" in r.text


def test_mcp_recall_reads_the_past_and_refuses_an_edge_time(setup: Setup) -> None:
    store = f"sqlite:///{setup.folder}" if setup.backend == "sqlite" else setup.database

    async def check(session: ClientSession) -> None:
        await remember_the_seed(session)
        new = {"id": "m1b", "kind": "fact", "text": "The user stays in Shanghai"}
        await call(session, "revise", supersede=[{"id": "m1", "with": new}])
        assert (await call(session, "recall", query="broadband"))["result"] == []
        then = (await call(session, "recall", query="broadband", as_of="4"))["result"]
        assert [(r["id"], r["status"]) for r in then] == [("m3", "holds")]
        for when in EDGES:
            result = await session.call_tool("recall", {"query": "broadband", "as_of": when})
            assert result.is_error and "AsOfRangeError" in str(result.content)
            assert "give a revision from 1 to 5" in str(result.content)

    over_stdio(store, "alice", check)
