"""SQLite persistence: states, justifications, truth values and the append-only revision log.

The store is the memory: nothing is kept in process between revisions. A revision walks the
affected cone through the ``edges`` index, whose rows also say which edges are open (see
:class:`~stategraph.engine.graph.Cone`), and asks for the *subgraph* it needs: the states it must
solve or grade, plus the truth values on their boundary. So opening a store of a million
states costs nothing and a revision costs in proportion to what its change can move, not to
the store.

One revision is one SQLite transaction: the structural change, the new truth values and the log
entry are committed together or not at all. The log is a hash chain (each entry's hash covers
the previous hash), so removing or editing an entry is detectable with :meth:`SQLiteStore.verify`,
and removing entries from its end with a head kept elsewhere (:meth:`SQLiteStore.head`); its
format, and how its rows are stored compactly, is :mod:`stategraph.store.revlog`. A failed
verification makes the store refuse writes until someone acknowledges it.

Opening a store only reads: it is identified before anything is written to it, and the write
lock is taken only to create or migrate one (:mod:`stategraph.store.sqlitefile`). In WAL
mode readers never wait for the writer, and a writer waits for another one up to a busy
timeout, then says
the store is busy (:class:`~stategraph.errors.StoreBusyError`).

The store is registered under the versioned name ``"sqlite.v1"``; the schema version lives in
the file, and a file of another version is refused with a clear message instead of being misread.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from stategraph.engine.bounded import walk
from stategraph.engine.graph import Cone, JustKey, SupportGraph
from stategraph.engine.revise import Revision, Writes
from stategraph.engine.steady import LeanHead, LeanRead
from stategraph.errors import (
    ConcurrentChangeError,
    HeadMismatchError,
    InvalidInputError,
    LogIntegrityError,
    StoreError,
    TamperedStoreError,
)
from stategraph.judge.base import JudgeCall
from stategraph.model import (
    ActionStatus,
    Change,
    Justification,
    Origin,
    Report,
    Source,
    State,
    Truth,
    trusted,
)
from stategraph.nodes import ATOM_KIND
from stategraph.store import past, review_queue, tables
from stategraph.store.leankept import At, LeanKept
from stategraph.store.revlog import (
    GENESIS,
    MAX_SEQ,
    Break,
    LogEntry,
    UnreadableColumn,
    chain,
    entry,
    find_breaks,
    pack,
    utc,
)
from stategraph.store.revlog import unpack as _unpack
from stategraph.store.rowcodec import decode_extra, decode_ids
from stategraph.store.sqlitefile import (
    APPLICATION_ID,
    IDENTIFYING,
    SCHEMA_VERSION,
    connect,
    identify,
)
from stategraph.store.tables import CONFIG_KEY, META_KEY, Keys, Sums, rows_hash
from stategraph.text import atom_index
from stategraph.values import TRUTH_OF

__all__ = ["SCHEMA_VERSION", "STORES", "LogEntry", "SQLiteStore", "Store"]

_CHUNK = 500  # ids per IN (...) query, well under SQLite's variable limit
_NONE: Mapping[Any, Any] = MappingProxyType({})
_DOC_CACHE = 1 << 18
"""Documents of the term index kept in memory at most (:meth:`SQLiteStore.postings`)."""
_POSTINGS_CACHE = 1 << 15
"""Terms whose postings are kept in memory at most (:meth:`SQLiteStore.postings`)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS states (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    status TEXT,                    -- actions: pending / executed
    active INTEGER NOT NULL,
    superseded_by TEXT,
    truth TEXT NOT NULL,            -- value in the current well-founded model
    has_atoms INTEGER NOT NULL,
    body TEXT NOT NULL              -- the whole State as JSON
);
CREATE INDEX IF NOT EXISTS states_with_atoms ON states (has_atoms) WHERE has_atoms = 1;
CREATE TABLE IF NOT EXISTS {justifications} (
    head TEXT NOT NULL,
    premises TEXT NOT NULL,         -- JSON array, sorted
    unless TEXT NOT NULL,           -- JSON array, sorted
    origin TEXT NOT NULL,
    extra TEXT NOT NULL,            -- JSON of checked / notes / rules, '' when all empty
    PRIMARY KEY (head, premises, unless)
) WITHOUT ROWID;                    -- clustered by head: a head's justifications are adjacent
-- src is cited (as premise or unless) by some justification of head: the cone's index.
CREATE TABLE IF NOT EXISTS edges (
    src TEXT NOT NULL,
    head TEXT NOT NULL,
    follow INTEGER NOT NULL,        -- 1: a change of src can change head (head does not hold,
                                    -- or src is cited by the support of head): graph.Cone
    PRIMARY KEY (src, head)
) WITHOUT ROWID;
-- The inverted index candidate proposal reads
-- (stategraph.grounding.terms, stategraph.text.candidates).
CREATE TABLE IF NOT EXISTS docs (
    seq INTEGER PRIMARY KEY,        -- indexing order: postings are read newest first
    state_id TEXT NOT NULL,
    size INTEGER NOT NULL,          -- how many lexical (g:) terms the memory has
    kind TEXT NOT NULL DEFAULT '',  -- the memory's kind (recent facts are candidates)
    session TEXT                    -- the session it was written in (State.session), or NULL
);                                  -- (indexed by kind and by session: _fill_indexes)
CREATE TABLE IF NOT EXISTS terms (
    term TEXT NOT NULL,             -- 'a:<constant>' or 'g:<gram>' (stategraph.grounding.terms)
    doc INTEGER NOT NULL,           -- docs.seq
    PRIMARY KEY (term, doc)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS term_df (
    term TEXT PRIMARY KEY,
    df INTEGER NOT NULL             -- how many memories carry the term
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS revisions (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    change TEXT NOT NULL,
    report TEXT NOT NULL,
    config TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    calls TEXT NOT NULL DEFAULT ''  -- the judge calls made or served (JSON), '' for none
);                                  -- change, report, calls: TEXT or BLOB (stategraph.store.revlog)
-- Judge answers by question key (stategraph.judge.question_key): asked once, served again.
CREATE TABLE IF NOT EXISTS judge_cache (
    key TEXT PRIMARY KEY,
    call TEXT NOT NULL              -- the JudgeCall that answered, as JSON
) WITHOUT ROWID;
""" + (atom_index.SCHEMA + review_queue.SCHEMA + past.SCHEMA).replace("{", "{{").replace("}", "}}")
_OPEN_EDGES = "CREATE INDEX IF NOT EXISTS edges_open_into ON edges (head) WHERE follow = 1"
"""The open edges into each head (few: those its support cites, or all while it does not
hold), which the lean read of steady heads reads (:mod:`stategraph.engine.steady`). A new
store has it (:meth:`SQLiteStore._fill_indexes`, after any migration: a store of version 1
has no ``follow`` column until then); one written before it gets it with its next write,
since opening a store of this version only reads (:meth:`SQLiteStore.commit`)."""
_BY_SESSION = (
    "CREATE INDEX IF NOT EXISTS docs_by_session ON docs (session, kind, seq) "
    "WHERE session IS NOT NULL"
)
"""The indexed memories of each session, by kind, newest last (:meth:`SQLiteStore.in_session`):
only those written with a session."""
_CREATED = re.compile(r"CREATE\s+(?:TABLE|INDEX)\s+IF\s+NOT\s+EXISTS\s+(\w+)", re.IGNORECASE)
_TABLES = frozenset(
    re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", _SCHEMA.format(justifications="justifications"))
)
"""Every table of the current schema."""
_TAMPER, _ACKNOWLEDGED = "log:tamper", "log:tamper_acknowledged"
"""``meta`` keys: the breaks a failed verification found (writes are refused while it is
set), and those acknowledged since (they no longer refuse writes)."""

Since = int | str | datetime | None
"""Where a history starts: after a sequence number, or at or after a time."""


class Store(Protocol):
    """What :class:`~stategraph.memory.Memory` needs from a persistence backend.

    Reads are by subgraph, so a backend never has to hold the whole memory in process.
    """

    name: str

    def cone(
        self,
        seeds: Iterable[str],
        max_depth: int | None = None,
        max_cone: int | None = None,
        cited: Iterable[str] = (),
    ) -> Cone:
        """The affected cone of the seeds, and the part of it a change can move, walked up
        to the bounds (:func:`stategraph.engine.bounded.walk`)."""
        ...

    def subgraph(self, ids: Iterable[str] = (), full: bool = False) -> SupportGraph:
        """The states ``ids``, their justifications, and the states those justifications
        cite (for their truth values)."""
        ...

    def extend(self, graph: SupportGraph, heads: Iterable[str]) -> None:
        """Add more heads (their justifications and what those cite) to a subgraph."""
        ...

    def add_boundary(self, graph: SupportGraph, ids: Iterable[str]) -> None:
        """Add these states to a subgraph without their justifications."""
        ...

    def heads_citing(self, ids: Iterable[str]) -> set[str]:
        """Stored heads whose justifications cite any of these ids."""
        ...

    def dependents(self, state_id: str, limit: int) -> list[str]:
        """The first ``limit`` heads (by id) whose justifications cite ``state_id``."""
        ...

    def ancestors(self, state_id: str) -> SupportGraph:
        """A state and everything its justifications rest on, transitively, with texts."""
        ...

    def state(self, state_id: str) -> tuple[State, bool, Truth] | None:
        """One whole state, whether it is active, and its truth value."""
        ...

    def states(self) -> list[State]:
        """Every state, sorted by id."""
        ...

    def ids(self, limit: int | None = None, after: str | None = None) -> list[str]:
        """Ids of the stored states, sorted; at most ``limit``, only those after ``after``."""
        ...

    def ids_with_truth(self, truth: Truth) -> frozenset[str]:
        """Ids of the states with this truth value."""
        ...

    def justifications(self, head: str | None = None) -> list[Justification]:
        """Every justification (or those of one head), sorted by identity."""
        ...

    def existing(self, keys: Iterable[JustKey]) -> set[JustKey]:
        """Which of these justification identities are stored."""
        ...

    def justifications_by_key(self, keys: Iterable[JustKey]) -> dict[JustKey, Justification]:
        """The stored justifications with these identities (a head's others are not read)."""
        ...

    def citing(self, state_id: str) -> list[Justification]:
        """Justifications that cite a state as a premise."""
        ...

    def with_atoms(self) -> list[State]:
        """Every state that carries atoms, active or not."""
        ...

    def inactive(self, ids: Iterable[str]) -> set[str]:
        """The stored states among ``ids`` that are retracted or superseded."""
        ...

    def justifications_for(self, heads: Iterable[str]) -> list[Justification]:
        """The justifications of these heads."""
        ...

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        """Truth values of the stored states among ``ids``."""
        ...

    def kinds(self, ids: Iterable[str]) -> dict[str, str]:
        """Kinds of the stored states among ``ids``."""
        ...

    def doc_count(self) -> int:
        """How many memories the term index holds."""
        ...

    def term_df(self, terms: Iterable[str]) -> dict[str, int]:
        """How many indexed memories carry each of these terms."""
        ...

    def postings(self, term: str, limit: int) -> list[tuple[int, str, int]]:
        """The newest ``limit`` memories carrying a term: ``(seq, state id, lexical size)``."""
        ...

    def recent(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds: ``(seq, state id,
        lexical size)``."""
        ...

    def holding(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds that hold now."""
        ...

    def latest(self, limit: int) -> list[tuple[int, str, int, str]]:
        """The ``limit`` most recently indexed memories, whatever they are: ``(seq, state id,
        lexical size, kind)``, newest first."""
        ...

    def in_session(
        self, session: str, limit: int, kinds: Iterable[str]
    ) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds written in a session
        that hold now, newest first."""
        ...

    def commit(
        self,
        revision: Revision,
        config: dict[str, Any],
        calls: Sequence[JudgeCall] = (),
        expect_head: tuple[int, str] | None = None,
        asked: Change | None = None,
    ) -> LogEntry:
        """Persist one revision, its log entry and its judge calls atomically, unless the log's
        head is no longer ``expect_head`` (then raise ``ConcurrentChangeError``); ``asked`` is
        the change as the caller gave it, logged for replay."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction (a savepoint inside one already open)."""
        ...

    def cached_calls(self, keys: Iterable[str]) -> dict[str, JudgeCall]:
        """Recorded judge answers by question key."""
        ...

    def history(self, limit: int | None = None, since: Since = None) -> list[LogEntry]:
        """The revision log (or its last ``limit`` entries after ``since``), oldest first."""
        ...

    def iter_history(self, limit: int | None = None, since: Since = None) -> Iterator[LogEntry]:
        """:meth:`history`, one entry at a time."""
        ...

    def head(self) -> tuple[int, str]:
        """The sequence number and hash of the log's last entry."""
        ...

    def verify(self, expect_head: tuple[int, str] | None = None, deep: bool = False) -> int:
        """Check the log's hash chain (and that it reaches a head taken earlier; with ``deep``,
        that the tables match the log); return the number of entries."""
        ...

    def tables_digest(self) -> str | None:
        """The tables' digest the log's head carries, if any."""
        ...

    def acknowledge_tamper(self) -> list[tuple[int, str]]:
        """Accept writes again after a failed verification; return what was acknowledged."""
        ...

    def ensure_tables(self, schema: str) -> None:
        """Create another module's tables in the store, where they are missing."""
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


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: the same value always gives the same bytes."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


_ESCAPED = re.compile(r'[\x00-\x1f\\"]')
"""Characters ``json.dumps`` escapes when ``ensure_ascii`` is off."""


def ids_json(ids: Sequence[str]) -> str:
    """``canonical_json(list(ids))``, without the encoder for the common case.

    Justification rows store two id arrays each; bulk loads write millions of them, and the
    generic encoder costs several microseconds an array. Ids with characters JSON escapes take
    the generic path, so the bytes are always the same (``tests/core/test_store.py``).
    """
    if not ids:
        return "[]"
    if _ESCAPED.search("".join(ids)):
        return canonical_json(list(ids))
    return '["' + '","'.join(ids) + '"]'


def _chunks(ids: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(ids), _CHUNK):
        yield ids[i : i + _CHUNK]


def _marks(n: int) -> str:
    return ",".join("?" * n)


def state_row(st: State, truth: Truth) -> tuple[Any, ...]:
    """The ``states`` row of a new, active state."""
    status = st.status.value if st.status is not None else None
    return (
        st.id,
        st.kind,
        status,
        1,
        None,
        truth.value,
        int(bool(st.atoms)),
        st.model_dump_json(),
    )


@functools.lru_cache(maxsize=4096)
def _rules_extra(rules: tuple[str, ...]) -> str:
    """The ``extra`` column of a justification that records rules and nothing else (every
    rule justification: a few hundred distinct values, written over and over)."""
    return canonical_json({"checked": {}, "notes": {}, "rules": rules})


_RULES_PREFIX = _rules_extra(()).removesuffix("[]}")
_RULES_ONLY = (len(_RULES_PREFIX), _RULES_PREFIX)
"""How long the start every ``extra`` of rules alone shares is, and that start (checked and
notes empty, rules last: the ``lean_heads`` query tells such a column by it)."""


_Row = tuple[str, str, str, str, str]
"""A ``justifications`` row."""


def justification_row(j: Justification) -> _Row:
    """The ``justifications`` row of a justification."""
    extra = ""
    if j.rules and not (j.checked or j.notes or j.proposed):
        extra = _rules_extra(j.rules)
    elif j.checked or j.notes or j.proposed:
        fields: dict[str, Any] = {
            "checked": {k: v.value for k, v in j.checked.items()},
            "notes": j.notes,
            "rules": j.rules,
        }
        if j.proposed:  # absent from rows written before candidates were proposed
            fields["proposed"] = j.proposed
        extra = canonical_json(fields)
    return (
        j.head,
        ids_json(j.premises),
        ids_json(j.unless),
        j.origin.value,
        extra,
    )


@functools.lru_cache(maxsize=4096)
def _rules_only(extra: str) -> tuple[str, ...] | None:
    """The rules of an ``extra`` column that holds nothing else (a rule justification's: a few
    hundred distinct ones are read over and over, issue 23), else None."""
    more = json.loads(extra)
    if more["checked"] or more["notes"] or more.get("proposed"):
        return None
    return tuple(more["rules"])


@functools.lru_cache(maxsize=1 << 15)
def _justification(head: str, premises: str, unless: str, origin: str, extra: str) -> Justification:
    """A ``justifications`` row as a Justification, kept for the next read of the same row:
    a dense fact's revision reads every justification of each member it touches, and the
    next one reads most of them again (the objects are frozen, and shared: issue 23)."""
    fields: dict[str, Any] = {
        "head": head,
        "premises": decode_ids(premises),
        "unless": decode_ids(unless),
        "origin": Origin(origin),
        "checked": {},
        "notes": {},
        "rules": (),
        "proposed": {},
    }
    if extra and (rules := _rules_only(extra)) is not None:
        fields["rules"] = rules
    elif extra:
        fields.update(decode_extra(extra))
    return trusted(Justification, fields)


def _state(row: tuple[Any, ...], full: bool) -> State:
    """A ``states`` row (:attr:`SQLiteStore._STATE_COLUMNS`, then ``body`` if ``full``) as a
    State: whole, or with only what revision reads (id, kind, status)."""
    if full:
        return State.model_validate_json(row[6])
    return trusted(
        State,
        {
            "id": row[0],
            "kind": row[1],
            "text": "",
            "atoms": (),
            "source": Source.user,
            "status": ActionStatus(row[2]) if row[2] else None,
            "metadata": {},
            "created_at": None,
            "session": None,
        },
    )


class SQLiteStore:
    """The embedded default store: one SQLite file in WAL mode (``":memory:"`` for tests)."""

    name = "sqlite.v1"
    reads_lean = True
    """Whether a revision may read heads lean (:meth:`lean_heads`; ``engine.steady``)."""
    _postings: dict[str, tuple[int, list[tuple[int, str, int]]]] | None = None
    """Postings read, by term: ``(limit, postings)`` (:meth:`postings`); None where the store
    keeps none (the PostgreSQL store, which does not open the file this does)."""

    _lean: LeanKept | None = None
    """What lean reads learnt of heads, moved by this connection's commits
    (:mod:`stategraph.store.leankept`)."""

    _seen: tuple[At, dict[tuple[str, str, str], tuple[Any, ...] | None]] | None = None
    """The ``justifications`` rows read by key at one state of the store (:data:`At`), None
    for a key not stored: the steps of one revision ask for the same rows (linking, keeping
    the writer's rule links, the commit's digest: a dense fact's thousand, three times)."""

    _sums: tuple[int, tuple[int, str], Sums] | None = None
    """The tables' sums this connection's last commit kept, with ``PRAGMA data_version``
    then and the head it wrote: the next commit takes them from here while no other
    connection has written since (:meth:`_tables_base`)."""

    def __init__(
        self, path: str | Path = ":memory:", *, busy_timeout: float = 30.0, create: bool = True
    ) -> None:
        """Open a store, or create one.

        Opening a store of this schema version only reads, so it neither waits for a writer
        nor makes one wait; the write lock is taken only to create a store or migrate an older
        one. A file that is not a store is refused exactly as it was found.

        Args:
            path: the store's file, or ``":memory:"``.
            busy_timeout: seconds a write (or the creation or migration on open) waits for
                another connection's write lock before :class:`StoreBusyError`; reads never
                wait for a writer.
            create: make a store at a missing path or in an empty file. Read-only callers pass
                False, so that a mistyped path is an error rather than a new, empty store.

        Raises:
            StoreNotFoundError: the path does not exist and ``create`` is False.
            StoreBusyError: the store must be created or migrated, and another connection held
                the write lock past ``busy_timeout``.
            StoreError: the path is a folder, an empty file (with ``create`` False), not a
                stategraph store, or a store of a newer schema version.
        """
        if not busy_timeout >= 0 or math.isinf(busy_timeout):  # NaN fails the comparison
            raise InvalidInputError("store", [("busy_timeout", "must be a number of seconds >= 0")])
        self.path = str(path)
        self._savepoints = 0
        self._docs: dict[int, tuple[int, str, int]] = {}
        """The term index's documents read so far: ``(seq, state id, lexical size)``. A
        committed ``docs`` row never changes, so they stay valid until a rollback of this
        connection undoes rows it wrote (a later document may then take the same seq):
        :meth:`_locked` forgets them all then."""
        self._postings = {}
        self._postings_version = -1
        self._open_edges: bool | None = None  # whether edges_open_into exists: asked once
        self.busy_timeout = busy_timeout
        self.conn = connect(self.path, busy_timeout, create)
        try:
            self._open_schema(create)
            self.conn.execute("PRAGMA synchronous=NORMAL")
            # Revisions read scattered rows of large files: let the OS map them and keep a
            # generous page cache, instead of SQLite's 2 MB default.
            self.conn.execute("PRAGMA cache_size=-131072")
            self.conn.execute("PRAGMA mmap_size=4294967296")
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise StoreError(self.path, f"not a usable SQLite store: {exc}") from exc
        except BaseException:
            self.conn.close()
            raise

    def _open_schema(self, create: bool) -> None:
        """Identify the file, then create or migrate it only if it must be (under the write
        lock, identifying it again there: another process may have done it meanwhile)."""
        version = identify(self.conn, self.path, IDENTIFYING)
        if version is None and not create:
            raise StoreError(
                self.path,
                "is an empty file, not a stategraph store (it was left as it is): give the path "
                "of a store, or write to it to create one",
            )
        self._check_version(version)
        self._use_wal()
        if version == SCHEMA_VERSION and self._tables() >= _TABLES:
            return
        with self._locked():
            version = identify(self.conn, self.path, IDENTIFYING)
            self._check_version(version)
            self._create("justifications")
            if version is None:
                self.conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif version < SCHEMA_VERSION:
                self._migrate(version)
            self._fill_indexes()
            self.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    def ensure_tables(self, schema: str) -> None:
        """Create the tables and indexes another module keeps in the store's file, where they
        are missing (the incremental linker's atom index, for one).

        Call it after opening, as often as wanted: when everything ``schema`` names exists it
        only reads, so opening stays free of the write lock; otherwise every statement runs in
        one write transaction.

        Args:
            schema: ``CREATE TABLE IF NOT EXISTS`` / ``CREATE INDEX IF NOT EXISTS`` statements,
                separated by ``;``.

        Raises:
            StoreBusyError: something had to be created, and another connection held the
                write lock past the busy timeout.
        """
        names = set(_CREATED.findall(schema))
        present = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}
        if names and names <= present:
            return
        with self._locked():
            for stmt in schema.split(";"):
                if stmt.strip():
                    self.conn.execute(stmt)

    def _check_version(self, version: int | None) -> None:
        if version is not None and not 1 <= version <= SCHEMA_VERSION:
            raise StoreError(
                self.path,
                f"schema version {version}, this stategraph reads version {SCHEMA_VERSION}: "
                "upgrade stategraph or migrate the store",
                version=version,
            )

    def _use_wal(self) -> None:
        """Switch a store's file to WAL (once, when it is created), where readers do not wait
        for the writer."""
        if self.path == ":memory:":
            return
        (mode,) = self.conn.execute("PRAGMA journal_mode").fetchone()
        if mode != "wal":
            self.conn.execute("PRAGMA journal_mode=WAL")

    def _tables(self) -> set[str]:
        return {
            r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }

    def _open_edges_indexed(self) -> bool:
        """Whether the store has the index of open edges (:data:`_OPEN_EDGES`)."""
        if self._open_edges is None:
            sql = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'edges_open_into'"
            self._open_edges = self.conn.execute(sql).fetchone() is not None
        return self._open_edges

    def _create(self, justifications: str) -> None:
        for stmt in _SCHEMA.format(justifications=justifications).split(";"):
            if stmt.strip():
                self.conn.execute(stmt)

    def _migrate(self, version: int) -> None:
        """Bring a store of an older schema version to this one (inside the transaction that
        created the tables it lacked)."""
        if version == 1:
            self._migrate_from_v1()
        if version <= 2:
            self._migrate_from_v2()
        # From 3: log rows may now be BLOBs. Nothing is rewritten: rows written as text stay
        # text, verify as they are, and only new rows are stored compactly.
        if version <= 4:
            self._keep_past_from_head()
        if version <= 7:  # linked memory to memory: relinked through atom nodes next change
            for table in atom_index.LEGACY_TABLES:
                self.conn.execute(f"DROP TABLE IF EXISTS {table}")
            self.conn.execute("DELETE FROM meta WHERE key = 'setting:link_groups'")
        self.conn.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))

    def _fill_indexes(self) -> None:
        """Fill what indexes a store written before them lacks: the kind of each indexed
        memory (recent facts are candidates) and its session (a store written before
        sessions were kept has none: NULL), and the atom index (incremental linking)."""
        c = self.conn
        columns = {r[1] for r in c.execute("PRAGMA table_info(docs)")}
        if "kind" not in columns:
            c.execute("ALTER TABLE docs ADD COLUMN kind TEXT NOT NULL DEFAULT ''")
            c.execute("UPDATE docs SET kind = (SELECT kind FROM states WHERE id = docs.state_id)")
        if "session" not in columns:
            c.execute("ALTER TABLE docs ADD COLUMN session TEXT")
        c.execute("CREATE INDEX IF NOT EXISTS docs_by_kind ON docs (kind, seq)")
        c.execute(_BY_SESSION)
        c.execute(_OPEN_EDGES)
        self._open_edges = True
        if c.execute("SELECT 1 FROM atoms LIMIT 1").fetchone() is None:
            atom_index.write(c, self.with_atoms())
        review_queue.fill(c)

    def _keep_past_from_head(self) -> None:
        """A store written before the past was kept (:mod:`stategraph.store.past`) has it from
        now on: record from which revision, so that a read of an earlier one says so."""
        head = self._last()[0]
        if head > 0:
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", (past.SINCE_KEY, str(head))
            )

    def _migrate_from_v1(self) -> None:
        """Version 1 kept justifications in a rowid table and had no flags on edges: move the
        rows to the clustered table, and open every edge (sound; revisions close them)."""
        c = self.conn
        c.execute("ALTER TABLE edges ADD COLUMN follow INTEGER NOT NULL DEFAULT 1")
        self._create("justifications_v2")
        c.execute("INSERT INTO justifications_v2 SELECT * FROM justifications")
        c.execute("DROP TABLE justifications")
        c.execute("ALTER TABLE justifications_v2 RENAME TO justifications")

    def _migrate_from_v2(self) -> None:
        """Version 2 had no term index and no judge calls: index every stored state, in id
        order, and give the log its (empty) calls column."""
        columns = {r[1] for r in self.conn.execute("PRAGMA table_info(revisions)")}
        if "calls" not in columns:
            self.conn.execute("ALTER TABLE revisions ADD COLUMN calls TEXT NOT NULL DEFAULT ''")
        self.index_terms(
            State.model_validate_json(body)
            for (body,) in self.conn.execute("SELECT body FROM states ORDER BY id")
        )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: committed if the block returns, rolled back if it raises.

        Raises:
            StoreBusyError: another connection held the write lock past the busy timeout
                (when beginning; nothing was written).
            TamperedStoreError: a verification of the log failed, and writes are refused
                until :meth:`acknowledge_tamper`.
        """
        with self._locked():
            self._refuse_if_tampered()
            yield

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """A write transaction without the tamper check (for the store's own bookkeeping).

        Inside a transaction already open on this connection (:meth:`Memory.atomic
        <stategraph.memory.Memory.atomic>`), a savepoint: the block is undone alone if it
        raises, and committed with the outer transaction.
        """
        if self.conn.in_transaction:
            self._savepoints += 1
            name = f"stategraph_{self._savepoints}"
            self.conn.execute(f"SAVEPOINT {name}")
            try:
                yield
                self.conn.execute(f"RELEASE {name}")
            except BaseException:
                self._rolled_back()
                if self.conn.in_transaction:
                    self.conn.execute(f"ROLLBACK TO {name}")
                    self.conn.execute(f"RELEASE {name}")
                raise
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.conn.execute("COMMIT")
        except BaseException:
            self._rolled_back()
            if self.conn.in_transaction:  # some errors (a full disk) roll back by themselves
                self.conn.execute("ROLLBACK")
            raise

    def _rolled_back(self) -> None:
        """Forget what was kept of rows a rollback undoes: the documents of the term index
        (:meth:`postings`) and the atom index's dates (:func:`atom_index.rolled_back`), and
        whether the index of open edges is there (the write that made it may be undone)."""
        self._open_edges = None
        self._lean = self._seen = None
        self._docs.clear()
        if self._postings is not None:
            self._postings.clear()
        self._sums = None
        atom_index.rolled_back(self.conn)

    # ---- reading ------------------------------------------------------------------------

    def _select(self, sql: str, ids: Iterable[str]) -> Iterator[tuple[Any, ...]]:
        """Run ``sql`` (with one ``{}`` for the placeholders) over ids, in chunks."""
        unique = sorted(set(ids))
        for chunk in _chunks(unique):
            yield from self.conn.execute(sql.format(_marks(len(chunk))), chunk)

    def cone(
        self,
        seeds: Iterable[str],
        max_depth: int | None = None,
        max_cone: int | None = None,
        cited: Iterable[str] = (),
    ) -> Cone:
        """The affected cone of the seeds, and the part of it a change can move.

        One breadth-first search over the ``edges`` index gives every hop distance; the open
        edges it meets are kept, and the states to solve are those the seeds reach along them.
        With a bound, the search stops there (:func:`stategraph.engine.bounded.walk`).
        """
        return walk(self, seeds, max_depth, max_cone, cited)

    def out_edges(self, srcs: Sequence[str]) -> Iterator[tuple[str, str, int]]:
        """``(src, head, follow)`` for every edge out of these states."""
        return self._select("SELECT src, head, follow FROM edges WHERE src IN ({})", srcs)

    def cited_by(self, heads: Sequence[str]) -> dict[str, set[str]]:
        """The states the justifications of each head cite (premises and ``unless``)."""
        out: dict[str, set[str]] = {}
        sql = "SELECT head, premises, unless FROM justifications WHERE head IN ({})"
        for head, premises, unless in self._select(sql, heads):
            out.setdefault(head, set()).update(decode_ids(premises), decode_ids(unless))
        return out

    def changeable(self, ids: Sequence[str]) -> set[str]:
        """The stored states among ``ids`` that are active and have a justification (the
        others change value only when a change names them)."""
        sql = (
            "SELECT id FROM states WHERE active=1 AND id IN ({}) "
            "AND EXISTS (SELECT 1 FROM justifications WHERE head = states.id)"
        )
        return {r[0] for r in self._select(sql, ids)}

    def open_into(self, heads: Sequence[str]) -> dict[str, set[str]]:
        """For each head, the states whose edges into it are open (a step backwards along
        the ``edges`` index, which is keyed by source: the pairs are looked up one by one)."""
        pairs = [(src, h) for h, cited in self.cited_by(heads).items() for src in sorted(cited)]
        out: dict[str, set[str]] = {}
        for i in range(0, len(pairs), _CHUNK // 2):
            chunk = pairs[i : i + _CHUNK // 2]
            values = ",".join("(?,?)" for _ in chunk)
            sql = (
                f"SELECT e.src, e.head FROM (VALUES {values}) AS p "
                "JOIN edges e ON e.src = p.column1 AND e.head = p.column2 WHERE e.follow = 1"
            )
            for src, head in self.conn.execute(sql, [x for pair in chunk for x in pair]):
                out.setdefault(head, set()).add(src)
        return out

    _STATE_COLUMNS = "id, kind, status, active, superseded_by, truth"

    def _justifications_of(self, heads: Iterable[str]) -> Iterator[Justification]:
        sql = "SELECT head, premises, unless, origin, extra FROM justifications WHERE head IN ({})"
        for row in self._select(sql, heads):
            yield _justification(*row)

    def _graph(
        self,
        heads: Iterable[str],
        justs: Iterable[Justification],
        full: bool,
        graph: SupportGraph | None = None,
    ) -> SupportGraph:
        graph = SupportGraph() if graph is None else graph
        heads = set(heads)
        justs = list(justs)
        cited: set[str] = set()
        for j in justs:
            cited.update(j.premises)
            cited.update(j.unless)
        known = graph.states.keys()
        load = heads - known
        boundary = cited - heads - known - graph.truth.keys()
        cols = self._STATE_COLUMNS + (", body" if full else "")
        for row in self._select(f"SELECT {cols} FROM states WHERE id IN ({{}})", load | boundary):
            if row[0] in load:
                graph.add_state(_state(row, full), TRUTH_OF[row[5]])
                if not row[3]:
                    graph.deactivate(row[0], row[4])
            else:
                graph.set_truth(row[0], TRUTH_OF[row[5]])
        for j in justs:
            graph.add_justification(j)
        return graph

    def subgraph(self, ids: Iterable[str] = (), full: bool = False) -> SupportGraph:
        """The states ``ids`` with their justifications, and the truth values of the states
        those justifications cite (the boundary of a revision, which needs nothing else of
        them: see :class:`~stategraph.engine.graph.SupportGraph`).

        Args:
            ids: states to load (unknown ids are simply absent from the result).
            full: load whole states (texts, atoms, metadata), not only what revision needs.
        """
        heads = set(ids)
        return self._graph(heads, self._justifications_of(heads), full)

    def add_boundary(self, graph: SupportGraph, ids: Iterable[str]) -> None:
        """Add these states to a subgraph without their justifications (those not there yet):
        a revision cites them and reads only their values (a dense atom's node cited by a new
        firing holds a thousand justifications it does not need)."""
        self._graph(set(ids) - graph.states.keys(), (), False, graph)

    def extend(self, graph: SupportGraph, heads: Iterable[str]) -> None:
        """Add more heads to a subgraph: their justifications, and the truth values of the
        states those cite.

        The heads must not have justifications in ``graph`` yet (they may be there as
        boundary values, cited by others).
        """
        heads = set(heads)
        self._graph(heads, self._justifications_of(heads), False, graph)

    def lean_heads(self, graph: SupportGraph, heads: Iterable[str]) -> LeanRead:
        """Load these heads' states into ``graph`` and read, not load, their justifications:
        the premises of each, whether all are plain, which edges into each are open, and
        the kind and value of every state they cite (:mod:`stategraph.engine.steady`).

        A dense head has sixty justifications and one or two open edges: the edges are found
        through the index of open edges (``edges_open_into``), never pair by pair, and the
        premises of the members of a dense group, which are the same, are decoded once.
        """
        heads = set(heads)
        self._graph(heads, (), False, graph)
        at = (self._data_version(), self._last())
        kept = self._lean
        # nothing kept, another connection wrote, or keeping these too would pass the bound
        if kept is None or kept.at != at or not kept.room(len(heads - kept.heads.keys())):
            kept = self._lean = LeanKept(at)
        missing = sorted(heads - kept.heads.keys())
        # the members of a dense group have the same premises: each list is decoded once
        decoded: dict[str, tuple[tuple[str, ...], ...]] = {}
        # plain: no unless, not recovered, and an extra column of rules alone (_rules_extra)
        sql = (
            "SELECT head, group_concat(premises, char(31)), min(unless = '[]' "
            "AND origin != 'recovered' AND (extra = '' OR substr(extra, 1, ?) = ?)) "
            "FROM justifications WHERE head IN ({}) GROUP BY head"
        )
        rows = (
            row
            for chunk in _chunks(missing)
            for row in self.conn.execute(sql.format(_marks(len(chunk))), (*_RULES_ONLY, *chunk))
        )
        for head in missing:  # a head without justifications has none, and is plain
            kept.keep(head, (), True)
        for head, joined, is_plain in rows:
            found = decoded.get(joined)
            if found is None:
                found = decoded[joined] = tuple(sorted(map(decode_ids, joined.split("\x1f"))))
            kept.keep(head, found, bool(is_plain))
        premises = {h: kept.heads[h][0] for h in heads}
        plain = {h: kept.heads[h][1] for h in heads}
        opened: dict[str, set[str]] = {}
        if self._open_edges_indexed():
            # every edge into a plain head comes from a premise of one of its justifications
            sql = "SELECT head, src FROM edges WHERE follow = 1 AND head IN ({})"
        else:  # a store not written to since the index came: each premise's edge looked up
            sql = (
                "SELECT DISTINCT j.head, p.value FROM justifications j, json_each(j.premises) p "
                "JOIN edges e ON e.src = p.value AND e.head = j.head "
                "WHERE e.follow = 1 AND j.head IN ({})"
            )
        for head, src in self._select(sql, [h for h in heads if plain[h]]):
            opened.setdefault(head, set()).add(src)
        lists = {id(ps): ps for ps in premises.values()}.values()  # a group's members share one
        cited = {x for ps in lists for p in ps for x in p}
        found_rows = self._select("SELECT id, kind, truth FROM states WHERE id IN ({})", cited)
        return LeanRead(
            {h: LeanHead(premises[h], plain[h], frozenset(opened.get(h, ()))) for h in heads},
            {sid: (kind, TRUTH_OF[truth]) for sid, kind, truth in found_rows},
        )

    def ancestors(self, state_id: str) -> SupportGraph:
        """A state and everything its justifications rest on, transitively, with texts."""
        seen = {state_id}
        frontier = [state_id]
        justs: list[Justification] = []
        while frontier:
            found = list(self._justifications_of(frontier))
            justs += found
            nxt = {p for j in found for p in j.premises} - seen
            seen |= nxt
            frontier = sorted(nxt)
        return self._graph(seen, justs, full=True)

    def state(self, state_id: str) -> tuple[State, bool, Truth] | None:
        """One whole state, whether it is active, and its truth value."""
        cols = self._STATE_COLUMNS + ", body"
        row = self.conn.execute(f"SELECT {cols} FROM states WHERE id=?", (state_id,)).fetchone()
        if row is None:
            return None
        return _state(row, full=True), bool(row[3]), TRUTH_OF[row[5]]

    def states(self) -> list[State]:
        """Every state, sorted by id."""
        return [
            State.model_validate_json(body)
            for (body,) in self.conn.execute("SELECT body FROM states ORDER BY id")
        ]

    def ids_with_truth(self, truth: Truth) -> frozenset[str]:
        """Ids of the states with this truth value."""
        rows = self.conn.execute("SELECT id FROM states WHERE truth = ?", (truth.value,))
        return frozenset(r[0] for r in rows)

    def justifications(self, head: str | None = None) -> list[Justification]:
        """Every justification (or those of one head), sorted by identity."""
        if head is not None:
            justs = list(self._justifications_of([head]))
        else:
            sql = "SELECT head, premises, unless, origin, extra FROM justifications"
            justs = [_justification(*row) for row in self.conn.execute(sql)]
        return sorted(justs, key=lambda j: j.key)

    def justifications_for(self, heads: Iterable[str]) -> list[Justification]:
        """The justifications of these heads, sorted by identity."""
        return sorted(self._justifications_of(heads), key=lambda j: j.key)

    def existing(self, keys: Iterable[JustKey]) -> set[JustKey]:
        """Which of these justification identities are stored."""
        wanted = set(keys)
        found = self._justifications_of({k[0] for k in wanted})
        return {j.key for j in found} & wanted

    def justifications_by_key(self, keys: Iterable[JustKey]) -> dict[JustKey, Justification]:
        """The stored justifications with these identities, found by the primary key (a
        head's other justifications are not read: linking a change asks about the few its
        derivations add or drop, issue 23)."""
        wanted = {(h, ids_json(p), ids_json(u)): (h, p, u) for h, p, u in keys}
        return {wanted[r[:3]]: _justification(*r) for r in self.justification_rows(list(wanted))}

    def justification_rows(self, keys: Sequence[tuple[str, str, str]]) -> list[tuple[Any, ...]]:
        """The stored ``justifications`` rows with these keys (head and the two id arrays as
        stored), by primary key, a few hundred to a statement; a row already read at this
        state of the store (the log's head, and no other connection's write since) is not
        read again."""
        at = (self._data_version(), self._last())
        if self._seen is None or self._seen[0] != at:
            self._seen = (at, {})
        seen = self._seen[1]
        missing = [k for k in dict.fromkeys(keys) if k not in seen]
        if missing:
            key, rest = ("head", "premises", "unless"), ("origin", "extra")
            found = {r[:3]: r for r in self._rows_by_key("justifications", key, rest, missing)}
            seen.update((k, found.get(k)) for k in missing)
        return [row for k in keys if (row := seen[k]) is not None]

    def citing(self, state_id: str) -> list[Justification]:
        """Justifications that cite a state as a premise."""
        heads = self.heads_citing([state_id])
        return [j for j in self._justifications_of(heads) if state_id in j.premises]

    def with_atoms(self) -> list[State]:
        """Every state that carries atoms, active or not (what rule packs link)."""
        sql = "SELECT body FROM states WHERE has_atoms = 1 ORDER BY id"
        return [State.model_validate_json(body) for (body,) in self.conn.execute(sql)]

    def inactive(self, ids: Iterable[str]) -> set[str]:
        """The stored states among ``ids`` that are retracted or superseded (what linking
        keeps last under its cap)."""
        sql = "SELECT id FROM states WHERE active=0 AND id IN ({})"
        return {r[0] for r in self._select(sql, ids)}

    def has_states(self) -> bool:
        """True unless the store is empty."""
        return self.conn.execute("SELECT 1 FROM states LIMIT 1").fetchone() is not None

    def ids(self, limit: int | None = None, after: str | None = None) -> list[str]:
        """Ids of the stored states (active or not), sorted; at most ``limit``; with
        ``after``, only the ids that sort after it (a page of a listing).

        A bounded read of the primary key alone: a caller that only needs to know whether the
        store is small (a picture of all of it) asks for ``limit + 1`` and reads no more.
        """
        if after is not None:
            sql = "SELECT id FROM states WHERE id > ? ORDER BY id LIMIT ?"
            rows = self.conn.execute(sql, (after, _MAX_SEQ if limit is None else max(limit, 0)))
            return [r[0] for r in rows]
        sql = "SELECT id FROM states ORDER BY id" + ("" if limit is None else " LIMIT ?")
        args = () if limit is None else (max(limit, 0),)
        return [r[0] for r in self.conn.execute(sql, args)]

    def last_numbered(self, prefix: str) -> int:
        """The greatest ``n`` for which ``prefix`` followed by ``n`` is a stored id, when
        every number from 2 to it is one (the numbered versions of a key,
        :mod:`stategraph.integrations.ids`); 1 when ``prefix`` + ``2`` is not stored.

        One query whatever the number: a binary search inside the database, 62 lookups of
        the primary key (so a key rewritten 3,000 times costs what one rewritten twice does,
        where reading the versions' range cost in proportion to them)."""
        (found,) = self.conn.execute(_LAST_NUMBERED, (prefix,)).fetchone()
        return int(found)

    def present(self, ids: Iterable[str]) -> set[str]:
        """Which of these ids are stored."""
        return {r[0] for r in self._select("SELECT id FROM states WHERE id IN ({})", ids)}

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        """Truth values of the stored states among ``ids``."""
        sql = "SELECT id, truth FROM states WHERE id IN ({})"
        return {r[0]: TRUTH_OF[r[1]] for r in self._select(sql, ids)}

    def kinds(self, ids: Iterable[str]) -> dict[str, str]:
        """Kinds of the stored states among ``ids``."""
        return dict(self._select("SELECT id, kind FROM states WHERE id IN ({})", ids))

    def heads_citing(self, ids: Iterable[str]) -> set[str]:
        """Stored heads whose justifications cite any of these ids."""
        return {r[0] for r in self._select("SELECT head FROM edges WHERE src IN ({})", ids)}

    def dependents(self, state_id: str, limit: int) -> list[str]:
        """The first ``limit`` heads (by id) whose justifications cite ``state_id``: a read
        that costs ``limit`` rows of the ``edges`` index however many cite it (a picture's)."""
        sql = "SELECT head FROM edges WHERE src = ? ORDER BY head LIMIT ?"
        return [r[0] for r in self.conn.execute(sql, (state_id, limit))]

    # ---- the term index (candidate proposal) ----------------------------------------------

    def doc_count(self) -> int:
        """How many memories the term index holds."""
        row = self.conn.execute("SELECT max(seq) FROM docs").fetchone()
        return int(row[0] or 0)

    def term_df(self, terms: Iterable[str]) -> dict[str, int]:
        """How many indexed memories carry each of these terms (absent: none)."""
        sql = "SELECT term, df FROM term_df WHERE term IN ({})"
        return {t: int(df) for t, df in self._select(sql, terms)}

    def postings(self, term: str, limit: int) -> list[tuple[int, str, int]]:
        """The newest ``limit`` memories carrying a term: ``(seq, state id, lexical size)``.

        The postings are read from ``terms`` alone and their documents from :attr:`_docs`
        (filled from ``docs`` on a miss): a proposal reads the same recent memories term after
        term, and joining each posting to ``docs`` in SQL cost more than the posting itself.
        And they are kept by term (:attr:`_postings`), as memories written one after another
        look up the same terms again: :meth:`index_terms` puts each new document first in
        the kept postings of its terms, a rollback on this connection forgets them all, and
        so does a commit of another connection (``PRAGMA data_version``).
        """
        kept = self._postings
        assert kept is not None
        (version,) = self.conn.execute("PRAGMA data_version").fetchone()
        if version != self._postings_version:  # another connection wrote: read afresh
            kept.clear()
            self._postings_version = version
        found = kept.get(term)
        if found is not None and found[0] == limit:
            return found[1]
        if len(kept) >= _POSTINGS_CACHE:
            kept.clear()
        kept[term] = (limit, out := self._read_postings(term, limit))
        return out

    def _data_version(self) -> int | None:
        """SQLite's ``PRAGMA data_version``: it changes when another connection commits."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def _read_postings(self, term: str, limit: int) -> list[tuple[int, str, int]]:
        sql = "SELECT doc FROM terms WHERE term = ? ORDER BY doc DESC LIMIT ?"
        seqs = [r[0] for r in self.conn.execute(sql, (term, limit))]
        docs = self._docs
        try:
            return [docs[s] for s in seqs]
        except KeyError:
            pass
        missing = [s for s in seqs if s not in docs]
        if len(docs) + len(missing) > _DOC_CACHE:
            docs.clear()
            missing = seqs
        q = "SELECT seq, state_id, size FROM docs WHERE seq IN ({})"
        for i in range(0, len(missing), _CHUNK):
            chunk = missing[i : i + _CHUNK]
            for seq, sid, size in self.conn.execute(q.format(_marks(len(chunk))), chunk):
                docs[seq] = (int(seq), str(sid), int(size))
        # every posting has its document; one without would be left out, as a join leaves it
        return [docs[s] for s in seqs if s in docs]

    def recent(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds: ``(seq, state id,
        lexical size)``, newest first."""
        out: list[tuple[int, str, int]] = []
        sql = "SELECT seq, state_id, size FROM docs WHERE kind = ? ORDER BY seq DESC LIMIT ?"
        for kind in sorted(set(kinds)):
            out += [(int(a), str(b), int(c)) for a, b, c in self.conn.execute(sql, (kind, limit))]
        return sorted(out, reverse=True)[:limit]

    def holding(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds that hold now:
        ``(seq, state id, lexical size)``, newest first.

        Read down the kind's index newest first, so it costs the memories of these kinds
        that no longer hold written since the ``limit``-th one that does.
        """
        out: list[tuple[int, str, int]] = []
        sql = (
            "SELECT d.seq, d.state_id, d.size FROM docs d JOIN states s ON s.id = d.state_id "
            "WHERE d.kind = ? AND s.active = 1 AND s.truth = 'true' ORDER BY d.seq DESC LIMIT ?"
        )
        for kind in sorted(set(kinds)):
            out += [(int(a), str(b), int(c)) for a, b, c in self.conn.execute(sql, (kind, limit))]
        return sorted(out, reverse=True)[:limit]

    def latest(self, limit: int) -> list[tuple[int, str, int, str]]:
        """The ``limit`` most recently indexed memories, whatever they are: ``(seq, state id,
        lexical size, kind)``, newest first (read down the index's key: costs ``limit`` rows)."""
        sql = "SELECT seq, state_id, size, kind FROM docs ORDER BY seq DESC LIMIT ?"
        return [(int(a), str(b), int(c), str(d)) for a, b, c, d in self.conn.execute(sql, (limit,))]

    def in_session(
        self, session: str, limit: int, kinds: Iterable[str]
    ) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds written in ``session``
        that hold now: ``(seq, state id, lexical size)``, newest first. Read down the session's
        index (:data:`_BY_SESSION`): it costs the session's memories of these kinds that no
        longer hold written since the ``limit``-th one that does."""
        out: list[tuple[int, str, int]] = []
        sql = (
            "SELECT d.seq, d.state_id, d.size FROM docs d JOIN states s ON s.id = d.state_id "
            "WHERE d.session = ? AND d.kind = ? AND s.active = 1 AND s.truth = 'true' "
            "ORDER BY d.seq DESC LIMIT ?"
        )
        for kind in sorted(set(kinds)):
            rows = self.conn.execute(sql, (session, kind, limit))
            out += [(int(a), str(b), int(c)) for a, b, c in rows]
        return sorted(out, reverse=True)[:limit]

    def index_terms(self, states: Iterable[State]) -> None:
        """Add memories to the term index (inside a transaction); states with neither text nor
        atoms are not indexed. A memory's withheld atoms, and the things its text names
        outside any atom, are indexed beside its own atoms: what it names is evidence for its
        neighbours even when its reading cannot carry a rule link
        (:mod:`stategraph.grounding.reading`)."""
        from stategraph.grounding.reading import evidence_atoms, named_values
        from stategraph.grounding.terms import memory_terms, predicate_terms, value_terms
        from stategraph.text import fulltext

        # atom nodes (stategraph.nodes) are no memories: never recalled, never a candidate
        states = [st for st in states if st.kind != ATOM_KIND]
        fulltext.index(self, states)  # recall's full-text index (stategraph.text.fulltext)
        seq = self.doc_count()
        docs: list[tuple[int, str, int, str, str | None]] = []
        rows: list[tuple[str, int]] = []
        counts: dict[str, int] = {}
        for st in states:
            evidence = evidence_atoms(st.atoms, st.metadata)
            terms = memory_terms(st.text, evidence)
            if evidence or named_values(st.metadata):
                terms = terms | value_terms(named_values(st.metadata)) | predicate_terms(evidence)
            if not terms:
                continue
            seq += 1
            size = sum(t.startswith("g:") for t in terms)
            docs.append((seq, st.id, size, st.kind, st.session))
            for t in terms:
                rows.append((t, seq))
                counts[t] = counts.get(t, 0) + 1
        if not docs:
            return
        self.conn.executemany("INSERT INTO docs VALUES (?,?,?,?,?)", docs)
        self.conn.executemany("INSERT INTO terms VALUES (?,?)", rows)
        self.conn.executemany(
            "INSERT INTO term_df VALUES (?,?) "
            "ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
            sorted(counts.items()),
        )
        kept = self._postings
        if kept:  # each new document is the newest posting of its terms
            new = {d[0]: (d[0], d[1], d[2]) for d in docs}
            for t, s in rows:
                found = kept.get(t)
                if found is not None:
                    kept[t] = (found[0], [new[s], *found[1]][: found[0]])

    # ---- writing ------------------------------------------------------------------------

    def commit(
        self,
        revision: Revision,
        config: dict[str, Any],
        calls: Sequence[JudgeCall] = (),
        expect_head: tuple[int, str] | None = None,
        asked: Change | None = None,
    ) -> LogEntry:
        """Write one revision and append its log entry, in one transaction; the judge calls
        it made are logged with it, and their answers cached, and the review queue follows
        its verdicts (:mod:`stategraph.store.review_queue`).

        Args:
            revision: what to write.
            config: the configuration the revision was computed with.
            calls: the judge calls it made or served.
            expect_head: the log's head when the revision started reading the store; if
                another writer has committed since, nothing is written.
            asked: the change as the caller gave it, before grounding, linking, candidates
                and the judge completed it (the report's ``change``): the log's ``change``
                column keeps it, so that ``stategraph audit verify`` can replay the revision
                through the same steps. None logs the report's change there.

        Raises:
            ConcurrentChangeError: ``expect_head`` is no longer the head (with
                ``attempts=1``: the caller decides whether to recompute).
        """
        with self.transaction():
            last = self._last()
            if expect_head is not None and last != expect_head:
                raise ConcurrentChangeError(self.path, 1)
            report = revision.report
            if self.reads_lean and not self._open_edges_indexed():  # written before it came
                self.conn.execute(_OPEN_EDGES)
                self._open_edges = True
            # read once: inside the write lock nobody else commits, and this connection's
            # own writes leave it as it is
            version = self._data_version()
            base, config = self._tables_base(config, head=last, version=version)
            added = [justification_row(j) for j in revision.writes.added]  # made once here
            created = {st.id for st in revision.writes.new_states}
            rows = self._touched_rows(_touched(revision.writes, report, added), created)
            self._write(revision.writes, rows.edges, added)
            queue = review_queue.record(self.conn, last[0] + 1, report, set(rows.review))
            sums, kept = rows.moved(base, revision.writes, added, queue, last[0] + 1)
            for table, past_rows in kept.items():
                if past_rows:
                    self.conn.executemany(past.INSERT[table], past_rows)
            entry = self.append(
                (asked or report.change).model_dump_json(by_alias=True),
                report.model_dump_json(by_alias=True),
                {**config, CONFIG_KEY: sums.digest()},
                report,
                calls,
                last=last,
            )
            self.keep_sums(entry.seq, sums)
            self._moved_lean((version, last), (version, (entry.seq, entry.hash)), revision)
            if version is not None:
                self._sums = (version, (entry.seq, entry.hash), sums)
            fresh = [c for c in calls if c.answer is not None and not c.cached]
            if fresh:
                self.conn.executemany(
                    "INSERT OR REPLACE INTO judge_cache VALUES (?, ?)",
                    [(c.key, c.model_dump_json()) for c in fresh],
                )
            return entry

    def _moved_lean(self, before: At, after: At, revision: Revision) -> None:
        """Move what lean reads learnt by the revision just written (or forget it, if it
        was learnt of another state of the store)."""
        kept = self._lean
        if kept is not None and kept.at == before:
            kept.moved(after, revision.writes.removed, revision.writes.added)
        else:
            self._lean = None

    def cached_calls(self, keys: Iterable[str]) -> dict[str, JudgeCall]:
        """Recorded judge answers by question key."""
        sql = "SELECT key, call FROM judge_cache WHERE key IN ({})"
        return {k: JudgeCall.model_validate_json(c) for k, c in self._select(sql, keys)}

    def _write(
        self,
        writes: Writes,
        stored_edges: dict[tuple[Any, ...], tuple[Any, ...]] | None = None,
        added: Sequence[_Row] | None = None,
    ) -> None:
        """Run a revision's statements (``added``: the rows of ``writes.added``, if made).

        ``stored_edges``: the ``edges`` rows of every edge the revision touches, as stored
        before it (:meth:`_touched_rows`); with them, an edge whose ``follow`` the revision
        sets to what it already is is not updated (a dense fact's revision sets every edge
        into each member it solves, and most keep their value).
        """
        follow, truth = writes.follow, writes.truth
        # new states are inserted with their value, deactivated ones get it with the flag
        written = {s.id for s in writes.new_states}.union(writes.deactivated)
        dropped = set(writes.dropped_edges)
        if stored_edges is not None:
            follow = [
                (value, src, head)
                for value, src, head in follow
                if (row := stored_edges.get((src, head))) is None
                or row[2] != value
                or (src, head) in dropped
            ]
        statements: list[tuple[str, Sequence[tuple[Any, ...]]]] = [
            (
                "INSERT INTO states VALUES (?,?,?,?,?,?,?,?)",
                [state_row(s, writes.truth.get(s.id, Truth.false)) for s in writes.new_states],
            ),
            # a retracted or superseded state is solved too: one statement sets both
            (
                "UPDATE states SET active=0, superseded_by=?, truth=? WHERE id=?",
                [
                    (by, truth[sid].value, sid)
                    for sid, by in writes.deactivated.items()
                    if sid in truth
                ],
            ),
            (
                "UPDATE states SET active=0, superseded_by=? WHERE id=?",
                [(by, sid) for sid, by in writes.deactivated.items() if sid not in truth],
            ),
            (
                "UPDATE states SET truth=? WHERE id=?",
                [(t.value, sid) for sid, t in truth.items() if sid not in written],
            ),
            (
                "DELETE FROM justifications WHERE head=? AND premises=? AND unless=?",
                [(h, ids_json(p), ids_json(u)) for h, p, u in writes.removed],
            ),
            ("DELETE FROM edges WHERE src=? AND head=?", writes.dropped_edges),
        ]
        for sql, rows in statements:
            if rows:  # most revisions leave most tables alone: skip the empty statements
                self.conn.executemany(sql, rows)
        if writes.new_states:
            self.index_terms(writes.new_states)
        link = writes.link
        if writes.new_states or link:
            atom_index.write(
                self.conn,
                writes.new_states,
                link.demand_add,
                link.demand_drop,
                link.watch_add,
                link.watch_drop,
                reset=link.complete is not None,
            )
        if link.complete is not None:
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                (f"setting:{atom_index.LINKED_SETTING}", canonical_json(list(link.complete))),
            )
        if writes.added:
            fresh: dict[tuple[str, str], int] = {}
            if stored_edges is not None:  # an edge not stored yet is inserted as it ends
                fresh = {
                    (src, head): value
                    for value, src, head in follow
                    if (src, head) not in stored_edges or (src, head) in dropped
                }
                follow = [row for row in follow if (row[1], row[2]) not in fresh]
            self._insert_justifications(writes.added, fresh, added)
        if follow:
            self.conn.executemany("UPDATE edges SET follow=? WHERE src=? AND head=?", follow)

    def add_justifications(
        self, justs: Iterable[Justification], follow: Mapping[tuple[str, str], int] = _NONE
    ) -> None:
        """Insert (or replace) justifications and index their edges (inside a transaction):
        open, or as ``follow`` says for an edge ``(src, head)`` not stored yet. Open is always
        sound: the revision that adds them solves their heads and closes the edges their
        supports do not cite."""
        # written beside a commit: what was read at this state of the store may be wrong now
        self._lean = self._seen = None
        self._insert_justifications(justs, follow)

    def _insert_justifications(
        self,
        justs: Iterable[Justification],
        follow: Mapping[tuple[str, str], int] = _NONE,
        rows: Sequence[_Row] | None = None,
    ) -> None:
        justs = list(justs)
        self.conn.executemany(
            "INSERT OR REPLACE INTO justifications VALUES (?,?,?,?,?)",
            [justification_row(j) for j in justs] if rows is None else rows,
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO edges VALUES (?,?,?)",
            [
                (src, j.head, follow.get((src, j.head), 1))
                for j in justs
                for src in (*j.premises, *j.unless)
            ],
        )

    # ---- the tables' digest (stategraph.store.tables) -------------------------------------------

    def _tables_base(
        self,
        config: dict[str, Any],
        before: Sums | None = None,
        head: tuple[int, str] | None = None,
        version: int | None = None,
    ) -> tuple[Sums, dict[str, Any]]:
        """The tables' sums as the log's head says they are, before a write (and the config
        to log with it: marked when the sums were rebased by an acknowledgement). A log from
        before the digest starts from the tables as they were before the write: ``before``,
        if they were read then, else read now.

        ``head``, the log's head as the caller read it in this transaction, lets the sums this
        connection's last commit kept stand in for ``meta``: they are the same while the head is
        the one that commit wrote and no other connection has written since (``version``: the
        store's data version, if the caller read it in this transaction).

        Raises:
            LogIntegrityError: the head carries a digest that the sums kept in ``meta`` do not
                match (they were edited or removed): nothing is written.
        """
        mine = self._sums
        if (
            mine is not None
            and head == mine[1]
            and (self._data_version() if version is None else version) == mine[0]
        ):
            return mine[2], config
        self._sums = None
        head_row = self.conn.execute(
            "SELECT seq, config FROM revisions ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        if head_row is None:
            return Sums(), config
        seq, digest = int(head_row[0]), _chained_digest(head_row[1])
        if digest is None:  # a log from before the digest: start from the tables, once
            return (tables.scan(self.conn) if before is None else before), config
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (META_KEY,)).fetchone()
        kept = Sums.from_json(row[0]) if row is not None else None
        if kept is not None and kept[0] == seq and (kept[2] or kept[1].digest() == digest):
            return kept[1], ({**config, "tables_rebased": True} if kept[2] else config)
        raise LogIntegrityError(
            self.path,
            seq,
            "carries a digest of the tables that the store's record of their sums no longer "
            f"matches (the meta row {META_KEY!r} was edited or removed)",
            advice="nothing was written; run 'stategraph history STORE --verify --deep' "
            "(which rebuilds the record if the tables still match the log)",
        )

    def keep_sums(self, seq: int, sums: Sums, rebased: bool = False) -> None:
        """Record the tables' sums after log entry ``seq`` (inside its transaction)."""
        self._sums = None
        self.conn.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", (META_KEY, sums.to_json(seq, rebased))
        )

    def table_sums(self) -> Sums:
        """The sums of every row of the digested tables, read now (in proportion to the
        store: :mod:`stategraph.store.tables`)."""
        return tables.scan(self.conn)

    def chain_tables(self, config: dict[str, Any], before: Sums) -> tuple[dict[str, Any], Sums]:
        """For a write that read every table ``before`` it and again now (a bulk load): the
        config to log, with the digest, and the sums to keep."""
        base, config = self._tables_base(config, before)
        sums = base.moved(before, self.table_sums())
        return {**config, CONFIG_KEY: sums.digest()}, sums

    def _touched_rows(self, keys: Keys, created: Collection[str] = ()) -> _Touched:
        """The rows one write touches, read as they are before it (the write then moves them
        in memory, :meth:`_Touched.moved`, instead of reading them back). ``created``: the
        states the write creates; edges out of them are read only if some edge out of them
        is stored already (a justification may cite a state before it exists), which one
        statement tells (a dense fact's edges to its thousand members are new)."""
        sql = "SELECT 1 FROM edges WHERE src IN ({}) LIMIT 1"
        if created and next(self._select(sql, created), None) is None:
            keys.edges = {e for e in keys.edges if e[0] not in created}
        justs = self.justification_rows(sorted(keys.justifications))
        queue = self._select(
            "SELECT id, seq, entry FROM review_queue WHERE id IN ({})", keys.review
        )
        return _Touched(
            states={r[0]: r for r in self._select(_STATE_ROWS, keys.states)},
            justifications={r[:3]: r for r in justs},
            edges={r[:2]: r for r in self.edge_rows(list(keys.edges))},
            review={r[0]: r for r in queue},
        )

    def edge_rows(self, pairs: Sequence[tuple[str, str]]) -> Iterator[tuple[Any, ...]]:
        """The ``edges`` rows ``(src, head, follow)`` of these pairs that are stored."""
        return iter(self._rows_by_key("edges", ("src", "head"), ("follow",), pairs))

    def _rows_by_key(
        self,
        table: str,
        key: tuple[str, ...],
        rest: tuple[str, ...],
        keys: Sequence[tuple[str, ...]],
    ) -> list[tuple[Any, ...]]:
        """The stored rows (``key`` columns, then ``rest``) of ``table`` with these keys: a join
        with a ``VALUES`` list, one statement per few hundred keys, each found by the index."""
        columns = ", ".join(f"t.{c}" for c in (*key, *rest))
        on = " AND ".join(f"t.{c} = k.column{i}" for i, c in enumerate(key, 1))
        per = _CHUNK // len(key)
        row = "(" + ",".join("?" * len(key)) + ")"
        out: list[tuple[Any, ...]] = []
        for i in range(0, len(keys), per):
            chunk = keys[i : i + per]
            sql = f"SELECT {columns} FROM (VALUES {','.join([row] * len(chunk))}) AS k "
            sql += f"JOIN {table} t ON {on}"
            out += self.conn.execute(sql, [x for k in chunk for x in k]).fetchall()
        return out

    def _last(self) -> tuple[int, str]:
        row = self.conn.execute("SELECT seq, hash FROM revisions ORDER BY seq DESC LIMIT 1")
        last = row.fetchone()
        return (0, GENESIS) if last is None else (int(last[0]), str(last[1]))

    def now(self) -> datetime:
        """The time by the clock that stamps this store's log (:meth:`stamp`): the machine's,
        which the writers of a SQLite file share (the PostgreSQL store reads the database's)."""
        return datetime.now(UTC)

    def stamp(self, last: int) -> str:
        """The time of a log entry that follows entry ``last`` (inside the write transaction,
        under the write lock): :meth:`now`, or entry ``last``'s time if that is later. So the
        log's times never go down, whoever's clock ran ahead, and a time names a prefix of the
        log (``Memory.as_of``); an entry stamped by a clock that ran ahead lends its time to
        the entries after it until the clocks meet again."""
        now = self.now().astimezone(UTC).isoformat(timespec="microseconds")
        before = self.conn.execute(_AT, (last,)).fetchone() if last else None
        # both UTC ISO 8601 with microseconds: as text, they sort as time does
        return now if before is None or str(before[0]) <= now else str(before[0])

    def append(
        self,
        change_json: str,
        report_json: str,
        config: dict[str, Any],
        report: Report | None = None,
        calls: Sequence[JudgeCall] = (),
        last: tuple[int, str] | None = None,
    ) -> LogEntry:
        """Append a log entry (inside a transaction): the change, its report, the config and
        the judge calls, after ``last`` (the head as the caller read it in this transaction;
        None reads it).

        The hash is taken over these canonical texts; the row stores them compactly
        (:func:`stategraph.store.revlog.pack`). ``report`` is the object ``report_json`` was made
        from, if the caller has it (saves parsing it back); None for a bulk load's summary.
        """
        seq, prev = self._last() if last is None else last
        at = self.stamp(seq)
        seq += 1
        config_json = canonical_json(config)
        calls_json = "[" + ",".join(c.model_dump_json() for c in calls) + "]" if calls else ""
        digest = chain(prev, seq, at, change_json, report_json, config_json, calls_json)
        self.conn.execute(
            "INSERT INTO revisions VALUES (?,?,?,?,?,?,?,?)",
            (
                seq,
                at,
                pack(change_json),
                pack(report_json),
                config_json,
                prev,
                digest,
                pack(calls_json),
            ),
        )
        if report is not None:
            return LogEntry(
                seq=seq,
                at=at,
                report=report,
                config=config,
                prev_hash=prev,
                hash=digest,
                calls=tuple(calls),
            )
        return entry(seq, at, report_json, config_json, prev, digest, calls_json)

    def history(self, limit: int | None = None, since: Since = None) -> list[LogEntry]:
        """Logged revisions, oldest first: all of them, or those after ``since``, or the last
        ``limit`` of those. Each entry carries its whole report: for a long log, or one with
        huge reports, :meth:`iter_history` holds one entry at a time."""
        return list(self.iter_history(limit, since))

    def iter_history(self, limit: int | None = None, since: Since = None) -> Iterator[LogEntry]:
        """Logged revisions, oldest first, read and decoded one at a time.

        Args:
            limit: only the last ``limit`` entries (of those after ``since``).
            since: only entries after this sequence number (an ``int``: pass the ``seq`` of
                :meth:`head` to get what is logged later), or committed at or after this time
                (a ``datetime`` or an ISO 8601 string; without a time zone, UTC).

        Raises:
            InvalidInputError: ``limit`` is negative, or ``since`` is not a number or a time.
            LogIntegrityError: a stored entry cannot be decoded (run :meth:`verify`).
        """
        if limit is not None and limit < 0:
            raise InvalidInputError("history", [("limit", "must be None or >= 0")])
        if limit is not None:
            limit = min(limit, _MAX_SEQ)  # no log is longer; the driver refuses larger ints
        where, args = _since(since)
        # The log as it stands now: entries appended while the caller iterates are not read,
        # so a caller that writes as it goes still comes to an end.
        end = self._last()[0]
        start = 0
        if limit == 0:
            return iter(())
        if limit is not None:
            sql = (
                f"SELECT seq FROM revisions WHERE seq <= ? AND {where} "
                "ORDER BY seq DESC LIMIT 1 OFFSET ?"
            )
            row = self.conn.execute(sql, (end, *args, limit - 1)).fetchone()
            start = 0 if row is None else int(row[0]) - 1  # None: fewer than limit, all
        return self._entries(start, end, where, args)

    def _entries(
        self, start: int, end: int, where: str, args: tuple[Any, ...]
    ) -> Iterator[LogEntry]:
        """Entries after ``start`` up to ``end`` that meet ``where``, one query each: no cursor
        is held open across a yield (the caller may write in between), and one entry is all
        that is in memory."""
        sql = (
            "SELECT seq, at, report, config, prev_hash, hash, calls FROM revisions "
            f"WHERE seq > ? AND seq <= ? AND {where} ORDER BY seq LIMIT 1"
        )
        while (row := self.conn.execute(sql, (start, end, *args)).fetchone()) is not None:
            start = int(row[0])
            yield self._entry(row)

    def _entry(self, row: tuple[Any, ...]) -> LogEntry:
        seq, at, report, config, prev, digest, calls = row
        try:
            return entry(seq, at, _unpack(report), config, prev, digest, _unpack(calls))
        except UnreadableColumn as exc:
            raise LogIntegrityError(self.path, seq, f"has a column that {exc}") from exc

    def head(self) -> tuple[int, str]:
        """The log's head: the sequence number and hash of its last entry (``(0, "0" * 64)``
        for an empty log).

        The chain alone cannot show that entries were removed from its end: the rows left
        still link. Keep the head somewhere the store's writers cannot reach (a backup,
        another machine, a note) and pass it to :meth:`verify` as ``expect_head`` later.
        """
        return self._last()

    def verify(self, expect_head: tuple[int, str] | None = None, deep: bool = False) -> int:
        """Check the hash chain: every entry's columns against its hash, every link, no gap,
        that a store holding states has a log, and (given ``expect_head``) that the log still
        reaches that head; with ``deep``, also that the tables hold what the log's revisions
        wrote (:mod:`stategraph.store.tables`: every row is read, in proportion to the store).

        A failure found in the store itself is also recorded there: from then on every write
        is refused (:class:`TamperedStoreError`), in this process and any other, until
        :meth:`acknowledge_tamper`. Breaks already acknowledged do not refuse writes again, but
        are still reported here: the log still does not verify. A head given that the log does
        not reach is an answer about that head (:class:`HeadMismatchError`), never recorded:
        anyone may ask with any head.

        Returns:
            The number of entries.

        Raises:
            LogIntegrityError: naming the first break found in the store (all of them, and
                any with the head given, are in its ``breaks``).
            HeadMismatchError: the store verifies, but does not reach ``expect_head``.
        """
        repair: Sums | None = None
        with self._snapshot(deep):
            holds_states = self.has_states()  # before the log: a revision commits both at once
            rows = self.conn.execute(
                "SELECT seq, at, change, report, config, prev_hash, hash, calls FROM revisions "
                "ORDER BY seq"
            )
            count, breaks = find_breaks(rows, expect_head)
            if count == 0 and holds_states:
                breaks.insert(
                    0, Break(1, "is missing: the store holds states but its log is empty")
                )
            if deep:
                found, repair = self._table_breaks()
                breaks += found + self._recall_breaks()
        found_here = [b.pair() for b in breaks if not b.given]
        if found_here:
            self._refuse_writes(found_here)
            pairs = [b.pair() for b in breaks]
            raise LogIntegrityError(self.path, found_here[0][0], found_here[0][1], pairs)
        if breaks:
            raise HeadMismatchError(self.path, [b.pair() for b in breaks])
        if repair is not None:
            self._repair_sums(repair)
        return count

    @contextmanager
    def _snapshot(self, deep: bool) -> Iterator[None]:
        """One read transaction, so that the log and the tables are read as of one commit
        (for a deep check; a check of the log alone reads it in one statement)."""
        if not deep or self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    def tables_digest(self) -> str | None:
        """The tables' digest the log's head carries; None for an empty log or one written
        before the digest (whose tables a deep check cannot check until the next revision)."""
        head = self.conn.execute(
            "SELECT seq, config FROM revisions ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return None if head is None else _chained_digest(head[1])

    def _table_breaks(self) -> tuple[list[Break], Sums | None]:
        """What a deep check finds: the tables against the head's digest (and the sums to keep
        in ``meta`` if they match but the kept ones are gone or edited)."""
        head = self.conn.execute(
            "SELECT seq, config FROM revisions ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        seq, digest = (1, Sums().digest()) if head is None else (int(head[0]), None)
        if head is not None:
            digest = _chained_digest(head[1])
            if digest is None:  # written before the digest: nothing to check against
                return [], None
        actual = self.table_sums()
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (META_KEY,)).fetchone()
        kept = Sums.from_json(row[0]) if row is not None else None
        if actual.digest() == digest:
            good = kept is not None and kept[0] == seq and kept[1].digest() == digest
            return [], None if good or head is None else actual
        if kept is not None and kept[1].digest() == digest:
            names = ", ".join(kept[1].differing(actual))
            which = f"the {names} table{'s' if ', ' in names else ''} differ"
        else:
            which = "the states, justifications, edges, review queue or their past differ"
        reason = (
            f"does not match the stored tables: {which} from what the log's revisions wrote "
            "(rows were edited, added or removed outside stategraph)"
        )
        return [Break(seq, reason)], None

    def _recall_breaks(self) -> list[Break]:
        """What a deep check finds in recall's index: the tables that do not hold what the
        states give (:mod:`stategraph.text.index_check`), as a break at the head."""
        from stategraph.text import index_check

        wrong = index_check.mismatches(self)
        if not wrong:
            return []
        names = ", ".join(wrong)
        reason = (
            f"does not match recall's index: the {names} table{'s' if len(wrong) > 1 else ''} "
            "differ from what the states' texts give (rows were edited, added or removed "
            "outside stategraph; acknowledging the tamper rebuilds the index from the states)"
        )
        return [Break(max(self._last()[0], 1), reason)]

    def _repair_sums(self, sums: Sums) -> None:
        """Record the sums a deep check found to match the head (best effort, as the flag)."""
        try:
            with self._locked():
                if self.tables_digest() == sums.digest():
                    self.keep_sums(self._last()[0], sums)
        except (StoreError, sqlite3.Error):
            pass

    def _refuse_writes(self, breaks: list[tuple[int, str]]) -> None:
        """Record breaks not acknowledged yet, so that writes are refused. Best effort: a store
        that cannot be written now (busy, a read-only file) still gets the error raised."""
        if not set(breaks) - self._acknowledged():
            return
        try:
            with self._locked():
                self.conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)", (_TAMPER, canonical_json(breaks))
                )
        except (StoreError, sqlite3.Error):
            pass

    def _meta(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def _acknowledged(self) -> set[tuple[int, str]]:
        return {(int(seq), str(reason)) for seq, reason in self._meta(_ACKNOWLEDGED) or ()}

    def _refuse_if_tampered(self) -> None:
        breaks = self._meta(_TAMPER)
        if breaks:
            raise TamperedStoreError(self.path, [(int(seq), str(why)) for seq, why in breaks])

    def acknowledge_tamper(self) -> list[tuple[int, str]]:
        """Let the store accept writes again after a failed verification.

        Call it after looking at what the verification found (``LogIntegrityError.breaks``),
        when the store is to be used as it is rather than restored from a backup. It repairs
        nothing of the log or the tables: :meth:`verify` still raises for these breaks, which
        remain the evidence, but they no longer refuse writes. A break found later, anywhere
        else, refuses them again. Recall's index, derived from the states alone, is made again
        from them if it does not match them.

        The flag is a safeguard against writing on, unaware, over a damaged log, not a lock
        against the damage's author, who can edit the ``meta`` table as easily as the log; a
        head kept elsewhere (:meth:`head`) is what such an author cannot forge.

        Returns:
            The breaks acknowledged, as ``(seq, reason)``; empty if writes were not refused.
        """
        with self._locked():
            flagged = [(int(seq), str(why)) for seq, why in self._meta(_TAMPER) or ()]
            if not flagged:
                return []
            known = sorted(self._acknowledged() | set(flagged))
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", (_ACKNOWLEDGED, canonical_json(known))
            )
            self.conn.execute("DELETE FROM meta WHERE key=?", (_TAMPER,))
            self._rebase_sums()
            self._rebuild_recall_index()
        return flagged

    def _rebuild_recall_index(self) -> None:
        """After an acknowledgement: recall's index, if it does not hold what the states give,
        is made again from them (it is derived from the states alone, which the digest
        covers)."""
        from stategraph.text import fulltext, index_check

        if index_check.mismatches(self):
            fulltext.rebuild(self)

    def _rebase_sums(self) -> None:
        """After an acknowledgement: the tables as they are become the base of the next
        revision's digest, which the log then marks (``tables_rebased``), where the head's
        digest does not match them."""
        digest = self.tables_digest()
        if digest is None:
            return
        actual = self.table_sums()
        if actual.digest() != digest:
            self.keep_sums(self._last()[0], actual, rebased=True)

    def get_setting(self, key: str) -> Any:
        """A persisted setting (JSON value), or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (f"setting:{key}",))
        found = row.fetchone()
        return None if found is None else json.loads(found[0])

    def set_setting(self, key: str, value: Any) -> None:
        """Persist a setting (JSON value)."""
        with self.transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                (f"setting:{key}", canonical_json(value)),
            )

    def close(self) -> None:
        """Close the connection (checkpointing the WAL)."""
        self.conn.close()


_MAX_SEQ = MAX_SEQ
"""The largest sequence number a store can hold (SQLite's and PostgreSQL's 64-bit integer)."""


def _since(since: Since) -> tuple[str, tuple[Any, ...]]:
    """The ``WHERE`` condition (and its parameters) of a history's start.

    A string of digits is a sequence number (as the command line and the HTTP API pass it);
    one beyond any sequence number a store can hold is refused here, before it reaches the
    database driver (which failed on it with an overflow, or Python's digit limit).
    """
    if since is None:
        return "1", ()
    if isinstance(since, str) and since.isascii() and since.isdigit():
        if len(since) > len(str(_MAX_SEQ)) or int(since) > _MAX_SEQ:
            problem = f"a sequence number is at most {_MAX_SEQ}, not {since[:24]}..."
            raise InvalidInputError("history", [("since", problem)])
        since = int(since)
    if isinstance(since, int) and not isinstance(since, bool):
        if not -_MAX_SEQ <= since <= _MAX_SEQ:
            problem = f"a sequence number is at most {_MAX_SEQ} in size"
            raise InvalidInputError("history", [("since", problem)])
        return "seq > ?", (since,)
    if isinstance(since, str):
        try:
            since = datetime.fromisoformat(since)
        except ValueError as exc:
            problem = f"not a sequence number or an ISO 8601 time: {since!r}"
            raise InvalidInputError("history", [("since", problem)]) from exc
    if not isinstance(since, datetime):
        problem = f"must be a sequence number, a datetime or an ISO 8601 string, not {since!r}"
        raise InvalidInputError("history", [("since", problem)])
    # ``at`` is written as UTC ISO 8601 with microseconds: as text, it sorts as time does.
    return "at >= ?", (utc(since, "history", "since").isoformat(timespec="microseconds"),)


_AT = "SELECT at FROM revisions WHERE seq=?"
"""A log entry's time (:meth:`SQLiteStore.stamp`)."""

_LAST_NUMBERED = (
    "WITH RECURSIVE s(n, step) AS (SELECT 1, 4611686018427387904 UNION ALL "
    "SELECT CASE WHEN EXISTS (SELECT 1 FROM states WHERE id = ? || (n + step)) "
    "THEN n + step ELSE n END, step / 2 FROM s WHERE step > 0) SELECT max(n) FROM s"
)
"""Binary search for :meth:`SQLiteStore.last_numbered`: each step (2^62 down to 1) moves up
where its id is stored; the numbers present are 2 to some ``n``, so the steps add up to it."""

_STATE_ROWS = (
    "SELECT id, kind, status, active, superseded_by, truth, has_atoms, body FROM states "
    "WHERE id IN ({})"
)
"""Whole ``states`` rows, as :mod:`stategraph.store.tables` hashes them."""


def _chained_digest(config: Any) -> str | None:
    """The tables' digest a log entry's ``config`` carries, or None (none, or unreadable:
    :func:`stategraph.store.revlog.find_breaks` names an unreadable entry)."""
    try:
        value = json.loads(config).get(CONFIG_KEY)
    except (TypeError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


_PAST_OF = {
    "states": "states_past",
    "justifications": "justifications_past",
    "review_queue": "review_past",
}
"""The table that keeps the past of each present table (edges have none: no read of the
past walks them)."""


@dataclass
class _Touched:
    """The rows one revision touches, by table key: read before its write, then moved in
    memory exactly as its statements (:meth:`SQLiteStore._write`, :func:`review_queue.record`)
    moved them in the tables (:meth:`moved`). A deep check reads the tables themselves, so a
    difference between the two shows there (and in the stateful property test, which checks
    after every step)."""

    states: dict[str, tuple[Any, ...]]
    justifications: dict[tuple[Any, ...], tuple[Any, ...]]
    edges: dict[tuple[Any, ...], tuple[Any, ...]]
    review: dict[str, tuple[Any, ...]]

    def moved(
        self,
        base: Sums,
        writes: Writes,
        added: Sequence[_Row],
        queue: review_queue.Moved,
        seq: int,
    ) -> tuple[Sums, dict[str, list[tuple[Any, ...]]]]:
        """``base`` moved by revision ``seq``: the rows it changed leave the sums as they were
        read and enter them as they are now (a row it rewrote unchanged costs no hash); and
        the past rows it keeps (:mod:`stategraph.store.past`), by table, which enter the
        past's sums. ``added`` are the rows of ``writes.added``."""
        before = {t: dict(rows) for t, rows in self._tables().items()}
        self._write(writes, added, queue)
        gone, came = Sums(), Sums()
        kept: dict[str, list[tuple[Any, ...]]] = {}
        for table, rows in self._tables().items():
            was = before[table]
            gone.sums[table] = rows_hash(table, (r for k, r in was.items() if rows.get(k) != r))
            came.sums[table] = rows_hash(table, (r for k, r in rows.items() if was.get(k) != r))
            if table in _PAST_OF:
                name = _PAST_OF[table]
                kept[name] = past.changed_rows(table, was, rows, seq)
                came.sums[name] = rows_hash(name, kept[name])
        return base.moved(gone, came), kept

    def _tables(self) -> dict[str, dict[Any, tuple[Any, ...]]]:
        return {
            "states": self.states,
            "justifications": self.justifications,
            "edges": self.edges,
            "review_queue": self.review,
        }

    def _write(self, writes: Writes, added: Sequence[_Row], queue: review_queue.Moved) -> None:
        """Move the rows as the revision's statements did, in their order."""
        states = self.states
        for st in writes.new_states:
            states[st.id] = state_row(st, writes.truth.get(st.id, Truth.false))
        for sid, by in writes.deactivated.items():
            if (row := states.get(sid)) is not None:
                states[sid] = (*row[:3], 0, by, *row[5:])
        for sid, t in writes.truth.items():
            if (row := states.get(sid)) is not None:
                states[sid] = (*row[:5], t.value, *row[6:])
        justs = self.justifications
        for h, p, u in writes.removed:
            justs.pop((h, ids_json(p), ids_json(u)), None)
        edges = self.edges
        for pair in writes.dropped_edges:
            edges.pop(tuple(pair), None)
        for j, row in zip(writes.added, added, strict=True):
            justs[row[:3]] = row
            for src in (*j.premises, *j.unless):
                edges.setdefault((src, j.head), (src, j.head, 1))
        for follow, src, head in writes.follow:
            if (src, head) in edges:
                edges[src, head] = (src, head, int(follow))
        for sid in queue.dropped:
            self.review.pop(sid, None)
        for row in queue.added:
            self.review[row[0]] = row


def _touched(writes: Writes, report: Report, added: Sequence[_Row]) -> Keys:
    """The stored rows a revision's writes (and its review queue update) touch, by table key
    (``added``: the rows of ``writes.added``). A state the revision creates has no row yet,
    nor do its justifications, the edges into it, or its place in the queue: none of those
    is read (a new memory's sixty-four rule justifications, issue 23). Edges *out of* it may
    be stored: a justification may cite a state before it exists (an ``unless``)."""
    new = {s.id for s in writes.new_states}
    keys = Keys()
    keys.states.update(writes.deactivated)
    keys.states.update(writes.truth)
    keys.states.difference_update(new)
    keys.justifications.update((h, ids_json(p), ids_json(u)) for h, p, u in writes.removed)
    keys.justifications.update(row[:3] for row in added if row[0] not in new)
    keys.edges.update(writes.dropped_edges)
    keys.edges.update((src, head) for _, src, head in writes.follow)
    keys.edges.update((src, j.head) for j in writes.added for src in (*j.premises, *j.unless))
    if new:
        keys.edges = {(src, head) for src, head in keys.edges if head not in new}
    keys.review.update(c.id for c in report.changed)
    keys.review.update(e.id for e in report.entries)
    keys.review.difference_update(new)
    return keys


STORES: dict[str, type[SQLiteStore]] = {SQLiteStore.name: SQLiteStore}
"""Store implementations by versioned name."""
