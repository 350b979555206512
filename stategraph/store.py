"""SQLite persistence: states, justifications, truth values and the append-only revision log.

One revision is one SQLite transaction: the structural change, the new truth values and the log
entry are committed together or not at all. The log is a hash chain (each entry's hash covers
the previous hash), so removing or editing an entry is detectable with :meth:`SQLiteStore.verify`.

The store is registered under the versioned name ``"sqlite.v1"``; the schema version lives in
the file, and a file of another version is refused with a clear message instead of being misread.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from stategraph.errors import LogIntegrityError, StoreError
from stategraph.graph import SupportGraph
from stategraph.model import Justification, Report, State, Truth
from stategraph.revise import Revision

__all__ = ["STORES", "LogEntry", "SQLiteStore", "Store"]

SCHEMA_VERSION = 1
_GENESIS = "0" * 64

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS states (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL,             -- the State as JSON
    superseded_by TEXT,
    active INTEGER NOT NULL,
    truth TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS justifications (
    head TEXT NOT NULL,
    premises TEXT NOT NULL,         -- JSON array, sorted
    unless TEXT NOT NULL,           -- JSON array, sorted
    body TEXT NOT NULL,             -- the Justification as JSON
    PRIMARY KEY (head, premises, unless)
);
CREATE TABLE IF NOT EXISTS revisions (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    change TEXT NOT NULL,
    report TEXT NOT NULL,
    config TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
"""


class LogEntry(BaseModel):
    """One revision in the append-only log."""

    model_config = ConfigDict(frozen=True)

    seq: int
    at: str
    """UTC time the revision was committed (ISO 8601); not part of the report itself."""
    report: Report
    config: dict[str, Any]
    prev_hash: str
    hash: str


class Store(Protocol):
    """What :class:`~stategraph.memory.Memory` needs from a persistence backend."""

    def load(self) -> SupportGraph:
        """Read the whole support graph."""
        ...

    def commit(self, revision: Revision, config: dict[str, Any]) -> LogEntry:
        """Persist one revision and its log entry atomically."""
        ...

    def history(self) -> list[LogEntry]:
        """The revision log, oldest first."""
        ...

    def verify(self) -> int:
        """Check the log's hash chain; return the number of entries."""
        ...

    def get_setting(self, key: str) -> Any:
        """A persisted setting (JSON value), or None."""
        ...

    def set_setting(self, key: str, value: Any) -> None:
        """Persist a setting (JSON value)."""
        ...

    def close(self) -> None:
        """Release the backend."""
        ...


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _chain(prev_hash: str, seq: int, at: str, change: str, report: str, config: str) -> str:
    h = hashlib.sha256()
    for part in (prev_hash, str(seq), at, change, report, config):
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()


class SQLiteStore:
    """The embedded default store: one SQLite file in WAL mode (``":memory:"`` for tests)."""

    name = "sqlite.v1"

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None)
            if self.path != ":memory:":
                self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self._init_schema()
        except sqlite3.DatabaseError as exc:
            raise StoreError(self.path, f"not a usable SQLite store: {exc}") from exc

    def _init_schema(self) -> None:
        tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}
        if "meta" not in tables and tables:
            raise StoreError(self.path, "this SQLite file is not a stategraph store")
        with self._transaction():
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    self.conn.execute(stmt)
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self.conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise StoreError(
                    self.path,
                    f"schema version {row[0]}, this stategraph reads version {SCHEMA_VERSION}: "
                    "upgrade stategraph or migrate the store",
                )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def load(self) -> SupportGraph:
        """Read states, truth values and justifications into a fresh support graph."""
        graph = SupportGraph()
        for body, superseded_by, active, truth in self.conn.execute(
            "SELECT body, superseded_by, active, truth FROM states ORDER BY rowid"
        ):
            st = State.model_validate_json(body)
            graph.add_state(st, Truth(truth))
            if not active:
                graph.deactivate(st.id, superseded_by)
        for (body,) in self.conn.execute("SELECT body FROM justifications ORDER BY rowid"):
            graph.add_justification(Justification.model_validate_json(body))
        return graph

    def commit(self, revision: Revision, config: dict[str, Any]) -> LogEntry:
        """Write one revision and append its log entry, in one transaction."""
        with self._transaction():
            self._write(revision)
            return self._append(revision.report, config)

    def _write(self, rev: Revision) -> None:
        c = self.conn
        c.executemany(
            "INSERT INTO states (id, body, superseded_by, active, truth) VALUES (?,?,NULL,1,?)",
            [
                (s.id, s.model_dump_json(), rev.truth.get(s.id, Truth.false).value)
                for s in rev.new_states
            ],
        )
        c.executemany(
            "UPDATE states SET active=0, superseded_by=? WHERE id=?",
            [(by, sid) for sid, by in rev.deactivated.items()],
        )
        c.executemany(
            "UPDATE states SET truth=? WHERE id=?",
            [(t.value, sid) for sid, t in rev.truth.items()],
        )
        c.executemany(
            "DELETE FROM justifications WHERE head=? AND premises=? AND unless=?",
            [(h, _json(list(p)), _json(list(u))) for h, p, u in rev.removed],
        )
        c.executemany(
            "INSERT OR REPLACE INTO justifications (head, premises, unless, body) VALUES (?,?,?,?)",
            [
                (j.head, _json(list(j.premises)), _json(list(j.unless)), j.model_dump_json())
                for j in rev.added
            ],
        )

    def _last(self) -> tuple[int, str]:
        row = self.conn.execute("SELECT seq, hash FROM revisions ORDER BY seq DESC LIMIT 1")
        last = row.fetchone()
        return (0, _GENESIS) if last is None else (int(last[0]), str(last[1]))

    def _append(self, report: Report, config: dict[str, Any]) -> LogEntry:
        seq, prev = self._last()
        seq += 1
        at = datetime.now(UTC).isoformat(timespec="microseconds")
        change_json = report.change.model_dump_json(by_alias=True)
        report_json = report.model_dump_json(by_alias=True)
        config_json = _json(config)
        digest = _chain(prev, seq, at, change_json, report_json, config_json)
        self.conn.execute(
            "INSERT INTO revisions VALUES (?,?,?,?,?,?,?)",
            (seq, at, change_json, report_json, config_json, prev, digest),
        )
        return LogEntry(seq=seq, at=at, report=report, config=config, prev_hash=prev, hash=digest)

    def history(self) -> list[LogEntry]:
        """Every logged revision, oldest first."""
        return [
            LogEntry(
                seq=seq,
                at=at,
                report=Report.model_validate_json(report),
                config=json.loads(config),
                prev_hash=prev,
                hash=digest,
            )
            for seq, at, report, config, prev, digest in self.conn.execute(
                "SELECT seq, at, report, config, prev_hash, hash FROM revisions ORDER BY seq"
            )
        ]

    def verify(self) -> int:
        """Check the hash chain.

        Raises:
            LogIntegrityError: naming the first entry that does not verify.
        """
        prev = _GENESIS
        expected_seq = 1
        for seq, at, change, report, config, prev_hash, digest in self.conn.execute(
            "SELECT seq, at, change, report, config, prev_hash, hash FROM revisions ORDER BY seq"
        ):
            if (
                seq != expected_seq
                or prev_hash != prev
                or _chain(prev, seq, at, change, report, config) != digest
            ):
                raise LogIntegrityError(self.path, expected_seq)
            prev = digest
            expected_seq += 1
        return expected_seq - 1

    def get_setting(self, key: str) -> Any:
        """A persisted setting (JSON value), or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (f"setting:{key}",))
        found = row.fetchone()
        return None if found is None else json.loads(found[0])

    def set_setting(self, key: str, value: Any) -> None:
        """Persist a setting (JSON value)."""
        with self._transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"setting:{key}", _json(value))
            )

    def close(self) -> None:
        """Close the connection (checkpointing the WAL)."""
        self.conn.close()


STORES: dict[str, type[SQLiteStore]] = {SQLiteStore.name: SQLiteStore}
"""Store implementations by versioned name."""
