"""Opening a SQLite file for the store: look before touching, wait for writers, say so plainly.

Three rules, each learned from a store that misbehaved (issue 14):

- **Look before touching.** A file is identified as a stategraph store from what it holds
  (:func:`identify`) before anything is written to it: not even its journal mode changes. An
  application's own SQLite file is refused exactly as it was found.
- **Create only when asked.** A missing path is created only with ``create=True`` (the API
  that writes); otherwise SQLite is opened in ``mode=rw``, which cannot make a file.
- **Busy is not broken.** Every statement runs through :class:`BusyAwareConnection`, so a
  writer that holds the lock past the busy timeout surfaces as
  :class:`~stategraph.errors.StoreBusyError` ("busy, retry"), never as SQLite's "database is
  locked" (which reads like corruption) and never as a raw ``sqlite3.OperationalError``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, TypeVar

from stategraph.errors import StoreBusyError, StoreError, StoreNotFoundError

__all__ = [
    "APPLICATION_ID",
    "IDENTIFYING",
    "SCHEMA_VERSION",
    "BusyAwareConnection",
    "connect",
    "identify",
    "read_current",
]

T = TypeVar("T")

APPLICATION_ID = 0x53744772
"""``PRAGMA application_id`` of a store ("StGr" in the file header, where ``file(1)`` and other
tools look); stores made before it was set carry 0 and are identified by their tables."""

_BUSY = sqlite3.SQLITE_BUSY  # the primary code: BUSY_RECOVERY, BUSY_SNAPSHOT, ... share it


def is_busy(exc: sqlite3.Error) -> bool:
    """True for SQLite's "database is locked" family (another connection holds a lock)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == _BUSY


SCHEMA_VERSION = 8
"""The SQLite store's format, the ``schema`` row of its ``meta`` table. 8: rule links through
atom nodes (:mod:`stategraph.nodes`; the atom index's ``link_atoms`` and ``atom_watches``):
a store of 7 or before is relinked at its next change, which a stategraph of 7 would not read;
7: the session each indexed memory was written in (``docs.session``), which a stategraph of 6
would not write; 6: recall's lists of frequent words (:mod:`stategraph.text.impacts`: made by a
5's first recall), kept by every write, which a stategraph of 5 would not do; 5: the past of the
tables (:mod:`stategraph.store.past`); 4: log columns may be compressed BLOBs
(:mod:`stategraph.store.revlog`); 3: the term index and judge calls; 2: clustered justifications
and open/closed edges."""

IDENTIFYING = ("states", "revisions")
"""Tables every schema version had: with ``meta``, what makes a file a store."""


class BusyAwareConnection(sqlite3.Connection):
    """A connection whose statements raise :class:`StoreBusyError` when the lock they wait
    for is still held after the busy timeout.

    One place for the translation, so it covers every statement, including those that other
    modules (the bulk loader) run on ``store.conn`` and the ``COMMIT`` of a transaction.
    """

    store_path = ""
    busy_timeout = 0.0

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        # try/except inline, not a context manager: this runs for every statement, and a
        # generator-based one costs twice the statement itself on a small read.
        try:
            return super().execute(sql, parameters)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise StoreBusyError(self.store_path, self.busy_timeout) from exc
            raise

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        try:
            return super().executemany(sql, parameters)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise StoreBusyError(self.store_path, self.busy_timeout) from exc
            raise


def connect(path: str, busy_timeout: float, create: bool) -> BusyAwareConnection:
    """Connect to ``path`` (``":memory:"`` for a store in memory) in autocommit mode.

    Args:
        path: the store's file.
        busy_timeout: seconds a statement waits for another connection's lock.
        create: make the file if it is missing; without it a missing path is an error and
            nothing is created.

    Raises:
        StoreNotFoundError: the path does not exist and ``create`` is off.
        StoreError: the path is a folder, or SQLite cannot open it.
    """
    if path == ":memory:":
        target, uri = path, False
    else:
        file = Path(path)
        if file.is_dir():
            raise StoreError(path, "is a folder, not a store file: give the file's path")
        if not create and not file.exists():
            raise StoreNotFoundError(path)
        target, uri = f"{file.absolute().as_uri()}?mode={'rwc' if create else 'rw'}", True
    try:
        conn = sqlite3.connect(
            target,
            timeout=busy_timeout,
            isolation_level=None,
            uri=uri,
            factory=BusyAwareConnection,
        )
    except sqlite3.Error as exc:
        raise StoreError(path, f"cannot open the file: {exc}") from exc
    assert isinstance(conn, BusyAwareConnection)
    conn.store_path, conn.busy_timeout = path, busy_timeout
    return conn


def identify(conn: sqlite3.Connection, path: str, tables: Collection[str]) -> int | None:
    """The schema version of the store in ``conn``, or None for an empty database. Only reads.

    A store has a ``meta`` table whose ``schema`` row is an integer, and ``tables`` (those every
    schema version had); a file with our application id must have them too, and a file with
    another application's id is not ours whatever its tables. A ``meta`` table alone is not
    enough: it is a common name.

    Raises:
        StoreError: the file is not a SQLite database, or not a stategraph store.
    """
    try:
        app = int(conn.execute("PRAGMA application_id").fetchone()[0])
        if app == 0 and conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None:
            return None
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app not in (0, APPLICATION_ID) or not {"meta", *tables} <= names:
            raise StoreError(path, _FOREIGN)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.OperationalError as exc:  # a meta table of other columns
            raise StoreError(path, _FOREIGN) from exc
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_NOTADB:
            raise StoreError(path, f"not a SQLite database, so {_FOREIGN}") from exc
        raise
    if row is None or not str(row[0]).isdigit():
        raise StoreError(path, _FOREIGN)
    return int(row[0])


_FOREIGN = (
    "this file is not a stategraph store (it was left as it is): give the path of a store, "
    "or a new path to create one"
)


def read_current(
    path: str, busy_timeout: float, read: Callable[[sqlite3.Connection], T]
) -> T | None:
    """``read`` on the store at ``path`` in one read transaction, if the store is of this
    :data:`SCHEMA_VERSION`; None when it is not, or when ``read`` meets a row not as this
    stategraph writes it (then open it as a ``SQLiteStore``, which migrates an older store and
    says what is wrong with any other, so a reader without the models never words an error of
    its own). For the commands that print a store without importing the models
    (:mod:`.listing`, :mod:`.ancestry`).

    Raises:
        StoreNotFoundError: no file at ``path``.
        StoreError: ``path`` is a folder, SQLite cannot open it, or it is not a stategraph
            store (the errors and words opening a ``SQLiteStore`` gives).
        StoreBusyError: a writer held its lock past ``busy_timeout``.
    """
    conn = connect(path, busy_timeout, create=False)
    try:
        if identify(conn, path, IDENTIFYING) != SCHEMA_VERSION:
            return None
        conn.execute("BEGIN")  # the rows of one committed revision
        return read(conn)
    except (sqlite3.DatabaseError, ValueError, KeyError, TypeError, UnicodeError):
        return None
    finally:
        conn.close()
