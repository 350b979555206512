"""The PostgreSQL dialect of the store's SQL: each statement in PostgreSQL's form, tenant first.

The store's logic (the cone walk, subgraphs, commits, the log, its verification) and the modules
that keep their own tables beside it (:mod:`stategraph.text.atom_index`,
:mod:`stategraph.store.review_queue`,
:mod:`stategraph.store.bulk`, :mod:`stategraph.audit`) run their SQL on ``store.conn``, written for
SQLite. Rather than copy that logic for a second backend, :class:`TenantConnection` stands in
for the SQLite connection and runs, for each statement it is given, the PostgreSQL statement
:data:`STATEMENTS` lists under that very text. Three things change on the way:

- **The tenant leads every key.** Every PostgreSQL table has a ``tenant`` column first in its
  primary key and every index (:mod:`stategraph.store.pgschema`), and every statement here names it
  as its first parameter, which the connection supplies. So a query of one tenant's store can
  reach no other tenant's rows, and a distributed PostgreSQL can route each statement to the
  one shard that holds the tenant.
- **The SQL is PostgreSQL's.** ``?`` becomes ``%s`` (server-side parameters, always),
  ``INSERT OR REPLACE`` / ``OR IGNORE`` become ``ON CONFLICT``, an ``IN (...)`` list becomes
  ``= ANY(%s)`` with one array parameter (no chunking).
- **Log columns are ``bytea``.** SQLite stores a log column as TEXT or, compressed, as a BLOB
  (:func:`stategraph.store.revlog.pack`); PostgreSQL's columns have one type, so both are stored
  as bytes: a text as its UTF-8, a packed column as it is (its first byte, 0x01, begins no
  JSON text). Reading turns them back, so the hash chain is checked over the same texts.

A statement that is not listed raises :class:`~stategraph.errors.StoreError` naming it, so a
new SQLite statement in a shared module fails the PostgreSQL tests at once instead of running
unscoped. Keys are the exact SQLite texts, with an ``IN`` list of any length written ``IN ({})``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from stategraph.errors import StoreBusyError, StoreError, StoreUnavailableError
from stategraph.store.revlog import ZLIB

__all__ = [
    "STATEMENTS",
    "Statement",
    "TenantConnection",
    "from_bytea",
    "is_unreachable",
    "to_bytea",
]


def to_bytea(value: object) -> object:
    """A log column as stored in PostgreSQL: a text as its UTF-8, packed bytes as they are."""
    return value.encode("utf-8") if isinstance(value, str) else value


def from_bytea(value: object) -> object:
    """A stored log column back as :func:`stategraph.store.revlog.unpack` reads it: packed bytes
    (format byte first) as bytes, anything else as the text it encodes."""
    if isinstance(value, memoryview):
        value = bytes(value)
    if isinstance(value, bytes) and (not value or value[0] != ZLIB):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value  # unreadable: verify names it
    return value


@dataclass(frozen=True)
class Statement:
    """One statement in PostgreSQL's form.

    Attributes:
        sql: the statement; its ``%s`` number ``tenant_at`` (from 0) is the tenant.
        tenant_at: where the tenant goes among the parameters (0: first; an ``UPDATE`` sets
            values before its ``WHERE`` names the tenant).
        log_params: positions (among the SQLite parameters) of log columns to store as bytes.
        log_rows: the rows read carry log columns (bytes are turned back into texts).
        ids: the statement's only parameter is an ``IN ({})`` list, passed as one array.
    """

    sql: str
    tenant_at: int = 0
    log_params: tuple[int, ...] = ()
    log_rows: bool = False
    ids: bool = False


_LOG_ROW = "SELECT seq, at, change, report, config, prev_hash, hash, calls FROM revisions "
_ENTRY = "SELECT seq, at, report, config, prev_hash, hash, calls FROM revisions "
_STATE_COLUMNS = "id, kind, status, active, superseded_by, truth"
_JUST = "SELECT head, premises, unless, origin, extra FROM justifications"
_ON_META = "ON CONFLICT (tenant, key) DO UPDATE SET value = excluded.value"


def _s(sql: str, **kw: Any) -> Statement:
    return Statement(sql, **kw)


STATEMENTS: dict[str, Statement] = {
    # ---- states ---------------------------------------------------------------------------
    "INSERT INTO states VALUES (?,?,?,?,?,?,?,?)": _s(
        "INSERT INTO states (tenant, id, kind, status, active, superseded_by, truth, has_atoms, "
        "body) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)"
    ),
    "UPDATE states SET active=0, superseded_by=? WHERE id=?": _s(
        "UPDATE states SET active=0, superseded_by=%s WHERE tenant=%s AND id=%s", tenant_at=1
    ),
    "UPDATE states SET active=0, superseded_by=?, truth=? WHERE id=?": _s(
        "UPDATE states SET active=0, superseded_by=%s, truth=%s WHERE tenant=%s AND id=%s",
        tenant_at=2,
    ),
    "UPDATE states SET truth=? WHERE id=?": _s(
        "UPDATE states SET truth=%s WHERE tenant=%s AND id=%s", tenant_at=1
    ),
    f"SELECT {_STATE_COLUMNS} FROM states WHERE id IN ({{}})": _s(
        f"SELECT {_STATE_COLUMNS} FROM states WHERE tenant=%s AND id = ANY(%s)", ids=True
    ),
    f"SELECT {_STATE_COLUMNS}, body FROM states WHERE id IN ({{}})": _s(
        f"SELECT {_STATE_COLUMNS}, body FROM states WHERE tenant=%s AND id = ANY(%s)", ids=True
    ),
    f"SELECT {_STATE_COLUMNS}, body FROM states WHERE id=?": _s(
        f"SELECT {_STATE_COLUMNS}, body FROM states WHERE tenant=%s AND id=%s"
    ),
    "SELECT body FROM states ORDER BY id": _s(
        "SELECT body FROM states WHERE tenant=%s ORDER BY id"
    ),
    "SELECT id FROM states WHERE truth = ?": _s(
        "SELECT id FROM states WHERE tenant=%s AND truth = %s"
    ),
    "SELECT body FROM states WHERE has_atoms = 1 ORDER BY id": _s(
        "SELECT body FROM states WHERE tenant=%s AND has_atoms = 1 ORDER BY id"
    ),
    "SELECT 1 FROM states LIMIT 1": _s("SELECT 1 FROM states WHERE tenant=%s LIMIT 1"),
    "SELECT id FROM states ORDER BY id": _s("SELECT id FROM states WHERE tenant=%s ORDER BY id"),
    "SELECT id FROM states ORDER BY id LIMIT ?": _s(
        "SELECT id FROM states WHERE tenant=%s ORDER BY id LIMIT %s"
    ),
    "SELECT id FROM states WHERE id > ? ORDER BY id LIMIT ?": _s(
        "SELECT id FROM states WHERE tenant=%s AND id > %s ORDER BY id LIMIT %s"
    ),
    "WITH RECURSIVE s(n, step) AS (SELECT 1, 4611686018427387904 UNION ALL "
    "SELECT CASE WHEN EXISTS (SELECT 1 FROM states WHERE id = ? || (n + step)) "
    "THEN n + step ELSE n END, step / 2 FROM s WHERE step > 0) SELECT max(n) FROM s": _s(
        "WITH RECURSIVE s(n, step) AS (SELECT 1::bigint, 4611686018427387904::bigint "
        "UNION ALL SELECT CASE WHEN EXISTS (SELECT 1 FROM states WHERE tenant=%s AND "
        "id = %s || (n + step)::text) THEN n + step ELSE n END, step / 2 FROM s "
        "WHERE step > 0) SELECT max(n) FROM s"
    ),
    "SELECT id FROM states WHERE id IN ({})": _s(
        "SELECT id FROM states WHERE tenant=%s AND id = ANY(%s)", ids=True
    ),
    "SELECT id FROM states WHERE active=0 AND id IN ({})": _s(
        "SELECT id FROM states WHERE tenant=%s AND active=0 AND id = ANY(%s)", ids=True
    ),
    "SELECT id, truth FROM states WHERE id IN ({})": _s(
        "SELECT id, truth FROM states WHERE tenant=%s AND id = ANY(%s)", ids=True
    ),
    "SELECT id, kind FROM states WHERE id IN ({})": _s(
        "SELECT id, kind FROM states WHERE tenant=%s AND id = ANY(%s)", ids=True
    ),
    "SELECT id FROM states WHERE active=1 AND id IN ({}) "
    "AND EXISTS (SELECT 1 FROM justifications WHERE head = states.id)": _s(
        "SELECT s.id FROM states s WHERE s.tenant=%s AND s.active=1 AND s.id = ANY(%s) "
        "AND EXISTS (SELECT 1 FROM justifications j WHERE j.tenant = s.tenant AND j.head = s.id)",
        ids=True,
    ),
    "SELECT kind FROM states WHERE id=?": _s("SELECT kind FROM states WHERE tenant=%s AND id=%s"),
    "SELECT id FROM states WHERE truth = 'undefined' ORDER BY id": _s(
        "SELECT id FROM states WHERE tenant=%s AND truth = 'undefined' ORDER BY id"
    ),
    # ---- justifications and edges ---------------------------------------------------------
    "INSERT OR REPLACE INTO justifications VALUES (?,?,?,?,?)": _s(
        "INSERT INTO justifications (tenant, head, premises, unless, origin, extra) "
        "VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT (tenant, head, ident) "
        "DO UPDATE SET origin = excluded.origin, extra = excluded.extra"
    ),
    "DELETE FROM justifications WHERE head=? AND premises=? AND unless=?": _s(
        "DELETE FROM justifications WHERE tenant=%s AND head=%s AND premises=%s AND unless=%s"
    ),
    "SELECT head, premises, unless FROM justifications WHERE head IN ({})": _s(
        "SELECT head, premises, unless FROM justifications WHERE tenant=%s AND head = ANY(%s)",
        ids=True,
    ),
    f"{_JUST} WHERE head IN ({{}})": _s(f"{_JUST} WHERE tenant=%s AND head = ANY(%s)", ids=True),
    _JUST: _s(f"{_JUST} WHERE tenant=%s"),
    "SELECT COUNT(*) FROM justifications": _s(
        "SELECT COUNT(*) FROM justifications WHERE tenant=%s"
    ),
    "SELECT src, head, follow FROM edges WHERE src IN ({})": _s(
        "SELECT src, head, follow FROM edges WHERE tenant=%s AND src = ANY(%s)", ids=True
    ),
    "SELECT head FROM edges WHERE src IN ({})": _s(
        "SELECT head FROM edges WHERE tenant=%s AND src = ANY(%s)", ids=True
    ),
    "SELECT 1 FROM edges WHERE src IN ({}) LIMIT 1": _s(
        "SELECT 1 FROM edges WHERE tenant=%s AND src = ANY(%s) LIMIT 1", ids=True
    ),
    "SELECT head FROM edges WHERE src = ? ORDER BY head LIMIT ?": _s(
        "SELECT head FROM edges WHERE tenant=%s AND src = %s ORDER BY head LIMIT %s"
    ),
    "INSERT OR IGNORE INTO edges VALUES (?,?,1)": _s(
        "INSERT INTO edges (tenant, src, head, follow) VALUES (%s,%s,%s,1) ON CONFLICT DO NOTHING"
    ),
    "INSERT OR IGNORE INTO edges VALUES (?,?,?)": _s(
        "INSERT INTO edges (tenant, src, head, follow) VALUES (%s,%s,%s,%s) ON CONFLICT DO NOTHING"
    ),
    "DELETE FROM edges WHERE src=? AND head=?": _s(
        "DELETE FROM edges WHERE tenant=%s AND src=%s AND head=%s"
    ),
    "UPDATE edges SET follow=? WHERE src=? AND head=?": _s(
        "UPDATE edges SET follow=%s WHERE tenant=%s AND src=%s AND head=%s", tenant_at=1
    ),
    # ---- the term index -------------------------------------------------------------------
    "SELECT max(seq) FROM docs": _s("SELECT max(seq) FROM docs WHERE tenant=%s"),
    "SELECT term, df FROM term_df WHERE term IN ({})": _s(
        "SELECT term, df FROM term_df WHERE tenant=%s AND term = ANY(%s)", ids=True
    ),
    "SELECT d.seq, d.state_id, d.size FROM terms t JOIN docs d ON d.seq = t.doc "
    "WHERE t.term = ? ORDER BY t.doc DESC LIMIT ?": _s(
        "SELECT d.seq, d.state_id, d.size FROM terms t "
        "JOIN docs d ON d.tenant = t.tenant AND d.seq = t.doc "
        "WHERE t.tenant=%s AND t.term = %s ORDER BY t.doc DESC LIMIT %s"
    ),
    "SELECT seq, state_id, size FROM docs WHERE kind = ? ORDER BY seq DESC LIMIT ?": _s(
        "SELECT seq, state_id, size FROM docs WHERE tenant=%s AND kind = %s "
        "ORDER BY seq DESC LIMIT %s"
    ),
    "SELECT d.seq, d.state_id, d.size FROM docs d JOIN states s ON s.id = d.state_id "
    "WHERE d.kind = ? AND s.active = 1 AND s.truth = 'true' ORDER BY d.seq DESC LIMIT ?": _s(
        "SELECT d.seq, d.state_id, d.size FROM docs d JOIN states s "
        "ON s.tenant = d.tenant AND s.id = d.state_id WHERE d.tenant=%s AND d.kind = %s "
        "AND s.active = 1 AND s.truth = 'true' ORDER BY d.seq DESC LIMIT %s"
    ),
    "INSERT INTO docs VALUES (?,?,?,?,?)": _s(
        "INSERT INTO docs (tenant, seq, state_id, size, kind, session) VALUES (%s,%s,%s,%s,%s,%s)"
    ),
    "SELECT seq, state_id, size, kind FROM docs ORDER BY seq DESC LIMIT ?": _s(
        "SELECT seq, state_id, size, kind FROM docs WHERE tenant=%s ORDER BY seq DESC LIMIT %s"
    ),
    "SELECT d.seq, d.state_id, d.size FROM docs d JOIN states s ON s.id = d.state_id "
    "WHERE d.session = ? AND d.kind = ? AND s.active = 1 AND s.truth = 'true' "
    "ORDER BY d.seq DESC LIMIT ?": _s(
        "SELECT d.seq, d.state_id, d.size FROM docs d JOIN states s "
        "ON s.tenant = d.tenant AND s.id = d.state_id WHERE d.tenant=%s AND d.session = %s "
        "AND d.kind = %s AND s.active = 1 AND s.truth = 'true' ORDER BY d.seq DESC LIMIT %s"
    ),
    "INSERT INTO terms VALUES (?,?)": _s("INSERT INTO terms (tenant, term, doc) VALUES (%s,%s,%s)"),
    "INSERT INTO term_df VALUES (?,?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df": _s(
        "INSERT INTO term_df (tenant, term, df) VALUES (%s,%s,%s) "
        "ON CONFLICT (tenant, term) DO UPDATE SET df = term_df.df + excluded.df"
    ),
    # ---- the log, the judge cache, settings -----------------------------------------------
    "SELECT seq, hash FROM revisions ORDER BY seq DESC LIMIT 1": _s(
        "SELECT seq, hash FROM revisions WHERE tenant=%s ORDER BY seq DESC LIMIT 1"
    ),
    "INSERT INTO revisions VALUES (?,?,?,?,?,?,?,?)": _s(
        "INSERT INTO revisions (tenant, seq, at, change, report, config, prev_hash, hash, calls) "
        "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
        log_params=(2, 3, 7),
    ),
    _LOG_ROW + "ORDER BY seq": _s(_LOG_ROW + "WHERE tenant=%s ORDER BY seq", log_rows=True),
    _LOG_ROW + "WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT 1": _s(
        _LOG_ROW + "WHERE tenant=%s AND seq > %s AND seq <= %s ORDER BY seq LIMIT 1",
        log_rows=True,
    ),
    "SELECT seq, report FROM revisions WHERE seq > ? ORDER BY seq LIMIT 1": _s(
        "SELECT seq, report FROM revisions WHERE tenant=%s AND seq > %s ORDER BY seq LIMIT 1",
        log_rows=True,
    ),
    "INSERT OR REPLACE INTO judge_cache VALUES (?, ?)": _s(
        "INSERT INTO judge_cache (tenant, key, call) VALUES (%s,%s,%s) "
        "ON CONFLICT (tenant, key) DO UPDATE SET call = excluded.call"
    ),
    "SELECT key, call FROM judge_cache WHERE key IN ({})": _s(
        "SELECT key, call FROM judge_cache WHERE tenant=%s AND key = ANY(%s)", ids=True
    ),
    "SELECT value FROM meta WHERE key=?": _s("SELECT value FROM meta WHERE tenant=%s AND key=%s"),
    "INSERT OR REPLACE INTO meta VALUES (?, ?)": _s(
        f"INSERT INTO meta (tenant, key, value) VALUES (%s,%s,%s) {_ON_META}"
    ),
    "DELETE FROM meta WHERE key=?": _s("DELETE FROM meta WHERE tenant=%s AND key=%s"),
    "DELETE FROM meta WHERE key = 'setting:link_atoms'": _s(
        "DELETE FROM meta WHERE tenant=%s AND key = 'setting:link_atoms'"
    ),
    # ---- the atom index (stategraph.text.atom_index) -------------------------------------------
    "INSERT OR IGNORE INTO atoms VALUES (?, ?)": _s(
        "INSERT INTO atoms (tenant, atom, state_id) VALUES (%s,%s,%s) ON CONFLICT DO NOTHING"
    ),
    "INSERT OR IGNORE INTO atom_keys VALUES (?, ?)": _s(
        "INSERT INTO atom_keys (tenant, key, atom) VALUES (%s,%s,%s) ON CONFLICT DO NOTHING"
    ),
    "INSERT OR IGNORE INTO input_dates VALUES (?, ?)": _s(
        "INSERT INTO input_dates (tenant, predicate, date) VALUES (%s,%s,%s) ON CONFLICT DO NOTHING"
    ),
    "DELETE FROM link_atoms": _s("DELETE FROM link_atoms WHERE tenant=%s"),
    "DELETE FROM atom_watches": _s("DELETE FROM atom_watches WHERE tenant=%s"),
    "DELETE FROM link_atoms WHERE atom = ?": _s(
        "DELETE FROM link_atoms WHERE tenant=%s AND atom = %s"
    ),
    "DELETE FROM atom_watches WHERE key = ? AND atom = ?": _s(
        "DELETE FROM atom_watches WHERE tenant=%s AND key = %s AND atom = %s"
    ),
    "INSERT OR IGNORE INTO link_atoms VALUES (?)": _s(
        "INSERT INTO link_atoms (tenant, atom) VALUES (%s,%s) ON CONFLICT DO NOTHING"
    ),
    "INSERT OR IGNORE INTO atom_watches VALUES (?, ?)": _s(
        "INSERT INTO atom_watches (tenant, key, atom) VALUES (%s,%s,%s) ON CONFLICT DO NOTHING"
    ),
    "SELECT atom FROM atom_keys WHERE key = ?": _s(
        "SELECT atom FROM atom_keys WHERE tenant=%s AND key = %s"
    ),
    "SELECT count(*) FROM (SELECT 1 FROM atom_keys WHERE key = ? LIMIT ?)": _s(
        "SELECT count(*) FROM (SELECT 1 FROM atom_keys WHERE tenant=%s AND key = %s LIMIT %s) AS k"
    ),
    "SELECT a.state_id, s.active FROM atoms a JOIN states s ON s.id = a.state_id "
    "WHERE a.atom = ? ORDER BY a.state_id": _s(
        "SELECT a.state_id, s.active FROM atoms a JOIN states s "
        "ON s.tenant = a.tenant AND s.id = a.state_id "
        "WHERE a.tenant=%s AND a.atom = %s ORDER BY a.state_id"
    ),
    "SELECT 1 FROM atoms WHERE atom = ? LIMIT 1": _s(
        "SELECT 1 FROM atoms WHERE tenant=%s AND atom = %s LIMIT 1"
    ),
    "SELECT date FROM input_dates WHERE predicate = ?": _s(
        "SELECT date FROM input_dates WHERE tenant=%s AND predicate = %s"
    ),
    "SELECT count(*) FROM input_dates WHERE predicate = ?": _s(
        "SELECT count(*) FROM input_dates WHERE tenant=%s AND predicate = %s"
    ),
    "SELECT predicate, date FROM input_dates WHERE date IN ({})": _s(
        "SELECT predicate, date FROM input_dates WHERE tenant=%s AND date = ANY(%s)", ids=True
    ),
    "SELECT DISTINCT date FROM input_dates": _s(
        "SELECT DISTINCT date FROM input_dates WHERE tenant=%s"
    ),
    "SELECT DISTINCT predicate FROM input_dates": _s(
        "SELECT DISTINCT predicate FROM input_dates WHERE tenant=%s"
    ),
    "SELECT 1 FROM input_dates WHERE date = ? LIMIT 1": _s(
        "SELECT 1 FROM input_dates WHERE tenant=%s AND date = %s LIMIT 1"
    ),
    "SELECT atom FROM atom_watches WHERE key IN ({})": _s(
        "SELECT atom FROM atom_watches WHERE tenant=%s AND key = ANY(%s)", ids=True
    ),
    "SELECT key FROM atom_watches WHERE atom = ?": _s(
        "SELECT key FROM atom_watches WHERE tenant=%s AND atom = %s"
    ),
    "SELECT 1 FROM link_atoms WHERE atom = ?": _s(
        "SELECT 1 FROM link_atoms WHERE tenant=%s AND atom = %s"
    ),
    "SELECT 1 FROM edges WHERE src = ? AND head >= 'rule:' AND head < 'rule;' LIMIT 1": _s(
        "SELECT 1 FROM edges WHERE tenant=%s AND src = %s AND head >= 'rule:' "
        "AND head < 'rule;' LIMIT 1"
    ),
    "SELECT 1 FROM justifications WHERE head = ? LIMIT 1": _s(
        "SELECT 1 FROM justifications WHERE tenant=%s AND head = %s LIMIT 1"
    ),
    "SELECT a.state_id, s.kind FROM atoms a JOIN states s ON s.id = a.state_id "
    "WHERE a.atom = ? ORDER BY a.state_id": _s(
        "SELECT a.state_id, s.kind FROM atoms a JOIN states s "
        "ON s.tenant = a.tenant AND s.id = a.state_id "
        "WHERE a.tenant=%s AND a.atom = %s ORDER BY a.state_id"
    ),
    "SELECT atom FROM atoms WHERE state_id = ? ORDER BY atom": _s(
        "SELECT atom FROM atoms WHERE tenant=%s AND state_id = %s ORDER BY atom"
    ),
    "SELECT 1 FROM atoms LIMIT 1": _s("SELECT 1 FROM atoms WHERE tenant=%s LIMIT 1"),
    # ---- the review queue (stategraph.store.review_queue) ---------------------------------------
    "SELECT id FROM review_queue": _s("SELECT id FROM review_queue WHERE tenant=%s"),
    "SELECT id FROM review_queue WHERE id IN ({})": _s(
        "SELECT id FROM review_queue WHERE tenant=%s AND id = ANY(%s)", ids=True
    ),
    "DELETE FROM review_queue WHERE id=?": _s("DELETE FROM review_queue WHERE tenant=%s AND id=%s"),
    "INSERT OR REPLACE INTO review_queue VALUES (?,?,?)": _s(
        "INSERT INTO review_queue (tenant, id, seq, entry) VALUES (%s,%s,%s,%s) "
        "ON CONFLICT (tenant, id) DO UPDATE SET seq = excluded.seq, entry = excluded.entry"
    ),
    "SELECT 1 FROM meta WHERE key=?": _s("SELECT 1 FROM meta WHERE tenant=%s AND key=%s"),
    "INSERT OR REPLACE INTO meta VALUES (?, '1')": _s(
        f"INSERT INTO meta (tenant, key, value) VALUES (%s,%s,'1') {_ON_META}"
    ),
    "SELECT id, seq, entry FROM review_queue ORDER BY id": _s(
        "SELECT id, seq, entry FROM review_queue WHERE tenant=%s ORDER BY id"
    ),
    "SELECT seq, entry FROM review_queue WHERE id=?": _s(
        "SELECT seq, entry FROM review_queue WHERE tenant=%s AND id=%s"
    ),
    # ---- the tables' digest (stategraph.store.tables) -------------------------------------------
    "SELECT seq, config FROM revisions ORDER BY seq DESC LIMIT 1": _s(
        "SELECT seq, config FROM revisions WHERE tenant=%s ORDER BY seq DESC LIMIT 1"
    ),
    f"SELECT {_STATE_COLUMNS}, has_atoms, body FROM states WHERE id IN ({{}})": _s(
        f"SELECT {_STATE_COLUMNS}, has_atoms, body FROM states WHERE tenant=%s AND id = ANY(%s)",
        ids=True,
    ),
    "SELECT id, seq, entry FROM review_queue WHERE id IN ({})": _s(
        "SELECT id, seq, entry FROM review_queue WHERE tenant=%s AND id = ANY(%s)", ids=True
    ),
    f"SELECT {_STATE_COLUMNS}, has_atoms, body FROM states WHERE id > ? ORDER BY id LIMIT ?": _s(
        f"SELECT {_STATE_COLUMNS}, has_atoms, body FROM states WHERE tenant=%s AND id > %s "
        "ORDER BY id LIMIT %s"
    ),
    f"{_JUST} WHERE (head, premises, unless) > (?, ?, ?) "
    "ORDER BY head, premises, unless LIMIT ?": _s(
        f"{_JUST} WHERE tenant=%s AND (head, premises, unless) > (%s, %s, %s) "
        "ORDER BY head, premises, unless LIMIT %s"
    ),
    "SELECT src, head, follow FROM edges WHERE (src, head) > (?, ?) ORDER BY src, head LIMIT ?": _s(
        "SELECT src, head, follow FROM edges WHERE tenant=%s AND (src, head) > (%s, %s) "
        "ORDER BY src, head LIMIT %s"
    ),
    "SELECT id, seq, entry FROM review_queue WHERE id > ? ORDER BY id LIMIT ?": _s(
        "SELECT id, seq, entry FROM review_queue WHERE tenant=%s AND id > %s ORDER BY id LIMIT %s"
    ),
    # ---- the past (stategraph.store.past, stategraph.store.asof) ------------------------------
    "INSERT INTO states_past VALUES (?,?,?,?,?)": _s(
        "INSERT INTO states_past (tenant, id, until, active, superseded_by, truth) "
        "VALUES (%s,%s,%s,%s,%s,%s)"
    ),
    "INSERT INTO justifications_past VALUES (?,?,?,?,?,?)": _s(
        "INSERT INTO justifications_past (tenant, head, premises, unless, until, origin, extra) "
        "VALUES (%s,%s,%s,%s,%s,%s,%s)"
    ),
    "INSERT INTO review_past VALUES (?,?,?,?)": _s(
        "INSERT INTO review_past (tenant, id, until, seq, entry) VALUES (%s,%s,%s,%s,%s)"
    ),
    "SELECT id, until, active, superseded_by, truth FROM states_past "
    "WHERE (id, until) > (?, ?) ORDER BY id, until LIMIT ?": _s(
        "SELECT id, until, active, superseded_by, truth FROM states_past "
        "WHERE tenant=%s AND (id, until) > (%s, %s) ORDER BY id, until LIMIT %s"
    ),
    "SELECT head, premises, unless, until, origin, extra FROM justifications_past "
    "WHERE (head, premises, unless, until) > (?, ?, ?, ?) "
    "ORDER BY head, premises, unless, until LIMIT ?": _s(
        "SELECT head, premises, unless, until, origin, extra FROM justifications_past "
        "WHERE tenant=%s AND (head, premises, unless, until) > (%s, %s, %s, %s) "
        "ORDER BY head, premises, unless, until LIMIT %s"
    ),
    "SELECT id, until, seq, entry FROM review_past "
    "WHERE (id, until) > (?, ?) ORDER BY id, until LIMIT ?": _s(
        "SELECT id, until, seq, entry FROM review_past "
        "WHERE tenant=%s AND (id, until) > (%s, %s) ORDER BY id, until LIMIT %s"
    ),
    "SELECT active, superseded_by, truth FROM states_past WHERE id=? AND until>? "
    "ORDER BY until LIMIT 1": _s(
        "SELECT active, superseded_by, truth FROM states_past "
        "WHERE tenant=%s AND id=%s AND until>%s ORDER BY until LIMIT 1"
    ),
    "SELECT id, until, active, superseded_by, truth FROM states_past WHERE id IN ({})": _s(
        "SELECT id, until, active, superseded_by, truth FROM states_past "
        "WHERE tenant=%s AND id = ANY(%s)",
        ids=True,
    ),
    "SELECT id, until, active, superseded_by, truth FROM states_past WHERE until > ? "
    "ORDER BY until": _s(
        "SELECT id, until, active, superseded_by, truth FROM states_past "
        "WHERE tenant=%s AND until > %s ORDER BY until"
    ),
    "SELECT head, premises, unless, until, origin, extra FROM justifications_past "
    "WHERE head IN ({})": _s(
        "SELECT head, premises, unless, until, origin, extra FROM justifications_past "
        "WHERE tenant=%s AND head = ANY(%s)",
        ids=True,
    ),
    "SELECT id, until, seq, entry FROM review_past WHERE until > ? ORDER BY until": _s(
        "SELECT id, until, seq, entry FROM review_past WHERE tenant=%s AND until > %s "
        "ORDER BY until"
    ),
    "SELECT seq, entry FROM review_past WHERE id=? AND until>? ORDER BY until LIMIT 1": _s(
        "SELECT seq, entry FROM review_past WHERE tenant=%s AND id=%s AND until>%s "
        "ORDER BY until LIMIT 1"
    ),
    "SELECT seq, hash FROM revisions WHERE seq=?": _s(
        "SELECT seq, hash FROM revisions WHERE tenant=%s AND seq=%s"
    ),
    "SELECT at FROM revisions WHERE seq=?": _s(
        "SELECT at FROM revisions WHERE tenant=%s AND seq=%s"
    ),
    "SELECT seq FROM revisions WHERE at <= ? ORDER BY seq DESC LIMIT 1": _s(
        'SELECT seq FROM revisions WHERE tenant=%s AND at COLLATE "C" <= %s '
        "ORDER BY seq DESC LIMIT 1"
    ),
}
"""Every statement the store and its modules run, by its SQLite text (see the module's doc)."""


def _history(where: str, pg_where: str) -> None:
    """The statements of :meth:`SQLiteStore.iter_history` for one kind of start (``_since``)."""
    STATEMENTS[
        f"SELECT seq FROM revisions WHERE seq <= ? AND {where} ORDER BY seq DESC LIMIT 1 OFFSET ?"
    ] = _s(
        f"SELECT seq FROM revisions WHERE tenant=%s AND seq <= %s AND {pg_where} "
        "ORDER BY seq DESC LIMIT 1 OFFSET %s"
    )
    STATEMENTS[_ENTRY + f"WHERE seq > ? AND seq <= ? AND {where} ORDER BY seq LIMIT 1"] = _s(
        _ENTRY + f"WHERE tenant=%s AND seq > %s AND seq <= %s AND {pg_where} ORDER BY seq LIMIT 1",
        log_rows=True,
    )


for _where, _pg_where in (("1", "TRUE"), ("seq > ?", "seq > %s"), ("at >= ?", "at >= %s")):
    _history(_where, _pg_where)

_IN_LIST = re.compile(r"IN \((?:\?,)*\?\)")


class _Rows:
    """Rows already read (log rows, turned back into texts): what a cursor gives."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = iter(rows)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return self._rows

    def fetchone(self) -> tuple[Any, ...] | None:
        return next(self._rows, None)

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self._rows)


class TenantConnection:
    """A PostgreSQL connection scoped to one tenant, taking the store's SQLite statements.

    Args:
        conn: an open psycopg connection in autocommit mode (transactions are explicit).
        tenant: every statement's first parameter.
        path: how errors name the store (the URL without its password, and the tenant).
        busy_timeout: what :class:`StoreBusyError` says was waited for.
    """

    def __init__(
        self, conn: psycopg.Connection[Any], tenant: str, path: str, busy_timeout: float
    ) -> None:
        self.pg = conn
        self.tenant = tenant
        self.path = path
        self.busy_timeout = busy_timeout

    @property
    def in_transaction(self) -> bool:
        """True inside a transaction this connection began."""
        return self.pg.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def _statement(self, sql: str) -> tuple[Statement, bool]:
        """The PostgreSQL form of a SQLite statement, and whether its ``IN`` list was spelt
        out with one ``?`` per id (which then becomes one array)."""
        found = STATEMENTS.get(sql)
        if found is not None:
            return found, False
        found = STATEMENTS.get(_IN_LIST.sub("IN ({})", sql))
        if found is not None and found.ids:
            return found, True
        raise StoreError(self.path, f"no PostgreSQL form of the statement {sql!r}")

    def _params(self, st: Statement, spelt: bool, params: Sequence[Any]) -> list[Any]:
        values = [list(params)] if spelt else list(params)
        for i in st.log_params:
            values[i] = to_bytea(values[i])
        values.insert(st.tenant_at, self.tenant)
        return values

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any:
        """Run a SQLite statement as its PostgreSQL form; returns something to fetch from."""
        st, spelt = self._statement(sql)
        with self.errors():
            cur = self.pg.execute(st.sql, self._params(st, spelt, parameters))
            if st.log_rows:
                return _Rows([tuple(from_bytea(v) for v in row) for row in cur.fetchall()])
            return cur

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> None:
        """Run a SQLite statement once per row (pipelined by psycopg)."""
        st, spelt = self._statement(sql)
        params = [self._params(st, spelt, r) for r in rows]
        if not params:
            return
        with self.errors():
            if len(params) == 1:  # one round trip, without entering pipeline mode
                self.pg.execute(st.sql, params[0])
                return
            with self.pg.cursor() as cur:
                cur.executemany(st.sql, params)

    def ids(self, sql: str, ids: Sequence[str]) -> Any:
        """Run a statement whose one parameter is an ``IN ({})`` list, with the whole list as
        one array (no chunks)."""
        st = STATEMENTS.get(sql)
        if st is None or not st.ids:
            raise StoreError(self.path, f"no PostgreSQL form of the statement {sql!r}")
        with self.errors():
            return self.pg.execute(st.sql, [self.tenant, list(ids)])

    def errors(self) -> _Translated:
        """A block in which psycopg's errors become the store's own."""
        return _Translated(self.path, self.busy_timeout)

    def close(self) -> None:
        """Close the underlying connection."""
        self.pg.close()


_UNREACHABLE = frozenset({"57P01", "57P02", "57P03"})
"""Server shutting down, crashed, or not yet accepting connections (beside class 08)."""


_NODE_LOST_AT_COMMIT = "on at least one active node"
"""What the Citus coordinator says when a worker it wrote to fails at ``COMMIT`` ("could not
commit transaction for shard N on at least one active node",
``ErrorIfPostCommitFailedShardPlacements``): the one node failure it reports with no SQLSTATE
of its own (XX000, internal error), so it is known by its words."""


def is_unreachable(exc: BaseException) -> bool:
    """Whether a psycopg error says the server, or a node of a distributed database behind it,
    cannot be reached: a connection exception (SQLSTATE class 08, which is also what the Citus
    coordinator reports for a worker it cannot reach), a server going down, a connection the
    client lost (no SQLSTATE at all), or a Citus worker lost while the transaction committed
    (:data:`_NODE_LOST_AT_COMMIT`: what it wrote there was not committed)."""
    if isinstance(exc, pg_errors.InternalError_):
        return _NODE_LOST_AT_COMMIT in str(exc)
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    return state is None or state.startswith("08") or state in _UNREACHABLE


class _Translated:
    """Turns psycopg errors into :class:`StoreBusyError` (a lock not had within the busy
    timeout), :class:`StoreUnavailableError` (the server or the tenant's node cannot be
    reached) or :class:`StoreError` (anything else: a constraint, a refused statement)."""

    def __init__(self, path: str, busy_timeout: float) -> None:
        self.path = path
        self.busy_timeout = busy_timeout

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        if isinstance(exc, pg_errors.LockNotAvailable | pg_errors.QueryCanceled):
            raise StoreBusyError(self.path, self.busy_timeout) from exc
        if exc is not None and is_unreachable(exc):
            raise StoreUnavailableError(self.path, _first_line(exc)) from exc
        if isinstance(exc, psycopg.Error):
            raise StoreError(self.path, f"PostgreSQL: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
