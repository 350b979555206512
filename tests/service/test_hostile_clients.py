"""Clients that hold connections or ask for everything at once (issue 22, item 6).

A flood of idle connections past the server's descriptor limit no longer locks a request out
(a real ``stategraph serve`` process, started with a low limit); a request whose headers or
body never finish is cut off; and a listing over large states comes in pages under a byte
cap, each naming the next. Servers run on loopback; every wait is bounded, and a bound is
never the claim (no timing is asserted).
"""

from __future__ import annotations

import os
import resource
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import LiveServer, Setup

WAIT = 30.0
"""Seconds to wait for what must happen (a hang guard, not a timing)."""
FDS = 160
"""The server's descriptor limit in the flood test (its default cap is a quarter of it)."""
IDLE = 200
"""Idle connections opened: more than the server has descriptors."""
PARTIAL = b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
"""A request line and one header, and then nothing."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _closed_by_server(sock: socket.socket, wait: float = WAIT) -> bool:
    """True once the server closes ``sock`` (end of file or a reset), within ``wait``; what
    it sends before (the rest of an answer) is read and dropped."""
    end = time.monotonic() + wait
    while True:
        ready, _, _ = select.select([sock], [], [], max(end - time.monotonic(), 0))
        if not ready:
            return False
        try:
            if sock.recv(65536) == b"":
                return True
        except ConnectionError:
            return True


def _limit_descriptors() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FDS, FDS))


@pytest.fixture
def limited_server(tmp_path: Path) -> Iterator[tuple[str, str, subprocess.Popen[str]]]:
    """``stategraph serve`` with at most :data:`FDS` file descriptors, and a token."""
    tokens = tmp_path / "tokens.json"
    made = subprocess.run(
        [sys.executable, "-m", "stategraph", "serve", "--tokens", str(tokens), "--add-token", "a"],
        capture_output=True,
        text=True,
        check=True,
    )
    port = _free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "stategraph", "serve", "--store", f"sqlite:///{tmp_path}/d"),
            *("--tokens", str(tokens), "--port", str(port), "--no-access-log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limit_descriptors,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        yield url, made.stdout.strip(), server
    finally:
        server.terminate()
        server.wait(timeout=WAIT)


def test_idle_connections_past_the_descriptor_limit_do_not_lock_a_request_out(
    limited_server: tuple[str, str, subprocess.Popen[str]],
) -> None:
    """Before: the idle connections took every descriptor, accepting failed ("Too many open
    files") and the request below timed out."""
    url, token, server = limited_server
    port = int(url.rsplit(":", 1)[1])
    idle = []
    try:
        for _ in range(IDLE):
            sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
            sock.sendall(PARTIAL)
            idle.append(sock)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=url, headers=headers, timeout=WAIT) as c:
            assert c.post("/v1/states", json={"id": "a", "text": "still served"}).status_code == 201
            assert c.get("/v1/head").json()["seq"] == 1
        # the server held at most its cap (FDS // 4) of them: it closed the others
        closed = sum(_closed_by_server(s, wait=0 if i else WAIT) for i, s in enumerate(idle))
        assert closed >= IDLE - FDS // 4
    finally:
        for sock in idle:
            sock.close()
        server.terminate()
        _, err = server.communicate(timeout=WAIT)
    assert "Too many open files" not in err


@pytest.fixture
def guarded(setup: Setup) -> Iterator[LiveServer]:
    """The app behind the connection guards, with a header deadline of one second."""
    from stategraph.service.guards import uvicorn_options

    app = setup.app(body_timeout=1)
    with LiveServer(app, **uvicorn_options(header_timeout=1.0, max_connections=50)) as server:
        yield server


def _connect(server: LiveServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)


def test_a_request_whose_headers_never_end_is_cut_off(guarded: LiveServer) -> None:
    partial = _connect(guarded)
    partial.sendall(PARTIAL)
    silent = _connect(guarded)
    kept = _connect(guarded)  # one whole request answered, then a partial one
    kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert b" 200 " in kept.recv(65536)
    kept.sendall(b"GET /healthz HTTP/1.1\r\n")
    drip = _connect(guarded)  # a byte at a time, each within the keep-alive time
    try:
        for sock in (partial, silent, kept):
            assert _closed_by_server(sock)
        for byte in PARTIAL * 20:
            try:
                drip.sendall(bytes([byte]))
            except ConnectionError:
                break
            ready, _, _ = select.select([drip], [], [], 0.2)
            if ready:
                break
        assert _closed_by_server(drip)
    finally:
        for sock in (partial, silent, kept, drip):
            sock.close()


def test_a_body_sent_a_byte_at_a_time_gets_408(guarded: LiveServer, setup: Setup) -> None:
    sock = _connect(guarded)
    try:
        sock.sendall(
            b"POST /v1/states HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Authorization: Bearer {setup.token['alice']}\r\n".encode()
            + b"Content-Length: 100\r\n\r\n"
            + b'{"id": '
        )
        answer = b""
        while chunk := sock.recv(65536):  # the server closes the connection after it
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"RequestTimeoutError" in answer
    finally:
        sock.close()
    with httpx.Client(base_url=guarded.url, headers=setup.headers("alice")) as c:
        assert c.get("/v1/states").json() == []


PAGE = 1 << 20
BIG = 300_000


def _pages(c: httpx.Client, path: str) -> Iterator[httpx.Response]:
    url: str | None = path
    while url is not None:
        r = c.get(url)
        assert r.status_code == 200, r.text
        yield r
        url = r.links.get("next", {}).get("url")


def test_a_listing_over_large_states_comes_in_pages_under_the_byte_cap(setup: Setup) -> None:
    """Before: ``GET /v1/states?limit=10000`` read every state and answered them all in one
    body (135 MB for 150 states of 900 KB)."""
    app = setup.app(max_page=PAGE)
    with (
        LiveServer(app) as server,
        httpx.Client(base_url=server.url, headers=setup.headers("alice"), timeout=WAIT) as c,
    ):
        ids = [f"s{i}" for i in range(8)]
        for i in ids:
            assert c.post("/v1/states", json={"id": i, "text": "x" * BIG}).status_code == 201
        for path, key in [("/v1/states?limit=10000", "state"), ("/v1/history?limit=1000", "")]:
            pages = list(_pages(c, path))
            assert len(pages) > 1, path
            for page in pages:
                assert len(page.content) <= PAGE + BIG + 10_000, (path, len(page.content))
            seen = [item for page in pages for item in page.json()]
            if key:
                assert [s[key]["id"] for s in seen] == ids
            else:
                assert [e["seq"] for e in seen] == list(range(1, len(ids) + 1))
        small = c.get("/v1/states", params={"limit": 3})
        assert [s["state"]["id"] for s in small.json()] == ids[:3]
        assert "after=s2" in small.links["next"]["url"]
        last = c.get("/v1/states", params={"after": "s6"})
        assert [s["state"]["id"] for s in last.json()] == ["s7"]
        assert "next" not in last.links


def test_the_cli_offers_the_guards() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "stategraph", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    for option in ("--header-timeout", "--max-connections", "--max-page"):
        assert option in done.stdout
