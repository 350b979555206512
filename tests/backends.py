"""Both store backends for the tests: a SQLite file, or a tenant of a real PostgreSQL server.

A test that takes the ``place`` fixture runs once per backend (``[sqlite]``, ``[postgres]``).
The PostgreSQL runs need ``STATEGRAPH_TEST_POSTGRES`` (a ``postgresql://`` URL of a server the
tests may write to; ``.ci/run`` starts a throwaway cluster and sets it): without it they skip,
saying so, except under CI, where a missing server is a failure rather than a silent skip.

A module marked ``pytest.mark.citus`` runs a third time, ``[citus]``, on the coordinator of a
real Citus cluster named by ``STATEGRAPH_TEST_CITUS`` (``.ci/citus start DIR`` prints it), with
the same rules for skipping. Such a run is a PostgreSQL run in every other way (the backend is
``"postgres"``, :func:`postgres_url` gives the coordinator): the store distributes its tables
there by tenant, and the same tests must pass. A small set of modules is marked, to keep CI short;
a test of such a module marked ``pytest.mark.citus(skip="why")`` skips its Citus run, saying why.

Each PostgreSQL place is a fresh tenant, deleted after the test, so tests share the server's
database without seeing each other's rows (which is also what the backend promises).
A *tamperer* edits the log behind the store's back with plain SQL, as someone with write access
to the file or the database would: :meth:`Place.log_rows`, :meth:`Place.update_log`.
"""

from __future__ import annotations

import itertools
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from stategraph import Memory
from stategraph.store.open import open_store
from stategraph.store.sqlite import SQLiteStore

POSTGRES_ENV = "STATEGRAPH_TEST_POSTGRES"
CITUS_ENV = "STATEGRAPH_TEST_CITUS"
BACKENDS = ("sqlite", "postgres")
LOG_COLUMNS = ("seq", "at", "change", "report", "config", "prev_hash", "hash", "calls")
_PACKED = ("change", "report", "calls")


def postgres_url() -> str:
    """The test server's URL, or skip (fail under CI) without one."""
    url = os.environ.get(POSTGRES_ENV, "")
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{POSTGRES_ENV} is not set under CI: .ci/run starts a cluster for it")
        pytest.skip(
            f"needs PostgreSQL: set {POSTGRES_ENV}=postgresql://... "
            "(bash .ci/postgres start DIR prints it)"
        )
    return url


def citus_url() -> str:
    """The Citus coordinator's URL, or skip (fail under CI) without one."""
    url = os.environ.get(CITUS_ENV, "")
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{CITUS_ENV} is not set under CI: .ci/run starts a Citus cluster for it")
        pytest.skip(
            f"needs a Citus cluster: set {CITUS_ENV}=postgresql://... "
            "(bash .ci/citus build; bash .ci/citus start DIR prints it)"
        )
    return url


def _pg() -> Any:
    import psycopg

    conn = psycopg.connect(postgres_url(), autocommit=True)
    conn.execute("SET search_path TO stategraph")
    return conn


_counter = itertools.count()


def fresh_tenant(label: str = "t") -> str:
    """A tenant name no other test uses (letters, digits and '-' only, so that a prefix of it
    is a plain ``LIKE`` pattern)."""
    return f"{label}-{os.getpid()}-{next(_counter)}-{uuid.uuid4().hex[:6]}".replace("_", "-")


@dataclass
class Place:
    """Where one test's store lives.

    Attributes:
        backend: ``"sqlite"`` or ``"postgres"``.
        url: what ``Memory(url)`` and ``open_store(url)`` open: the file's path, or the server's
            URL with ``?tenant=...``.
        tenant: the PostgreSQL tenant (None for SQLite).
    """

    backend: str
    url: str
    tenant: str | None = None
    _conns: list[Any] = field(default_factory=list)

    @property
    def path(self) -> Path:
        """The SQLite file (SQLite places only)."""
        assert self.backend == "sqlite"
        return Path(self.url)

    def open(self, **options: Any) -> SQLiteStore:
        """Open the store (``busy_timeout``, ``create``)."""
        return open_store(self.url, **options)

    def memory(self, **options: Any) -> Memory:
        """A :class:`Memory` over the store."""
        return Memory(self.url, **options)

    def sibling(self, label: str) -> Place:
        """Another store of the same backend, beside this one."""
        if self.backend == "sqlite":
            return Place("sqlite", str(self.path.with_name(f"{label}.db")))
        tenant = f"{self.tenant}-{label}"  # dropped with this place (by prefix)
        return Place("postgres", _with_tenant(postgres_url(), tenant), tenant, self._conns)

    def copy_to(self, other: Place) -> None:
        """Copy this store, whole, to ``other`` (which must not exist yet)."""
        if self.backend == "sqlite":
            shutil.copy(self.path, other.path)
            return
        conn = self._conn()
        from stategraph.store.pgschema import TENANT_TABLES

        for table in TENANT_TABLES:
            cols = [
                r[0]
                for r in conn.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                    "'stategraph' AND table_name = %s AND is_generated = 'NEVER' "
                    "AND column_name <> 'tenant' ORDER BY ordinal_position",
                    (table,),
                )
            ]
            listed = ", ".join(cols)
            conn.execute(
                f"INSERT INTO {table} (tenant, {listed}) SELECT %s, {listed} FROM {table} "
                "WHERE tenant = %s",
                (other.tenant, self.tenant),
            )

    # ---- a tamperer's plain SQL -----------------------------------------------------------

    def _conn(self) -> Any:
        if not self._conns:
            self._conns.append(_pg())
        return self._conns[0]

    def log_rows(self) -> list[dict[str, Any]]:
        """The log's rows as stored: a short column as text, a compressed one as bytes."""
        if self.backend == "sqlite":
            found = sqlite_query(self.path, f"SELECT {', '.join(LOG_COLUMNS)} FROM revisions")
        else:
            found = self._conn().execute(
                f"SELECT {', '.join(LOG_COLUMNS)} FROM revisions WHERE tenant = %s",
                (self.tenant,),
            )
        rows = [dict(zip(LOG_COLUMNS, r, strict=True)) for r in found]
        if self.backend == "postgres":
            for r in rows:
                for c in _PACKED:
                    r[c] = _stored(r[c])
        return sorted(rows, key=lambda r: r["seq"])

    def log_row(self, seq: int) -> dict[str, Any]:
        (found,) = [r for r in self.log_rows() if r["seq"] == seq]
        return found

    def update_log(self, seq: int, /, **columns: Any) -> None:
        """Set columns of one log row (texts and bytes as :meth:`log_rows` gives them)."""
        sets = ", ".join(f"{c} = ?" for c in columns)
        if self.backend == "sqlite":
            statement = f"UPDATE revisions SET {sets} WHERE seq = ?"
            sqlite_execute(self.path, statement, *columns.values(), seq)
            return
        values = [_bytea(v) if c in _PACKED else v for c, v in columns.items()]
        self._conn().execute(
            f"UPDATE revisions SET {sets.replace('?', '%s')} WHERE tenant = %s AND seq = %s",
            (*values, self.tenant, seq),
        )

    def delete_log(self, seqs: Iterable[int]) -> None:
        """Remove log entries."""
        wanted = sorted(seqs)
        if self.backend == "sqlite":
            marks = ",".join("?" * len(wanted))
            sqlite_execute(self.path, f"DELETE FROM revisions WHERE seq IN ({marks})", *wanted)
            return
        self._conn().execute(
            "DELETE FROM revisions WHERE tenant = %s AND seq = ANY(%s)", (self.tenant, wanted)
        )

    def clear_tamper_flags(self) -> None:
        """Remove the flags a failed verification left (as an editor of ``meta`` could)."""
        if self.backend == "sqlite":
            sqlite_execute(self.path, "DELETE FROM meta WHERE key LIKE 'log:%'")
            return
        self._conn().execute(
            "DELETE FROM meta WHERE tenant = %s AND key LIKE 'log:%%'", (self.tenant,)
        )

    def edit(self, statement: str, *args: Any) -> None:
        """Run one ``UPDATE ... WHERE`` or ``DELETE FROM ... WHERE`` on the store's tables with
        plain SQL (``?`` placeholders), as an editor of the file or the database would; on
        PostgreSQL, limited to this place's tenant."""
        if self.backend == "sqlite":
            sqlite_execute(self.path, statement, *args)
            return
        assert " WHERE " in statement, statement
        pg = statement.replace("%", "%%").replace("?", "%s") + " AND tenant = %s"
        self._conn().execute(pg, (*args, self.tenant))

    def dump(self) -> list[str]:
        """Every row of the store, as text, sorted (to compare a store before and after)."""
        if self.backend == "sqlite":
            import sqlite3

            conn = sqlite3.connect(self.path)
            try:
                return list(conn.iterdump())
            finally:
                conn.close()
        from stategraph.store.pgschema import TENANT_TABLES

        out: list[str] = []
        conn = self._conn()
        for table in TENANT_TABLES:
            for row in conn.execute(f"SELECT * FROM {table} WHERE tenant = %s", (self.tenant,)):
                out.append(f"{table}: {row!r}")
        return sorted(out)

    def drop(self) -> None:
        """Delete a PostgreSQL place's rows and close the tamperer's connection."""
        if self.backend == "postgres" and self.tenant is not None:
            from stategraph.store.pgschema import TENANT_TABLES

            conn = self._conn()
            # The tenants first (this one and its siblings), then each one's rows by its exact
            # name: on Citus a statement naming one tenant runs on one shard, where a LIKE
            # would run on every shard of every table.
            found = {self.tenant}
            for table in ("tenants", "meta"):
                rows = conn.execute(
                    f"SELECT DISTINCT tenant FROM {table} WHERE tenant LIKE %s",
                    (self.tenant + "%",),
                )
                found.update(r[0] for r in rows)
            with conn.transaction():
                for tenant in sorted(found):
                    for table in TENANT_TABLES:
                        conn.execute(f"DELETE FROM {table} WHERE tenant = %s", (tenant,))
        while self._conns:
            self._conns.pop().close()


def _stored(value: Any) -> Any:
    """A ``bytea`` log column as SQLite would hold it: compressed bytes, or text."""
    value = bytes(value)
    return value if value[:1] == b"\x01" else value.decode("utf-8")


def _bytea(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _with_tenant(url: str, tenant: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}tenant={tenant}"


def sqlite_execute(path: Path, statement: str, *args: Any) -> None:
    """Run one statement on the file with plain ``sqlite3`` and commit it."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        conn.execute(statement, args)
        conn.commit()
    finally:
        conn.close()


def sqlite_query(path: Path, statement: str, *args: Any) -> list[tuple[Any, ...]]:
    """The rows of one query on the file, read with plain ``sqlite3``."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        return list(conn.execute(statement, args))
    finally:
        conn.close()


def make_place(backend: str, folder: Path, label: str = "m") -> Place:
    """A new, empty place of a backend (skips a PostgreSQL one without a server)."""
    if backend == "sqlite":
        return Place("sqlite", str(folder / f"{label}.db"))
    tenant = fresh_tenant(label)
    return Place("postgres", _with_tenant(postgres_url(), tenant), tenant)


def parametrize_backends(metafunc: pytest.Metafunc) -> None:
    """Run a test that takes ``backend`` (or ``place``) on each backend: also on Citus when its
    module (or class, or itself) is marked ``citus`` (``pytest_generate_tests`` calls this)."""
    if "backend" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("citus")
    if marker is None:
        metafunc.parametrize("backend", BACKENDS, indirect=True)
        return
    skip = marker.kwargs.get("skip")  # a test's own @pytest.mark.citus(skip="why") keeps it off
    citus = pytest.param("citus", marks=pytest.mark.skip(reason=skip)) if skip else "citus"
    metafunc.parametrize("backend", [*BACKENDS, citus], indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each store backend in turn; Citus is PostgreSQL at the coordinator's URL."""
    name: str = request.param
    if name == "postgres":
        postgres_url()
    if name == "citus":
        monkeypatch.setenv(POSTGRES_ENV, citus_url())
        return "postgres"
    return name


@pytest.fixture
def place(backend: str, tmp_path: Path) -> Iterator[Place]:
    """A new, empty store's place, on each backend in turn."""
    found = make_place(backend, tmp_path)
    try:
        yield found
    finally:
        found.drop()
