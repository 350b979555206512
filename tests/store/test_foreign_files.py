"""Hands off files that are not stores (issue 14, item 4).

A file is identified as a store before anything is written to it, so another application's
SQLite file is refused byte for byte as it was found (journal mode included), and a store is
created only where the caller asks for one (``create=True``, the default of the writing API).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from backends import sqlite_execute, sqlite_query

from stategraph import Memory
from stategraph.errors import StoreError, StoreNotFoundError
from stategraph.store import SQLiteStore
from stategraph.store.sqlitefile import APPLICATION_ID

from .helpers import seed


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file in the folder, by name, with its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def journal_mode(path: Path) -> str:
    return str(sqlite_query(path, "PRAGMA journal_mode")[0][0])


def sqlite_file(path: Path, *statements: str) -> None:
    for statement in statements:
        sqlite_execute(path, statement)


def notes(path: Path) -> None:
    sqlite_file(path, "CREATE TABLE notes (x TEXT)", "INSERT INTO notes VALUES ('mine')")


def meta_lookalike(path: Path) -> None:
    """A ``meta`` table with a ``schema`` row is a common design; it does not make a store."""
    sqlite_file(
        path,
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "INSERT INTO meta VALUES ('schema', '3')",
        "CREATE TABLE documents (id INTEGER PRIMARY KEY, body TEXT)",
    )


def meta_of_other_columns(path: Path) -> None:
    sqlite_file(path, "CREATE TABLE meta (name TEXT, v INTEGER)", "CREATE TABLE states (x)")


def another_application(path: Path) -> None:
    """A file with every table of a store, but another application's id in its header."""
    seed(path)
    sqlite_file(path, "PRAGMA journal_mode=DELETE", "PRAGMA application_id = 42")


def foreign_in_wal_mode(path: Path) -> None:
    sqlite_file(path, "PRAGMA journal_mode=WAL", "CREATE TABLE notes (x TEXT)")


FOREIGN: dict[str, Callable[[Path], None]] = {
    "notes": notes,
    "meta lookalike": meta_lookalike,
    "meta of other columns": meta_of_other_columns,
    "another application id": another_application,
    "foreign in WAL mode": foreign_in_wal_mode,
}


@pytest.mark.parametrize("create", [True, False])
@pytest.mark.parametrize("make", FOREIGN.values(), ids=FOREIGN.keys())
def test_another_applications_file_is_refused_untouched(
    tmp_path: Path, make: Callable[[Path], None], create: bool
) -> None:
    """Before: opening switched the file to WAL mode, then refused it (or, for a ``meta``
    lookalike, created every table of a store in it)."""
    path = tmp_path / "other.sqlite"
    make(path)
    mode, before = journal_mode(path), snapshot(tmp_path)
    with pytest.raises(StoreError, match="not a stategraph store") as err:
        SQLiteStore(path) if create else SQLiteStore(path, create=False)
    assert snapshot(tmp_path) == before  # no byte changed, no -wal or -journal file left
    assert journal_mode(path) == mode
    assert "left as it is" in str(err.value)


@pytest.mark.parametrize("content", [b"hello, not a database\n" * 40, bytes(range(256)) * 16])
def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    with pytest.raises(StoreError, match="not a SQLite database"):
        Memory.open(path)
    assert snapshot(tmp_path) == {"notes.txt": content}


def test_a_missing_path_is_created_only_when_asked(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    with pytest.raises(StoreNotFoundError) as err:
        SQLiteStore(missing, create=False)
    assert isinstance(err.value, StoreError) and "no such store" in str(err.value)
    assert list(tmp_path.iterdir()) == []
    created = SQLiteStore(missing)  # the writing API's default
    created.close()
    assert missing.is_file() and journal_mode(missing) == "wal"
    assert SQLiteStore(missing, create=False).head() == (0, "0" * 64)


def test_an_empty_file_becomes_a_store_only_when_asked(tmp_path: Path) -> None:
    empty = tmp_path / "new.db"
    empty.touch()
    with pytest.raises(StoreError, match="empty file, not a stategraph store"):
        SQLiteStore(empty, create=False)
    assert snapshot(tmp_path) == {"new.db": b""}
    with Memory.open(empty) as mem:
        mem.fact("f")
    with Memory(store=SQLiteStore(empty, create=False)) as mem:
        assert mem.holding() == {"f"}


def test_a_folder_is_not_a_store(tmp_path: Path) -> None:
    for create in (True, False):
        with pytest.raises(StoreError, match="is a folder"):
            SQLiteStore(tmp_path, create=create)
    assert list(tmp_path.iterdir()) == []


def test_a_new_store_carries_its_application_id_and_an_old_one_is_still_known(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    seed(path)
    assert sqlite_query(path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    sqlite_execute(path, "PRAGMA application_id = 0")  # as stores made before the id was set
    before = snapshot(tmp_path)
    with Memory(store=SQLiteStore(path, create=False)) as mem:
        assert mem.holding() == {"m1", "m2", "m3", "m4"}
    assert snapshot(tmp_path) == before


def test_opening_and_reading_a_store_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    seed(path)
    before = snapshot(tmp_path)
    store = SQLiteStore(path, create=False)
    assert store.conn.total_changes == 0
    with Memory(store=store) as mem:
        mem.history()
        mem.verify_log()
        mem.why("m3")
        assert store.conn.total_changes == 0
    assert snapshot(tmp_path) == before
