"""A busy store (issue 14, item 1): opening takes no lock, readers never wait, a writer waits up
to the busy timeout and then says the store is busy.

Each test has another process (``lock_holder.py``) hold the lock for as long as the test wants,
so nothing here sleeps or times anything: the busy timeouts are short only so that the waits
that must fail end quickly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from backends import sqlite_execute

from stategraph import Memory
from stategraph.errors import InvalidInputError, StoreBusyError, StoreError
from stategraph.model import Truth
from stategraph.store import SCHEMA_VERSION, SQLiteStore
from stategraph.store.sqlitefile import connect

from .helpers import holding_lock, seed

SHORT = 0.05  # seconds: how long a write that must fail waits


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    seed(path)
    return path


def test_opening_and_reading_while_another_process_writes(store_path: Path) -> None:
    """Before: every open ran BEGIN IMMEDIATE, so it waited for the writer and then failed
    with "not a usable SQLite store: database is locked"."""
    with holding_lock(store_path), Memory.open(store_path) as mem:
        store = mem.store
        assert isinstance(store, SQLiteStore)
        assert not store.conn.in_transaction
        assert mem.holding() == {"m1", "m2", "m3", "m4"}
        assert [e.seq for e in mem.history()] == [1, 2, 3, 4]
        assert mem.verify_log() == 4
        assert mem.why("m2").root == "m2"
        # the writer's uncommitted row is not seen: a reader reads the last commit
        held = store.conn.execute("SELECT value FROM meta WHERE key = 'holder'").fetchone()
        assert held is None


def test_a_write_past_the_busy_timeout_says_busy_and_writes_nothing(store_path: Path) -> None:
    """Before: a Memory already open got a raw sqlite3.OperationalError from its commit."""
    mem = Memory(store=SQLiteStore(store_path, busy_timeout=SHORT))
    with holding_lock(store_path):
        attempts: dict[str, Callable[[], object]] = {
            "add": lambda: mem.fact("m5"),
            "revise": lambda: mem.retract("m1"),
            "bulk load": lambda: mem.bulk_load([{"id": "n1", "kind": "fact"}], []),
            "setting": lambda: mem.store.set_setting("rules", ["relocation"]),
        }
        for what, attempt in attempts.items():
            with pytest.raises(StoreBusyError) as err:
                attempt()
            assert isinstance(err.value, StoreError), what
            assert err.value.timeout == SHORT and err.value.path == str(store_path)
            message = str(err.value)
            assert "store is busy" in message and "retry" in message, message
    assert {s.id for s in mem.states()} == {"m1", "m2", "m3", "m4"}
    assert mem.verify_log() == 4
    # the same Memory goes on once the lock is free
    assert mem.retract("m1").invalidated == ["m2", "m3"]
    assert mem.truth("m2") is Truth.false and mem.verify_log() == 5
    mem.close()


def _in_a_busy_wait(thread_id: int) -> bool:
    """True while the thread sleeps in the kernel: SQLite's busy handler waits between its
    tries for a lock with ``nanosleep`` (the writer's thread does nothing else that sleeps)."""
    wchan = Path(f"/proc/self/task/{thread_id}/wchan")
    return "nanosleep" in wchan.read_text(encoding="ascii", errors="replace")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_a_write_waits_for_a_lock_let_go_within_the_timeout(store_path: Path) -> None:
    """The default timeout is long: a writer waits its turn rather than failing.

    The lock is let go only once the writer has begun the statement that takes it (its
    ``BEGIN IMMEDIATE``, seen through the connection's trace callback) and is sleeping in
    SQLite's busy handler between two tries; a writer that gives up at once (a busy timeout
    of 0) has failed by then. Before, the lock was let go right after the writer thread
    started, so the writer never had to wait and a busy timeout of 0 passed too.
    """
    outcome: list[object] = []
    begun = threading.Event()
    thread_id: list[int] = []

    def notice(statement: str) -> None:
        if statement.startswith("BEGIN IMMEDIATE"):
            begun.set()

    def write() -> None:
        thread_id.append(threading.get_native_id())
        try:
            with Memory.open(store_path) as mem:
                store = mem.store
                assert isinstance(store, SQLiteStore)
                store.conn.set_trace_callback(notice)
                outcome.append(mem.fact("late").changed[0].id)
        except Exception as exc:  # reported below, on the test's thread
            outcome.append(exc)
        finally:
            begun.set()  # never leave the test waiting, whatever went wrong

    pause = threading.Event()  # never set: its wait() is a short pause between looks
    with holding_lock(store_path):
        writer = threading.Thread(target=write)
        writer.start()
        assert begun.wait(timeout=60), "the writer never began its write"
        while not outcome and not _in_a_busy_wait(thread_id[0]):
            pause.wait(0.001)
        assert outcome == [], f"the writer did not wait for the lock: {outcome}"
    writer.join(timeout=60)
    assert outcome == ["late"]


def test_a_store_to_migrate_while_busy_says_busy(store_path: Path) -> None:
    """Migrating is the one open that must write: it waits, then says busy (not "database is
    locked"), and migrates on a later open."""
    sqlite_execute(store_path, "UPDATE meta SET value = '3' WHERE key = 'schema'")
    with holding_lock(store_path), pytest.raises(StoreBusyError, match="store is busy"):
        SQLiteStore(store_path, busy_timeout=SHORT)
    store = SQLiteStore(store_path, busy_timeout=SHORT)
    schema = store.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    assert schema == (str(SCHEMA_VERSION),)
    store.close()


def test_a_commit_kept_waiting_by_a_reader_says_busy(tmp_path: Path) -> None:
    """Every statement the store's connection runs, COMMIT included, reports a lock held too
    long as busy. (A store is in WAL mode, where readers never hold a writer back; a file in
    rollback-journal mode shows the COMMIT case.)"""
    path = tmp_path / "plain.db"
    sqlite_execute(path, "CREATE TABLE t (x)")
    conn = connect(str(path), busy_timeout=SHORT, create=False)
    with holding_lock(path, mode="read"):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t VALUES (1)")
        with pytest.raises(StoreBusyError, match="store is busy"):
            conn.execute("COMMIT")
        conn.execute("ROLLBACK")
    conn.close()


@pytest.mark.parametrize("timeout", [-1.0, float("nan"), float("inf")])
def test_the_busy_timeout_is_a_number_of_seconds(tmp_path: Path, timeout: float) -> None:
    with pytest.raises(InvalidInputError, match="busy_timeout"):
        SQLiteStore(tmp_path / "m.db", busy_timeout=timeout)
    assert not (tmp_path / "m.db").exists()


OTHER_TABLES = """
CREATE TABLE IF NOT EXISTS linker_things (key TEXT PRIMARY KEY, value TEXT);
CREATE INDEX IF NOT EXISTS linker_things_by_value ON linker_things (value)
"""


def test_another_modules_tables_are_created_once_then_only_read(store_path: Path) -> None:
    """A module that keeps its own tables in the store (the linker's atom index) creates them
    through the store: a write the first time, a read (no lock) on every later open."""
    store = SQLiteStore(store_path, busy_timeout=SHORT)
    with holding_lock(store_path), pytest.raises(StoreBusyError):
        store.ensure_tables(OTHER_TABLES)
    store.ensure_tables(OTHER_TABLES)
    names = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
    assert {"linker_things", "linker_things_by_value"} <= names
    with holding_lock(store_path):
        store.ensure_tables(OTHER_TABLES)  # all there: no lock wanted, so never busy
    store.close()
