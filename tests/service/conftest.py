"""Fixtures of the service tests: tokens, tenant stores, the app in a test client, and the
real app served by uvicorn on loopback."""

from __future__ import annotations

import asyncio
import fcntl
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import uvicorn
from backends import citus_url, postgres_url
from fastapi import FastAPI
from fastapi.testclient import TestClient

from stategraph.service.auth import Tokens, add_token
from stategraph.service.http import create_app
from stategraph.service.load import scratch_database
from stategraph.service.tenants import SQLiteTenants, TenantStores
from stategraph.store.postgres import LOCK_SQL, lock_key


@dataclass
class Setup:
    """A tokens file with a token per tenant, and the tenants' stores: a data folder of SQLite
    files, or a PostgreSQL database of its own (``backend``)."""

    folder: Path
    tokens_file: Path
    token: dict[str, str]
    tenants: TenantStores
    backend: str = "sqlite"
    database: str = ""
    """The PostgreSQL database's URL (``postgres`` only)."""

    @property
    def location(self) -> str:
        """Where the stores are: what no answer may show."""
        return str(self.folder) if self.backend == "sqlite" else self.database

    def headers(self, tenant: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token[tenant]}"}

    def app(self, **options: int) -> FastAPI:
        return create_app(self.tenants, Tokens.from_file(self.tokens_file), **options)

    @contextmanager
    def another_writer(self, tenant: str, whole_request: bool = False) -> Iterator[None]:
        """Another process writes for ``tenant`` during the block: it holds the store's write
        lock (SQLite) or the tenant's advisory lock (PostgreSQL); with ``whole_request``, it
        holds the tenant's turn as a server worker does (SQLite: the lock file)."""
        if self.backend == "postgres":
            with psycopg.connect(self.database, autocommit=True) as conn:
                conn.execute(f"SELECT pg_advisory_lock({LOCK_SQL})", lock_key(tenant))
                yield
            return
        if whole_request:
            turn = os.open(self.folder / f"{tenant}.lock", os.O_RDWR | os.O_CREAT)
            fcntl.flock(turn, fcntl.LOCK_EX)
            try:
                yield
            finally:
                os.close(turn)
            return
        assert isinstance(self.tenants, SQLiteTenants)
        holder = sqlite3.connect(self.tenants.path(tenant), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            holder.execute("ROLLBACK")
            holder.close()

    def tamper(self, tenant: str, seq: int) -> None:
        """Change the time of a tenant's log entry behind the store's back."""
        at = "2000-01-01T00:00:00+00:00"
        if self.backend == "postgres":
            with psycopg.connect(self.database, autocommit=True) as conn:
                conn.execute(
                    "UPDATE stategraph.revisions SET at = %s WHERE tenant = %s AND seq = %s",
                    (at, tenant, seq),
                )
            return
        assert isinstance(self.tenants, SQLiteTenants)
        with sqlite3.connect(self.tenants.path(tenant)) as db:
            db.execute("UPDATE revisions SET at = ? WHERE seq = ?", (at, seq))


@pytest.fixture(scope="session")
def service_database() -> Iterator[str]:
    """A PostgreSQL database for the service tests alone (emptied before each test)."""
    with scratch_database(postgres_url(), prefix="sg_service") as database:
        yield database


@pytest.fixture(scope="session")
def citus_service_database() -> Iterator[str]:
    """A Citus database for the service tests of the modules marked ``citus``: made on the
    coordinator across its workers (emptied before each test)."""
    with scratch_database(citus_url(), prefix="sg_service") as database:
        yield database


def _empty(database: str) -> None:
    """Delete every tenant's rows: a ``TRUNCATE`` on PostgreSQL; on Citus, each tenant's rows
    by name (router statements, where a ``TRUNCATE`` locks every shard of every table and
    takes seconds)."""
    from stategraph.store.pgschema import TENANT_TABLES, is_citus

    with psycopg.connect(database, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('stategraph.tenants')").fetchone() == (None,):
            return
        if not is_citus(conn):
            conn.execute(f"TRUNCATE {', '.join('stategraph.' + t for t in TENANT_TABLES)}")
            return
        found = conn.execute(
            "SELECT tenant FROM stategraph.tenants UNION SELECT tenant FROM stategraph.meta"
        ).fetchall()
        for (tenant,) in found:
            with conn.transaction():
                for table in TENANT_TABLES:
                    conn.execute(f"DELETE FROM stategraph.{table} WHERE tenant = %s", (tenant,))


@pytest.fixture
def setup(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Setup]:
    """The tenants' stores on each backend in turn (on Citus too, in a module marked
    ``citus``)."""
    tokens_file = tmp_path / "tokens.json"
    token = {t: add_token(tokens_file, t) for t in ("alice", "bob")}
    database = ""
    tenants: TenantStores
    if backend == "postgres":
        callspec = getattr(request.node, "callspec", None)
        on_citus = callspec is not None and callspec.params.get("backend") == "citus"
        database = request.getfixturevalue(
            "citus_service_database" if on_citus else "service_database"
        )
        _empty(database)
        from stategraph.service.pg_tenants import PostgresTenants

        tenants = PostgresTenants(database, busy_timeout=0.2)
    else:
        tenants = SQLiteTenants(tmp_path / "data", busy_timeout=0.2)
    try:
        yield Setup(tmp_path / "data", tokens_file, token, tenants, backend, database)
    finally:
        tenants.close()


@pytest.fixture
def client(setup: Setup) -> Iterator[TestClient]:
    with TestClient(setup.app()) as c:
        yield c


class LiveServer:
    """The app served by uvicorn in a thread, on a socket bound to a free loopback port before
    the server starts (so no other process can take the port in between)."""

    def __init__(self, app: FastAPI, **options: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.port = int(self.sock.getsockname()[1])
        config = uvicorn.Config(app, log_level="warning", access_log=False, **options)
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
