"""A digest of the materialised tables, chained with every log entry.

The log is the source of truth; the tables a revision writes beside it (``states``,
``justifications``, ``edges``, ``review_queue``) are what every read uses. An edit of those
tables with the ``sqlite3`` shell or ``psql`` (a truth value flipped, a text changed, a
superseded fact reactivated, rows deleted) leaves the hash chain intact, so the chain alone
cannot show it. This module keeps the tables checkable against the log at a cost in proportion
to what a revision writes, not to the store:

- **One sum per table.** Each row is hashed on its own (SHAKE-256, 256 bytes, the table's name
  first) and a table's sum is the sum of its rows' hashes modulo 2^2048: a multiset hash
  (AdHash), so a revision updates it by subtracting the hashes of the rows it touches as they
  were and adding them as they are, reading only those rows. The width is what keeps the
  generalized-birthday attack on additive hashes out of reach (a 256-bit sum falls to it with
  a few thousand chosen rows).
- **The chain carries the digest.** Each log entry's ``config`` holds ``tables``, the SHA-256 of
  the sums after the revision, so the hash chain (and a head kept elsewhere) covers it.
- **The past too.** The versions revisions replaced (:mod:`stategraph.store.past`, which
  ``Memory.as_of`` reads) are tables of the digest like the present's; they only grow, so a
  revision adds the hashes of the rows it keeps. Their sums enter the digest once they hold a
  row, so a store written before the past was kept still has the digest its log chained.
  The sums themselves are a cache in ``meta`` (:data:`META_KEY`): a commit uses them only if
  they hash to the head's digest, and refuses to write otherwise (they were edited).
- **Verification recomputes.** ``history --verify --deep`` (:meth:`SQLiteStore.verify
  <stategraph.store.SQLiteStore.verify>` with ``deep``) reads every row once and compares
  the digest with the head's: an edit since, whatever it was, shows. Rows a revision touches
  later are read as they are then, so an edit made before a revision stays visible after it.

A log written before the digest existed has none: the first revision that finds none at the
head (with a log that is not empty) takes the sums from the tables as they are then, once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from stategraph.store import past

__all__ = [
    "CONFIG_KEY",
    "META_KEY",
    "TABLES",
    "Keys",
    "Sums",
    "rows_hash",
]

CONFIG_KEY = "tables"
"""The key of the digest in a log entry's ``config``."""

META_KEY = "tables:sums"
"""The ``meta`` key of the cached sums: ``{"seq": N, "sums": {table: hex}}``."""

PRESENT = ("states", "justifications", "edges", "review_queue")
"""The present's tables, in the order the digest hashes their sums."""

TABLES = (*PRESENT, *past.TABLES)
"""The tables the digest covers, in the order the digest hashes their sums: the present's,
then the past's (:mod:`stategraph.store.past`), which the digest covers once they hold a row
(so that the digest of a store written before the past was kept stays what its log says)."""

_SORTED = tuple(sorted(TABLES))
"""The tables in the order of their names (the order of the keys of :meth:`Sums.to_json`)."""

_BITS = 2048
_MASK = (1 << _BITS) - 1
_BYTES = _BITS // 8
_NULL = "\x00"
_SEP = "\x1f"

SCAN = {
    "states": (
        "SELECT id, kind, status, active, superseded_by, truth, has_atoms, body FROM states "
        "WHERE id > ? ORDER BY id LIMIT ?",
        1,
    ),
    "justifications": (
        "SELECT head, premises, unless, origin, extra FROM justifications "
        "WHERE (head, premises, unless) > (?, ?, ?) ORDER BY head, premises, unless LIMIT ?",
        3,
    ),
    "edges": (
        "SELECT src, head, follow FROM edges WHERE (src, head) > (?, ?) ORDER BY src, head LIMIT ?",
        2,
    ),
    "review_queue": (
        "SELECT id, seq, entry FROM review_queue WHERE id > ? ORDER BY id LIMIT ?",
        1,
    ),
    "states_past": (
        "SELECT id, until, active, superseded_by, truth FROM states_past "
        "WHERE (id, until) > (?, ?) ORDER BY id, until LIMIT ?",
        2,
    ),
    "justifications_past": (
        "SELECT head, premises, unless, until, origin, extra FROM justifications_past "
        "WHERE (head, premises, unless, until) > (?, ?, ?, ?) "
        "ORDER BY head, premises, unless, until LIMIT ?",
        4,
    ),
    "review_past": (
        "SELECT id, until, seq, entry FROM review_past "
        "WHERE (id, until) > (?, ?) ORDER BY id, until LIMIT ?",
        2,
    ),
}
"""Each table read in key order, a page at a time after the last key read (so PostgreSQL
never holds a whole table in the client), and how many columns make the key."""

_KEYS = {
    "states": ("id",),
    "justifications": ("head", "premises", "unless"),
    "edges": ("src", "head"),
    "review_queue": ("id",),
    "states_past": ("id", "until"),
    "justifications_past": ("head", "premises", "unless", "until"),
    "review_past": ("id", "until"),
}
"""Each table's key columns (a page starts after the last key read; the first one after
the smallest: an empty text, or -1 for a revision)."""

_PAGE = 10_000


def rows_hash(table: str, rows: Iterable[tuple[Any, ...]]) -> int:
    """The sum of the rows' hashes (modulo 2^2048)."""
    total = 0
    prefix = (table + _SEP).encode("utf-8")
    for row in rows:
        text = _SEP.join(_NULL if v is None else str(v) for v in row)
        h = hashlib.shake_256(prefix + text.encode("utf-8", "surrogatepass"))
        total += int.from_bytes(h.digest(_BYTES), "little")
    return total & _MASK


@dataclass
class Sums:
    """The digested tables' sums."""

    sums: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLES, 0))

    def digest(self) -> str:
        """What the log chains: SHA-256 over the sums in :data:`TABLES` order (the past's
        only once it holds a row: before that, the digest is the one a store written before
        the past was kept chained)."""
        h = hashlib.sha256()
        kept = any(self.sums[t] for t in past.TABLES)
        for t in TABLES if kept else PRESENT:
            h.update(self.sums[t].to_bytes(_BYTES, "little"))
        return h.hexdigest()

    def moved(self, before: Sums, after: Sums) -> Sums:
        """These sums, with rows read ``before`` a write replaced by the same rows ``after``."""
        return Sums({t: (self.sums[t] - before.sums[t] + after.sums[t]) & _MASK for t in TABLES})

    def differing(self, other: Sums) -> list[str]:
        """The tables whose sums differ."""
        return [t for t in TABLES if self.sums[t] != other.sums[t]]

    def to_json(self, seq: int, rebased: bool = False) -> str:
        """The ``meta`` value: the sums after log entry ``seq`` (``rebased``: taken from the
        tables by an acknowledgement, not from the head's digest)."""
        # The text json.dumps(sort_keys=True, separators=(",", ":")) gives, written directly:
        # escaping 3.5 KB of hex digits was a twentieth of a small revision's time.
        sums = ",".join(f'"{t}":"{self.sums[t]:x}"' for t in _SORTED)
        flag = '"rebased":true,' if rebased else ""
        return f'{{{flag}"seq":{int(seq)},"sums":{{{sums}}}}}'

    @staticmethod
    def from_json(text: str) -> tuple[int, Sums, bool] | None:
        """The ``meta`` value back (seq, sums, rebased), or None if it is not one."""
        try:
            value = json.loads(text)
            kept = value["sums"]
            # the past's sums are absent from a record made before the past was kept: none
            sums = {
                t: int(kept[t] if t in PRESENT else kept.get(t, "0"), 16) & _MASK for t in TABLES
            }
            return int(value["seq"]), Sums(sums), value.get("rebased") is True
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


class _Conn(Protocol):
    def execute(self, sql: str, parameters: Any = (), /) -> Any: ...


def scan(conn: _Conn) -> Sums:
    """The sums of every row of the digested tables, each read once in key order."""
    out = Sums()
    for table in TABLES:
        out.sums[table] = rows_hash(table, _pages(conn, table))
    return out


def _pages(conn: _Conn, table: str) -> Iterator[tuple[Any, ...]]:
    sql, width = SCAN[table]
    after: tuple[Any, ...] = tuple(-1 if c == "until" else "" for c in _KEYS[table][:width])
    while True:
        rows = conn.execute(sql, (*after, _PAGE)).fetchall()
        yield from rows
        if len(rows) < _PAGE:
            return
        after = tuple(rows[-1][:width])


@dataclass
class Keys:
    """The rows one revision writes, by table key."""

    states: set[str] = field(default_factory=set)
    justifications: set[tuple[str, str, str]] = field(default_factory=set)
    """``(head, premises, unless)`` as stored (JSON arrays): the justifications added or
    removed, each read by its primary key (a head's other rows do not move)."""
    edges: set[tuple[str, str]] = field(default_factory=set)
    review: set[str] = field(default_factory=set)
