"""The review queue's index: which states wait for a person, and since which revision.

A state waits for review while the last revision that graded it said ``needs_confirmation``
(undefined by a negative cycle, an unverified candidate or the depth bound; an executed action
that lost its support; a memory a new fact may defeat; a compatible update) and nothing has
settled it since: a later revision graded it otherwise, or retracted or superseded it, or a
person confirmed or rejected it (:mod:`stategraph.review`). Only the log says which states
those are, and reading the whole log to find them would cost in proportion to its length, so
the store keeps this index beside it, written in the transaction of every revision's commit
(:func:`record`). It copies each flagging entry, so listing the queue reads neither the log
nor the states it does not list.

It is an index, not evidence: the log entry it names (``seq``) is what the hash chain covers,
and ``stategraph audit verify`` replays. A store written before the index existed gets it
filled once from its log when it is opened for writing (:func:`fill`).

States the log never graded can be undefined too (asserted while a premise was undefined,
bulk loaded into a negative cycle); ``SCHEMA`` indexes undefined states, so the queue finds
them without scanning every state, and :mod:`stategraph.review` says why they are undefined.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from stategraph.model import Decision, Entry, Report, Truth, Verdict
from stategraph.nodes import is_internal
from stategraph.store.revlog import UnreadableColumn, unpack

__all__ = ["SCHEMA", "Flag", "Moved", "fill", "flag", "flags", "record", "undefined_ids"]

SCHEMA = """
-- The states waiting for review (stategraph.store.review_queue): the entry that flagged each.
CREATE TABLE IF NOT EXISTS review_queue (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,           -- the revision (log entry) that flagged it
    entry TEXT NOT NULL             -- that revision's Entry for it (JSON), or '' if the state
);                                  -- was asserted undefined (the change itself, no Entry)
CREATE INDEX IF NOT EXISTS states_undefined ON states (id) WHERE truth = 'undefined';
"""

_FILLED = "review_queue:filled"
"""``meta`` key set once the queue holds what the log flagged."""

Flag = tuple[str, int, Entry | None]
"""A queued state: its id, the revision that flagged it, and that revision's entry for it
(None for a state the change asserted undefined)."""


@dataclass(frozen=True)
class Moved:
    """What one revision did to the queue: the ids it dropped, and the rows
    ``(id, seq, entry)`` it wrote (each replacing any row of its id)."""

    dropped: frozenset[str]
    added: tuple[tuple[str, int, str], ...]


def record(
    conn: sqlite3.Connection, seq: int, report: Report, queued: set[str] | None = None
) -> Moved:
    """Bring the queue up to date with one revision (inside its commit's transaction).

    Every state the change acted on leaves the queue (retracted, superseded, or asserted: a new
    state enters it only if it is undefined); every graded state enters it if its verdict is
    ``needs_confirmation`` and leaves it otherwise; a fact a person confirms as not replaced
    leaves it with the memories flagged for resting on it (:func:`_kept_facts`).

    Args:
        conn: the store's connection, inside the commit's transaction.
        seq: the revision's log sequence number.
        report: the revision's report.
        queued: which of the states the report names are queued now, if the caller read
            them already (a commit does, for the tables' digest); else they are read here.
    """
    if queued is None:
        named = sorted({c.id for c in report.changed} | {e.id for e in report.entries})
        queued = set()
        for i in range(0, len(named), 500):  # only the states this revision names: never the queue
            chunk = named[i : i + 500]
            sql = f"SELECT id FROM review_queue WHERE id IN ({','.join('?' * len(chunk))})"
            queued.update(r[0] for r in conn.execute(sql, chunk))
    drop: set[str] = _kept_facts(conn, report)
    add: list[tuple[str, int, str]] = []
    for c in report.changed:
        if c.new is Truth.undefined and c.action == "asserted":
            add.append((c.id, seq, ""))
        elif c.id in queued:
            drop.add(c.id)
    for e in report.entries:
        if e.verdict is Verdict.needs_confirmation:
            add.append((e.id, seq, e.model_dump_json()))
        elif e.id in queued:
            drop.add(e.id)
    if drop:
        conn.executemany("DELETE FROM review_queue WHERE id=?", [(i,) for i in sorted(drop)])
    if add:
        conn.executemany("INSERT OR REPLACE INTO review_queue VALUES (?,?,?)", add)
    return Moved(frozenset(drop), tuple(add))


_REPLACED = "possibly_replaced"


def _kept_facts(conn: sqlite3.Connection, report: Report) -> set[str]:
    """What a person's confirmation of facts settles: each fact a new fact may have replaced
    (:mod:`stategraph.reversal`) that a person confirmed (a confirmation adds a review
    justification to a derived state; to a fact, which holds without one, it adds nothing),
    and the memories flagged for resting on it (cause ``possibly_replaced``, the fact
    undecided). Empty for every other revision, which reads nothing here."""
    justified = {j.head for j in report.change.add_justifications}
    kept = {
        r.id
        for r in report.change.reviews
        if r.decision is Decision.confirmed and r.id not in justified
    }
    if not kept:
        return set()
    out = set(kept)
    like = (f"%{_REPLACED}%",)
    rows = conn.execute("SELECT id, entry FROM review_queue WHERE entry LIKE ?", like)
    for sid, text in rows:
        entry = Entry.model_validate_json(text)
        if entry.reason.cause == _REPLACED and kept & set(entry.reason.undecided):
            out.add(sid)
    return out


def fill(conn: sqlite3.Connection) -> None:
    """Fill the queue from the log, once, for a store written before the queue existed.

    Reads each revision's report in log order (a bulk load's summary grades nothing); a
    report that cannot be read is skipped here and left to ``verify`` to name.
    """
    if conn.execute("SELECT 1 FROM meta WHERE key=?", (_FILLED,)).fetchone() is not None:
        return
    last = 0
    while True:
        row = conn.execute(
            "SELECT seq, report FROM revisions WHERE seq > ? ORDER BY seq LIMIT 1", (last,)
        ).fetchone()
        if row is None:
            break
        last = int(row[0])
        try:
            text = unpack(row[1])
        except UnreadableColumn:
            continue
        if not text.startswith('{"bulk_load":'):
            record(conn, last, Report.model_validate_json(text))
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (_FILLED,))


def flags(conn: sqlite3.Connection) -> Iterator[Flag]:
    """The queued states, by id."""
    for sid, seq, entry in conn.execute("SELECT id, seq, entry FROM review_queue ORDER BY id"):
        yield sid, int(seq), Entry.model_validate_json(entry) if entry else None


def undefined_ids(conn: sqlite3.Connection) -> list[str]:
    """Every memory whose value is undefined, sorted (through the partial index): an atom
    node (:mod:`stategraph.nodes`) is no memory, and its undefined value shows in those that
    rest on it."""
    rows = conn.execute("SELECT id FROM states WHERE truth = 'undefined' ORDER BY id")
    return [r[0] for r in rows if not is_internal(r[0])]


def flag(conn: sqlite3.Connection, state_id: str) -> Flag | None:
    """One state's place in the queue, or None."""
    row = conn.execute("SELECT seq, entry FROM review_queue WHERE id=?", (state_id,)).fetchone()
    if row is None:
        return None
    return state_id, int(row[0]), Entry.model_validate_json(row[1]) if row[1] else None
