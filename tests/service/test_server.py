"""The real server: uvicorn on loopback, driven over HTTP.

Concurrent writers within one tenant and across tenants lose nothing and interleave nothing
(every write acknowledged is there, once, and each tenant's chain verifies); ``stategraph
serve`` itself starts with several workers from a tokens file it made, and serves.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from stategraph.service.auth import add_token

from .conftest import LiveServer, Setup

pytestmark = pytest.mark.citus  # the service tests also run on a Citus coordinator


def test_concurrent_writers_lose_and_interleave_nothing(live: LiveServer, setup: Setup) -> None:
    def writer(tenant: str, n: int) -> list[int]:
        statuses = []
        with httpx.Client(base_url=live.url, headers=setup.headers(tenant), timeout=60) as c:
            for i in range(10):
                sid = f"w{n}-{i}"
                statuses.append(c.post("/v1/states", json={"id": sid, "text": sid}).status_code)
                body = {"id": f"b{n}-{i}", "kind": "belief", "because": [sid]}
                statuses.append(c.post("/v1/states", json=body).status_code)
            change = {"supersede": {"id": f"w{n}-0", "with": {"id": f"v{n}", "text": "new"}}}
            r = c.post("/v1/revise", json=change)
            assert r.json()["entries"][0]["id"] == f"b{n}-0"
            statuses.append(r.status_code)
        return statuses

    jobs = [("alice", n) for n in range(6)] + [("bob", n) for n in range(2)]
    with ThreadPoolExecutor(len(jobs)) as pool:
        results = list(pool.map(lambda job: writer(*job), jobs))
    assert all(s in (200, 201) for statuses in results for s in statuses)
    for tenant, writers in (("alice", 6), ("bob", 2)):
        with httpx.Client(base_url=live.url, headers=setup.headers(tenant)) as c:
            states = {s["state"]["id"]: s for s in c.get("/v1/states").json()}
            expected = {f"{p}{n}-{i}" for n in range(writers) for i in range(10) for p in "wb"}
            assert set(states) == expected | {f"v{n}" for n in range(writers)}
            assert all(states[f"b{n}-0"]["truth"] == "false" for n in range(writers))
            assert all(states[f"b{n}-1"]["truth"] == "true" for n in range(writers))
            assert c.get("/v1/verify").json()["entries"] == writers * 21


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.citus(
    skip="the command's start-up on a database URL whose schema is made already: serving from "
    "Citus is the concurrent writers' test (and scripts/load_test.py's); 15 s more in CI"
)
def test_stategraph_serve_with_workers(tmp_path: Path, setup: Setup) -> None:
    """On each backend: SQLite files in a folder, or the PostgreSQL database."""
    store = f"sqlite:///{tmp_path}/data" if setup.backend == "sqlite" else setup.database
    tokens = tmp_path / "tokens.json"
    made = subprocess.run(
        [sys.executable, "-m", "stategraph", "serve", "--tokens", str(tokens), "--add-token", "a"],
        capture_output=True,
        text=True,
        check=True,
    )
    token = made.stdout.strip()
    assert token.startswith("sg_") and token not in tokens.read_text()
    port = _free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "stategraph", "serve", "--store", store),
            *("--tokens", str(tokens), "--port", str(port), "--workers", "2", "--no-access-log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as c:
            for _ in range(600):
                try:
                    if c.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.05)
            for i in range(20):  # spread over both workers
                assert c.post("/v1/states", json={"id": f"m{i}", "text": "x"}).status_code == 201
            assert c.get("/v1/verify").json()["entries"] == 20
            assert c.get("/openapi.json").json()["info"]["title"] == "stategraph"
            assert c.get("/v1/states", headers={"Authorization": "Bearer x"}).status_code == 401
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert setup.tenants.tenants() == ["a"]
    assert f"stategraph: listening on {url}\n" in err
    if setup.backend == "sqlite":  # the folder as an absolute path, resolved
        assert (
            f"tenants stored: one SQLite file per tenant in {(tmp_path / 'data').resolve()}\n"
            in err
        )
    else:
        assert "stategraph: tenants stored: postgresql://" in err


def test_serve_refuses_what_it_cannot_serve(tmp_path: Path) -> None:
    def serve(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "stategraph", "serve", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "STATEGRAPH_TOKENS": ""},
        )

    no_tokens = serve("--store", f"sqlite:///{tmp_path}/d")
    assert no_tokens.returncode == 2 and "--add-token" in no_tokens.stderr
    (tmp_path / "t.json").write_text('{"tokens": [}')
    bad = serve("--store", f"sqlite:///{tmp_path}/d", "--tokens", str(tmp_path / "t.json"))
    assert bad.returncode == 2 and "not JSON" in bad.stderr
    good = tmp_path / "good.json"
    add_token(good, "alice")
    pg = serve("--store", "postgresql://127.0.0.1:1/y", "--tokens", str(good))  # refused
    assert pg.returncode == 2 and "cannot connect" in pg.stderr
    other = serve("--store", "mysql://127.0.0.1/y", "--tokens", str(good))
    assert other.returncode == 2 and "no tenant backend serves mysql://" in other.stderr
    bad_tenant = serve("--tokens", str(tmp_path / "u.json"), "--add-token", "../x")
    assert bad_tenant.returncode == 2 and "invalid tenant name" in bad_tenant.stderr
    assert not (tmp_path / "u.json").exists()
