"""The PostgreSQL store: one tenant's memory in a database that many tenants and servers share.

:class:`PostgresStore` is the SQLite store's logic over another connection: it inherits
everything :class:`~stategraph.store.SQLiteStore` does with its rows (the cone walk, subgraphs,
commits, the hash-chained log, verification and the tamper flag), and its statements run in
PostgreSQL's form with the tenant in every key (:mod:`stategraph.store.pgdialect`). What differs is
what a server database does differently from a file:

- **Opening** checks the schema (:mod:`stategraph.store.pgschema`: created or migrated once per
  database) and the tenant: with ``create``, a tenant with no store gets one (a row in
  ``tenants``); without, a missing tenant is :class:`~stategraph.errors.StoreNotFoundError`.
- **Writes of one tenant take turns.** A write transaction begins by taking the tenant's
  advisory lock (``pg_advisory_xact_lock``, released at commit or rollback, or when a killed
  server's connection drops), as SQLite's ``BEGIN IMMEDIATE`` takes the file's write lock. So a
  tenant's revisions are serialised across every process on the database and its hash chain
  stays one line, while other tenants' writers, under other locks, run in parallel. On Citus,
  where clients may write through any node and advisory locks are per node, the transaction
  also locks the tenant's row in ``tenants`` (on the one worker holding it). A lock not
  had within the busy timeout (``lock_timeout``) is :class:`~stategraph.errors.StoreBusyError`.
  :meth:`Memory.revise <stategraph.memory.Memory.revise>` reads without the lock and commits
  only if the head it started from is still the head (checked under the lock), as on SQLite.
- **Reads** run outside transactions (autocommit), each statement on what is committed, as
  reads in SQLite's WAL mode do.

The store is registered under the versioned name ``"postgres.v1"``; the URL is
``postgresql://...`` with an optional ``tenant=`` parameter (:mod:`stategraph.stores`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import psycopg

from stategraph.errors import InvalidInputError, StoreError, StoreNotFoundError
from stategraph.store.pgdialect import TenantConnection
from stategraph.store.pgschema import SCHEMA, TENANT_TABLES, ensure_schema, is_citus
from stategraph.store.sqlite import SQLiteStore
from stategraph.urls import redact

__all__ = [
    "DEFAULT_TENANT",
    "LOCK_SQL",
    "TENANT_NAME",
    "PostgresStore",
    "configure",
    "connect",
    "lock_key",
    "redact",
]

DEFAULT_TENANT = "default"
"""The tenant of a store URL that names none."""

TENANT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
"""What a tenant may be called (the service's :data:`~stategraph.service.tenants.TENANT_NAME`:
a tenant of the service is a tenant here)."""

_LOCK_SPACE = "stategraph"
"""The first key of every tenant's advisory lock (``hashtext``), the tenant the second."""

LOCK_SQL = "hashtext(%s), hashtext(%s)"
"""The arguments of a tenant's advisory lock, as SQL over :func:`lock_key`'s parameters."""


def lock_key(tenant: str) -> tuple[str, str]:
    """The parameters of a tenant's advisory lock (:data:`LOCK_SQL`): the lock a store's write
    transaction takes, and the service's writers hold for a whole request."""
    return (_LOCK_SPACE, tenant)


def connect(url: str, busy_timeout: float) -> psycopg.Connection[Any]:
    """A connection to the database of ``url`` (a ``postgresql://`` URL or a conninfo string)
    in autocommit mode, with the store's schema on its search path and the busy timeout as
    its lock timeout.

    Raises:
        StoreError: the server cannot be reached or refuses the connection.
    """
    try:
        conn = psycopg.connect(url, autocommit=True)
    except psycopg.Error as exc:
        raise StoreError(redact(url), f"cannot connect: {redact(_first_line(exc), url)}") from exc
    configure(conn, busy_timeout)
    return conn


def configure(conn: psycopg.Connection[Any], busy_timeout: float) -> None:
    """Set a connection up for the store (also for connections a pool hands out)."""
    conn.execute(f"SET search_path TO {SCHEMA}")  # a constant name
    conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{int(busy_timeout * 1000)}",))


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class PostgresStore(SQLiteStore):
    """One tenant's store in a PostgreSQL database (see the module's doc).

    Args:
        url: a ``postgresql://`` URL of the database (with ``conn``, only to name it in
            messages; its password never is).
        tenant: whose store this is (a name the service accepts: ``[a-z0-9][a-z0-9_-]*``).
        busy_timeout: seconds a write waits for the tenant's turn before
            :class:`~stategraph.errors.StoreBusyError`.
        create: create the schema and the tenant's store where missing; False refuses a
            tenant without one (:class:`~stategraph.errors.StoreNotFoundError`).
        conn: an open connection to use (from a pool); the store then does not close it.
        checked: the caller has already brought the schema up to date on this database.
    """

    name = "postgres.v1"
    reads_lean = False  # its statements are SQLite's in translation, and these have none

    def __init__(  # the parent's __init__ opens a SQLite file: replaced, not called
        self,
        url: str = "",
        tenant: str = DEFAULT_TENANT,
        *,
        busy_timeout: float = 30.0,
        create: bool = True,
        conn: psycopg.Connection[Any] | None = None,
        checked: bool = False,
    ) -> None:
        if not busy_timeout >= 0 or math.isinf(busy_timeout):
            raise InvalidInputError("store", [("busy_timeout", "must be a number of seconds >= 0")])
        if not isinstance(tenant, str) or TENANT_NAME.fullmatch(tenant) is None:
            problem = (
                "a tenant is 1 to 64 of a-z, 0-9, '_' and '-', starting with a letter or digit"
            )
            raise InvalidInputError("store", [("tenant", problem)])
        self.tenant = tenant
        where = redact(url) if url else "postgresql"
        self.path = f"{where} (tenant {tenant})"
        self._savepoints = 0
        self.busy_timeout = busy_timeout
        self._owned = conn is None
        self._citus: bool | None = None
        pg = connect(url, busy_timeout) if conn is None else conn
        # It stands in for the SQLite connection the inherited logic and the store's modules
        # run their statements on (stategraph.store.pgdialect), which the parent types as SQLite's.
        self.conn = TenantConnection(pg, tenant, self.path, busy_timeout)  # type: ignore[assignment]
        try:
            if not checked:
                ensure_schema(pg, where, create)
            self._open_tenant(create)
        except BaseException:
            if self._owned:
                pg.close()
            raise

    @property
    def pg(self) -> psycopg.Connection[Any]:
        """The underlying psycopg connection."""
        return self._tc.pg

    @property
    def _tc(self) -> TenantConnection:
        conn = self.conn
        assert isinstance(conn, TenantConnection)
        return conn

    def _open_tenant(self, create: bool) -> None:
        with self._tc.errors():
            found = self.pg.execute(
                "SELECT 1 FROM tenants WHERE tenant = %s", (self.tenant,)
            ).fetchone()
            if found is not None:
                return
            if not create:
                raise StoreNotFoundError(self.path)
            self.pg.execute(
                "INSERT INTO tenants (tenant) VALUES (%s) ON CONFLICT DO NOTHING", (self.tenant,)
            )

    def ensure_tables(self, schema: str) -> None:
        """Nothing to do: every table of the store's modules is part of the PostgreSQL schema
        (:mod:`stategraph.store.pgschema`), created with the database's first store."""

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """A write transaction holding the tenant's advisory lock (a savepoint inside one
        already open on this connection)."""
        tc = self._tc
        if tc.in_transaction:
            with tc.errors(), self.pg.transaction():
                yield
            return
        with tc.errors(), self.pg.transaction():
            self.pg.execute(f"SELECT pg_advisory_xact_lock({LOCK_SQL})", lock_key(self.tenant))
            if self._on_citus():
                # Advisory locks are per node, and Citus lets clients write through any node:
                # the tenant's row, on the one worker that holds it, is the lock they share.
                self.pg.execute(
                    "SELECT 1 FROM tenants WHERE tenant = %s FOR UPDATE", (self.tenant,)
                )
            yield

    def _on_citus(self) -> bool:
        """Whether the database is distributed (Citus), asked once per store."""
        if self._citus is None:
            self._citus = is_citus(self.pg)
        return self._citus

    def _select(self, sql: str, ids: Iterable[str]) -> Iterator[tuple[Any, ...]]:
        """Run ``sql`` over ids: one statement, the ids as one array."""
        unique = sorted(set(ids))
        if not unique:
            return iter(())
        rows: Iterator[tuple[Any, ...]] = iter(self._tc.ids(sql, unique))
        return rows

    def _data_version(self) -> int | None:
        """None: PostgreSQL has no counter of other sessions' commits, so nothing a commit
        kept in this process stands in for what the tables hold."""
        return None

    def postings(self, term: str, limit: int) -> list[tuple[int, str, int]]:
        """The newest ``limit`` memories carrying a term, joined to their documents in one
        statement (the SQLite store's cache of documents is for a file only its own writers
        roll back; a tenant here can be purged and written again by another server)."""
        sql = (
            "SELECT d.seq, d.state_id, d.size FROM terms t JOIN docs d ON d.seq = t.doc "
            "WHERE t.term = ? ORDER BY t.doc DESC LIMIT ?"
        )
        return [(int(a), str(b), int(c)) for a, b, c in self.conn.execute(sql, (term, limit))]

    def open_into(self, heads: Sequence[str]) -> dict[str, set[str]]:
        """For each head, the states whose edges into it are open (the pairs looked up in
        one statement, as two arrays)."""
        pairs = [(src, h) for h, cited in self.cited_by(heads).items() for src in sorted(cited)]
        out: dict[str, set[str]] = {}
        if not pairs:
            return out
        sql = (
            "SELECT e.src, e.head FROM unnest(%s::text[], %s::text[]) AS p(src, head) "
            "JOIN edges e ON e.tenant = %s AND e.src = p.src AND e.head = p.head "
            "WHERE e.follow = 1"
        )
        with self._tc.errors():
            rows = self.pg.execute(
                sql, ([p[0] for p in pairs], [p[1] for p in pairs], self.tenant)
            ).fetchall()
        for src, head in rows:
            out.setdefault(head, set()).add(src)
        return out

    def justification_rows(self, keys: Sequence[tuple[str, str, str]]) -> list[tuple[Any, ...]]:
        """The stored ``justifications`` rows with these keys (three arrays, one statement, by
        the primary key's ``ident``)."""
        if not keys:
            return []
        sql = (
            "SELECT j.head, j.premises, j.unless, j.origin, j.extra "
            "FROM unnest(%s::text[], %s::text[], %s::text[]) AS k(head, premises, unless) "
            "JOIN justifications j ON j.tenant = %s AND j.head = k.head "
            "AND j.ident = md5(k.premises) || md5(k.unless) "
            "AND j.premises = k.premises AND j.unless = k.unless"
        )
        columns = ([k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys])
        with self._tc.errors():
            return list(self.pg.execute(sql, (*columns, self.tenant)).fetchall())

    def edge_rows(self, pairs: Sequence[tuple[str, str]]) -> Iterator[tuple[Any, ...]]:
        """The ``edges`` rows ``(src, head, follow)`` of these pairs (two arrays, one
        statement)."""
        if not pairs:
            return iter(())
        sql = (
            "SELECT e.src, e.head, e.follow FROM unnest(%s::text[], %s::text[]) AS p(src, head) "
            "JOIN edges e ON e.tenant = %s AND e.src = p.src AND e.head = p.head"
        )
        with self._tc.errors():
            rows = self.pg.execute(
                sql, ([p[0] for p in pairs], [p[1] for p in pairs], self.tenant)
            ).fetchall()
        return iter(rows)

    def now(self) -> datetime:
        """The database's clock (``clock_timestamp()``, read under the tenant's lock): the
        writers of a tenant may run on several hosts, whose clocks differ, but read this one."""
        with self._tc.errors():
            (now,) = self.pg.execute("SELECT clock_timestamp()").fetchall()[0]
        assert isinstance(now, datetime)  # with its zone: stamp() turns it to UTC
        return now

    @contextmanager
    def _snapshot(self, deep: bool) -> Iterator[None]:
        """A deep check reads the log and the tables in one read-only ``REPEATABLE READ``
        transaction: as of one commit, without holding up the tenant's writers."""
        tc = self._tc
        if not deep or tc.in_transaction:
            yield
            return
        with tc.errors(), self.pg.transaction():
            self.pg.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield

    def purge(self) -> None:
        """Delete this tenant's store: every row of every table (for scratch tenants, such
        as the benchmark's, and tests). The store cannot be used afterwards."""
        with self._locked():
            for table in TENANT_TABLES:
                self.pg.execute(f"DELETE FROM {table} WHERE tenant = %s", (self.tenant,))

    def close(self) -> None:
        """Close the connection (one lent by a pool is left open for the pool)."""
        if self._owned:
            self.pg.close()
