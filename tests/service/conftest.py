"""Fixtures of the service tests: tokens, tenant stores, the app in a test client, and the
real app served by uvicorn on loopback."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from stategraph.service.auth import Tokens, add_token
from stategraph.service.http import create_app
from stategraph.service.tenants import SQLiteTenants


@dataclass
class Setup:
    """A data folder, a tokens file with a token per tenant, and the tenants' stores."""

    folder: Path
    tokens_file: Path
    token: dict[str, str]
    tenants: SQLiteTenants

    def headers(self, tenant: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token[tenant]}"}

    def app(self, **options: int) -> FastAPI:
        return create_app(self.tenants, Tokens.from_file(self.tokens_file), **options)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    tokens_file = tmp_path / "tokens.json"
    token = {t: add_token(tokens_file, t) for t in ("alice", "bob")}
    tenants = SQLiteTenants(tmp_path / "data", busy_timeout=0.2)
    try:
        yield Setup(tmp_path / "data", tokens_file, token, tenants)
    finally:
        tenants.close()


@pytest.fixture
def client(setup: Setup) -> Iterator[TestClient]:
    with TestClient(setup.app()) as c:
        yield c


class LiveServer:
    """The app served by uvicorn in a thread, on a socket bound to a free loopback port before
    the server starts (so no other process can take the port in between)."""

    def __init__(self, app: FastAPI) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(app, log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])), daemon=True
        )

    def __enter__(self) -> LiveServer:
        self.thread.start()
        with httpx.Client(base_url=self.url) as c:
            for _ in range(500):
                try:
                    if c.get("/healthz").status_code == 200:
                        return self
                except httpx.TransportError:
                    pass
                time.sleep(0.01)
        raise RuntimeError("the server did not start")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def live(setup: Setup) -> Iterator[LiveServer]:
    with LiveServer(setup.app()) as server:
        yield server
