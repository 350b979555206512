"""The tenants' memories in one PostgreSQL database: the service's second backend.

:class:`PostgresTenants` (``"stategraph.postgres_tenants.v1"``, store URL ``postgresql://...``)
implements :class:`~stategraph.service.tenants.TenantStores` over one connection pool per
server process. Every tenant's memory is a :class:`~stategraph.store.postgres.PostgresStore` on a
pooled connection, scoped to the tenant by every statement it runs, with its own hash chain.
The workers hold nothing of a tenant between requests: any worker, on any machine, can serve
any tenant, and one that dies loses only the requests it had in hand.

A writer takes the tenant's turn for the whole request, as the SQLite backend's lock file
does: a session advisory lock on the tenant, the same key a store's write transaction locks
(advisory locks are re-entrant within a session, so the request's own commits go straight
through while other connections wait). Waiting past the busy timeout is
:class:`~stategraph.errors.StoreBusyError` (HTTP 503 with ``Retry-After``). A server, or on
Citus the worker holding the tenant's shards, that cannot be reached is
:class:`~stategraph.errors.StoreUnavailableError` (HTTP 503 too): the request wrote nothing, or
all of it if the node went away during its commit, and tenants on other workers are served
meanwhile. The lock belongs to the connection: a worker killed mid-request drops its
connection, and PostgreSQL lets go.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from stategraph.errors import StoreBusyError, StoreError, StoreUnavailableError
from stategraph.memory import Memory
from stategraph.service.errors import ServiceConfigError
from stategraph.service.settings import MemorySettings, memory_factory_for
from stategraph.service.tenant_names import check_tenant
from stategraph.store.open import split_tenant
from stategraph.store.pgdialect import is_unreachable
from stategraph.store.pgschema import ensure_schema
from stategraph.store.postgres import LOCK_SQL, PostgresStore, configure, lock_key
from stategraph.store.sqlite import SQLiteStore
from stategraph.urls import redact

__all__ = ["PostgresTenants"]


class PostgresTenants:
    """Every tenant's memory in one PostgreSQL database.

    Args:
        url: the database (``postgresql://...``); a ``tenant=`` parameter is not allowed here,
            since the tenant comes from each request's token.
        busy_timeout: seconds a write waits for its tenant's turn before
            :class:`~stategraph.errors.StoreBusyError`.
        pool_size: connections this process keeps at most (one per request at work).
        memory_factory: builds a tenant's :class:`~stategraph.memory.Memory` over its store
            (rule packs, a judge, a policy); by default, as ``settings`` say.
        settings: the rule packs, grounder and judge of every tenant's memory
            (:class:`~stategraph.service.tenants.MemorySettings`).
    """

    name = "stategraph.postgres_tenants.v1"

    def __init__(
        self,
        url: str,
        *,
        busy_timeout: float = 5.0,
        pool_size: int = 16,
        memory_factory: Callable[[SQLiteStore], Memory] | None = None,
        settings: MemorySettings | None = None,
    ) -> None:
        bare, tenant = split_tenant(url)
        self.where = redact(bare)
        if tenant is not None:
            raise StoreError(
                self.where, "the service takes each tenant from its token: drop tenant="
            )
        self._url = bare
        self.busy_timeout = busy_timeout
        self._factory = memory_factory_for(memory_factory, settings)
        try:
            with psycopg.connect(bare, autocommit=True) as conn:
                configure(conn, busy_timeout)
                ensure_schema(conn, self.where)
        except (psycopg.Error, StoreError) as exc:
            problem = redact(f"cannot connect to {self.where}: {exc}".splitlines()[0], url)
            raise ServiceConfigError("--store", problem) from exc
        self.pool = ConnectionPool(
            bare,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True},
            configure=lambda conn: configure(conn, busy_timeout),
            open=True,
            name="stategraph",
        )

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection for the block; the server or the node of a tenant that cannot
        be reached is :class:`StoreUnavailableError` (HTTP 503), not a driver's error."""
        try:
            with self.pool.connection(timeout=max(self.busy_timeout, 1.0)) as conn:
                yield conn
        except PoolTimeout as exc:
            raise StoreBusyError(self.where, self.busy_timeout) from exc
        except psycopg.Error as exc:
            if not is_unreachable(exc):
                raise
            message = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise StoreUnavailableError(self.where, redact(message, self._url)) from exc

    @contextmanager
    def _turn(self, conn: psycopg.Connection[Any], tenant: str) -> Iterator[None]:
        """Hold the tenant's turn to write, across processes, for the block."""
        try:
            conn.execute(f"SELECT pg_advisory_lock({LOCK_SQL})", lock_key(tenant))
        except psycopg.errors.LockNotAvailable as exc:
            raise StoreBusyError(f"{self.where} (tenant {tenant})", self.busy_timeout) from exc
        try:
            yield
        finally:
            if not conn.closed:
                conn.execute(f"SELECT pg_advisory_unlock({LOCK_SQL})", lock_key(tenant))

    @contextmanager
    def _lend(self, tenant: str, write: bool) -> Iterator[Memory]:
        check_tenant(tenant)
        with self._connection() as conn:
            if not write and not self._exists(conn, tenant):
                store: SQLiteStore = SQLiteStore(":memory:")  # an empty memory, never kept
                with self._factory(store, False) as mem:
                    yield mem
                return
            turn = self._turn(conn, tenant) if write else _nothing()
            with turn:
                store = PostgresStore(
                    self._url,
                    tenant,
                    conn=conn,
                    busy_timeout=self.busy_timeout,
                    create=write,
                    checked=True,
                )
                with self._factory(store, write) as mem:
                    yield mem

    def memory(self, tenant: str, *, write: bool = False) -> Any:
        """Lend the tenant's memory for one request (see ``TenantStores.memory``)."""
        return self._lend(tenant, write)

    @staticmethod
    def _exists(conn: psycopg.Connection[Any], tenant: str) -> bool:
        found = conn.execute("SELECT 1 FROM tenants WHERE tenant = %s", (tenant,))
        return found.fetchone() is not None

    def exists(self, tenant: str) -> bool:
        """True if the tenant has a store (has written something)."""
        check_tenant(tenant)
        with self._connection() as conn:
            return self._exists(conn, tenant)

    def tenants(self) -> list[str]:
        """Every tenant with a store in the database, sorted."""
        with self._connection() as conn:
            rows = conn.execute("SELECT tenant FROM tenants ORDER BY tenant").fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        """Close the pool's connections."""
        self.pool.close()


@contextmanager
def _nothing() -> Iterator[None]:
    yield
