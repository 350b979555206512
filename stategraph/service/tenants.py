"""One memory per tenant, behind a small interface that a second backend can implement.

A *tenant* is whoever owns a memory: a user, or an agent. The service never touches a store
directly; it asks a :class:`TenantStores` to lend it a tenant's
:class:`~stategraph.memory.Memory` for one request, and gives it back after. So the HTTP API and
the MCP server stay as they are when the backend changes: a PostgreSQL backend (issue 16,
item 1) implements the same four members, with the tenant in every key and its revisions
serialised by a lock in the database.

The backend here, :class:`SQLiteTenants` (``"stategraph.sqlite_tenants.v1"``), keeps each
tenant's memory in its own SQLite file under one folder (store URL ``sqlite:///DIR``), which
isolates tenants by construction: no query of one tenant's store can reach another's rows,
and each tenant has its own hash-chained log. SQLite already serialises the writers of one
file across processes, and :meth:`Memory.revise <stategraph.memory.Memory.revise>` recomputes
a revision whose store changed underneath it, so several server processes can share the folder.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any, Protocol

from stategraph.errors import StoreBusyError
from stategraph.memory import Memory
from stategraph.service.errors import ServiceConfigError
from stategraph.service.settings import MemorySettings, memory_factory_for
from stategraph.service.tenant_names import TENANT_NAME, check_tenant
from stategraph.store.sqlite import SQLiteStore

__all__ = [
    "BACKENDS",
    "TENANT_NAME",
    "MemorySettings",
    "SQLiteTenants",
    "TenantStores",
    "check_tenant",
    "open_tenants",
]


class TenantStores(Protocol):
    """Where the tenants' memories live: what the HTTP API and the MCP server need of a backend.

    Attributes:
        name: the backend's versioned name (``"stategraph.sqlite_tenants.v1"``).
    """

    name: str

    def memory(self, tenant: str, *, write: bool = False) -> AbstractContextManager[Memory]:
        """Lend a tenant's memory for one request; it is closed (or pooled) on exit.

        With ``write``, the tenant's store is created if it has none yet. Without, a tenant
        with no store gets an empty memory that is not kept: reading never creates anything.
        The caller serialises the writes of one tenant within its process
        (:class:`~stategraph.service.runner.TenantRunner`); across processes the store does.

        Raises:
            InvalidTenantError: the tenant name is not valid.
        """
        ...

    def exists(self, tenant: str) -> bool:
        """True if the tenant has a store (has written something)."""
        ...

    def tenants(self) -> list[str]:
        """Every tenant that has a store, sorted."""
        ...

    def close(self) -> None:
        """Release whatever the backend holds open (connections, file handles)."""
        ...


class _Keepers:
    """One idle connection per recently used tenant store, so that the store's WAL survives
    between requests.

    SQLite checkpoints and deletes a WAL file when its last connection closes: a request that
    opened a store, revised it and closed it paid for a checkpoint every time (14 ms a small
    revision here, instead of 0.9 ms with another connection open). A keeper holds no
    transaction, so it never delays a checkpoint; the least recently used is closed past
    ``size``.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._open: OrderedDict[str, sqlite3.Connection] = OrderedDict()
        self._lock = threading.Lock()

    def touch(self, path: Path) -> None:
        key = str(path)
        with self._lock:
            if key in self._open:
                self._open.move_to_end(key)
                return
        conn = sqlite3.connect(
            f"{path.absolute().as_uri()}?mode=ro", uri=True, check_same_thread=False
        )
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # maps the WAL index
        with self._lock:
            if key in self._open:  # another thread got there first
                conn.close()
                return
            self._open[key] = conn
            while len(self._open) > self.size:
                self._open.popitem(last=False)[1].close()

    def close(self) -> None:
        with self._lock:
            while self._open:
                self._open.popitem()[1].close()


class SQLiteTenants:
    """Each tenant's memory in its own SQLite file: ``DIR/<tenant>.db``.

    Args:
        folder: where the tenant stores are; created (readable by its owner only) if missing.
        busy_timeout: seconds a write waits for another process's lock on the same tenant's
            store before :class:`~stategraph.errors.StoreBusyError` (the HTTP API answers 503
            with ``Retry-After``). Short, because a client waits that long for its answer.
        keep_open: how many tenant stores keep an idle connection (see :class:`_Keepers`).
        memory_factory: builds a tenant's :class:`~stategraph.memory.Memory` over its store
            (rule packs, a judge, a policy); by default, as ``settings`` say.
        settings: the rule packs, grounder and judge of every tenant's memory (by default
            none of the server's own: each store's kept settings, no judge).
    """

    name = "stategraph.sqlite_tenants.v1"

    def __init__(
        self,
        folder: str | Path,
        *,
        busy_timeout: float = 5.0,
        keep_open: int = 256,
        memory_factory: Callable[[SQLiteStore], Memory] | None = None,
        settings: MemorySettings | None = None,
    ) -> None:
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise ServiceConfigError("--store", f"{self.folder} is not a folder")
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.busy_timeout = busy_timeout
        self._keepers = _Keepers(keep_open)
        self._factory = memory_factory_for(memory_factory, settings)

    def path(self, tenant: str) -> Path:
        """The file of a tenant's store (whether or not it exists yet)."""
        return self.folder / f"{check_tenant(tenant)}.db"

    @contextmanager
    def _turn(self, tenant: str) -> Iterator[None]:
        """Wait for the tenant's turn to write, across processes: an advisory lock on
        ``<tenant>.lock`` (never on the store file itself, whose POSIX locks SQLite owns).

        SQLite would serialise the writers anyway, but a writer that finds the store locked
        sleeps in SQLite's busy handler for up to 100 ms at a time, and one that loses the race
        recomputes its revision; in turn, the next writer starts as soon as the last is done.
        The lock goes with the process, so a killed worker never leaves it held.

        Raises:
            StoreBusyError: the turn did not come within the busy timeout.
        """
        fd = os.open(self.folder / f"{tenant}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline, pause = time.monotonic() + self.busy_timeout, 0.0002
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise StoreBusyError(str(self.path(tenant)), self.busy_timeout) from None
                    time.sleep(pause)
                    pause = min(2 * pause, 0.002)
            yield
        finally:
            os.close(fd)  # releases the lock

    @contextmanager
    def _lend(self, tenant: str, write: bool) -> Iterator[Memory]:
        path = self.path(tenant)
        with ExitStack() as stack:
            if write:
                stack.enter_context(self._turn(tenant))
            if not write and not path.exists():
                store = SQLiteStore(":memory:")  # an empty memory, never kept
            else:
                store = SQLiteStore(path, busy_timeout=self.busy_timeout, create=write)
                self._keepers.touch(path)
            try:
                mem = self._factory(store, write)
            except BaseException:
                store.close()
                raise
            with mem:
                yield mem

    def memory(self, tenant: str, *, write: bool = False) -> AbstractContextManager[Memory]:
        """Open the tenant's store for one request (see :meth:`TenantStores.memory`).

        A memory is opened in the thread that uses it (SQLite connections belong to their
        thread) and closed on exit; opening costs about half a millisecond, and the tenant's
        keeper connection keeps the WAL, so closing costs no checkpoint. A writer holds the
        tenant's turn (:meth:`_turn`) from before it opens the store until it closes it.
        """
        return self._lend(tenant, write)

    def exists(self, tenant: str) -> bool:
        """True if the tenant's store file exists."""
        return self.path(tenant).is_file()

    def tenants(self) -> list[str]:
        """Every tenant with a store file in the folder, sorted."""
        return sorted(
            p.stem
            for p in self.folder.glob("*.db")
            if p.is_file() and TENANT_NAME.fullmatch(p.stem) is not None
        )

    def close(self) -> None:
        """Close the keeper connections."""
        self._keepers.close()


def _postgres(url: str, **options: Any) -> TenantStores:
    """Every tenant in one PostgreSQL database (:mod:`stategraph.service.pg_tenants`, which
    needs the ``postgres`` extra: imported only when a ``postgresql://`` URL is served)."""
    try:
        from stategraph.service.pg_tenants import PostgresTenants
    except ImportError as exc:
        raise ServiceConfigError(
            "--store", "a postgresql:// store needs psycopg: pip install 'stategraph[postgres]'"
        ) from exc
    return PostgresTenants(url, **options)


BACKENDS: dict[str, Callable[..., TenantStores]] = {
    "sqlite": SQLiteTenants,
    "postgresql": _postgres,
    "postgres": _postgres,
}
"""Tenant backends by URL scheme."""


def open_tenants(url: str, **options: Any) -> TenantStores:
    """The tenant stores a store URL names.

    ``sqlite:///DIR`` is one SQLite file per tenant in the folder ``DIR`` (``sqlite:///data``
    is the relative folder ``data``, ``sqlite:////srv/data`` the absolute ``/srv/data``, as
    SQLAlchemy reads them); a URL with no scheme is taken as such a folder.

    Raises:
        ServiceConfigError: a scheme no backend serves, or no folder.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "sqlite", "/" + url
    factory = BACKENDS.get(scheme)
    if factory is None:
        served = ", ".join(f"{s}://" for s in sorted(BACKENDS))
        raise ServiceConfigError(
            "--store", f"no tenant backend serves {scheme}:// URLs here (served: {served})"
        )
    if scheme == "sqlite":
        if not rest.startswith("/") or rest == "/":
            raise ServiceConfigError(
                "--store", "give a folder as sqlite:///DIR (relative) or sqlite:////DIR (absolute)"
            )
        return SQLiteTenants(os.path.expanduser(rest[1:]), **options)
    return factory(url, **options)
