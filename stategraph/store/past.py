"""The past of the tables: every version a revision replaced, kept so the past reads cheaply.

The tables hold the memory as it is now; the log says how it came to be. Reading the memory as
it was after revision ``N`` (:meth:`Memory.as_of <stategraph.memory.Memory.as_of>`) by
replaying the log up to ``N`` would cost in proportion to the log. Instead each revision's
commit keeps, in the same transaction, the rows it replaced:

- ``states_past``: a state's ``active``, ``superseded_by`` and ``truth`` as they were until
  the revision ``until`` changed them; a row whose ``truth`` is NULL says the state did not
  exist before ``until`` (it was created then). A state's body never changes, so it is read
  from ``states``.
- ``justifications_past``: a justification's ``origin`` and ``extra`` until ``until``
  replaced or removed it; NULL ``origin``: it was not stored before ``until``.
- ``review_past``: a state's place in the review queue until ``until``; NULL ``seq``: it was
  not queued before ``until``.

So a row's value at revision ``N`` is the first kept version that ended after ``N`` (the
smallest ``until > N``), or, when none did, the row as it is now: one indexed seek, as a
present read is. The past is written from the rows the commit reads anyway for the tables'
digest (:class:`stategraph.store.sqlite._Touched`), and is digested with them
(:data:`stategraph.store.tables.TABLES`), so an edit of it shows in ``history --verify
--deep`` like an edit of the present.

A store written before the past was kept has none of it: it is kept from the revision its
migration found at the head onward (``meta`` key :data:`SINCE_KEY`), and a read of an earlier
revision says so (:class:`~stategraph.errors.AsOfRangeError`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["INSERT", "SCHEMA", "SINCE_KEY", "TABLES", "changed_rows", "created"]

SINCE_KEY = "past:since"
"""``meta`` key: the first revision whose past is kept, in a store migrated to keeping it
(absent: the past is kept from the first revision)."""

TABLES = ("states_past", "justifications_past", "review_past")
"""The past's tables, in the order the tables' digest hashes their sums."""

SCHEMA = """
-- The versions revisions replaced (stategraph.store.past): a row's value at revision N is
-- the version with the smallest until > N, else the present row.
CREATE TABLE IF NOT EXISTS states_past (
    id TEXT NOT NULL,
    until INTEGER NOT NULL,         -- the revision that ended this version
    active INTEGER,                 -- NULL (and truth NULL): no such state before until
    superseded_by TEXT,
    truth TEXT,
    PRIMARY KEY (id, until)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS states_past_until ON states_past (until);
CREATE TABLE IF NOT EXISTS justifications_past (
    head TEXT NOT NULL,
    premises TEXT NOT NULL,
    unless TEXT NOT NULL,
    until INTEGER NOT NULL,
    origin TEXT,                    -- NULL: no such justification before until
    extra TEXT,
    PRIMARY KEY (head, premises, unless, until)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS review_past (
    id TEXT NOT NULL,
    until INTEGER NOT NULL,
    seq INTEGER,                    -- NULL: not queued before until
    entry TEXT,
    PRIMARY KEY (id, until)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS review_past_until ON review_past (until);
"""

INSERT = {
    "states_past": "INSERT INTO states_past VALUES (?,?,?,?,?)",
    "justifications_past": "INSERT INTO justifications_past VALUES (?,?,?,?,?,?)",
    "review_past": "INSERT INTO review_past VALUES (?,?,?,?)",
}
"""The statement that keeps one past row of each table."""


def changed_rows(
    table: str,
    before: Mapping[Any, tuple[Any, ...]],
    after: Mapping[Any, tuple[Any, ...]],
    seq: int,
) -> list[tuple[Any, ...]]:
    """The past rows revision ``seq`` keeps for one present table: the version each row it
    changed had before it (or the mark that there was none).

    Args:
        table: ``"states"``, ``"justifications"`` or ``"review_queue"``.
        before: the rows the revision touches, by key, as they were before it.
        after: the same keys' rows after it (a key absent: the row was deleted).
        seq: the revision.
    """
    out: list[tuple[Any, ...]] = []
    for key in sorted(before.keys() | after.keys()):
        was, now = before.get(key), after.get(key)
        if was == now:
            continue
        if table == "states":  # (id, kind, status, active, superseded_by, truth, ...)
            out.append((key, seq, None, None, None) if was is None else (key, seq, *was[3:6]))
        elif table == "justifications":  # (head, premises, unless, origin, extra)
            out.append((*key, seq, None, None) if was is None else (*key, seq, was[3], was[4]))
        else:  # review_queue: (id, seq, entry)
            out.append((key, seq, None, None) if was is None else (key, seq, was[1], was[2]))
    return out


def created(ids: Iterable[str], seq: int) -> list[tuple[Any, ...]]:
    """The ``states_past`` marks of states revision ``seq`` created (a bulk load's)."""
    return [(sid, seq, None, None, None) for sid in ids]
