"""Recall's index checked against the states it was built from (``history --verify --deep``).

The full-text index (:mod:`stategraph.text.fulltext`) is derived from the states alone: a
memory's text and atoms never change once written, and every memory with a token is indexed
when it is written. So the deep check makes what the index must hold again from the ``states``
table (itself checked against the log's digest, :mod:`stategraph.store.tables`) and compares,
rather than chaining the index into the digest (which would cost every commit a read of the
rows it moves in three more tables).

What is compared, row by row, each side read in the same order (the database sorts where a
table is not kept in it):

- SQLite: the rows of ``recall_fts`` (id and tokens) against the states' tokens; FTS5's own
  inverted index, read through an ``fts5vocab`` table (every token's memory and position, put
  back in order), against those rows; its per-row token counts and its averages record (what
  ``bm25()`` reads); and, where the store keeps frequent words' lists
  (:mod:`stategraph.text.impacts`), ``recall_df`` against the index's own counts and
  ``recall_impact`` against the postings its threshold asks for.
- PostgreSQL: every row of ``recall_docs`` against the ``tsvector`` its memory's tokens give,
  compared by the server a page of states at a time.

A store whose index is still being filled (written before the index existed; the first recall
fills it, :func:`~stategraph.text.fulltext.backfill`) may lack memories, but every row it has
must be right.

Not compared: the order in which memories were indexed (on SQLite it breaks ties of equal
score), and FTS5's settings row (``recall_fts_config``: how it merges segments).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from stategraph.text import fulltext, impacts

__all__ = ["mismatches"]

_PAGE = 2_000


def mismatches(store: Any) -> list[str]:
    """The recall tables that do not hold what the store's states give (empty: all do):
    ``recall_fts`` (PostgreSQL's ``recall_docs`` is named so too), ``recall_df``,
    ``recall_impact``.

    ``store`` is a SQLite or PostgreSQL store, read inside the caller's snapshot (the deep
    check's read transaction), so the states and the index are read as of one commit.
    """
    conn = store.conn
    filled = bool(store.get_setting(fulltext.FILLED))
    if isinstance(conn, sqlite3.Connection):
        return _sqlite(conn, filled)
    return _postgres(conn, filled)


def _expected(rows: Iterable[tuple[Any, Any]]) -> Iterator[tuple[str, list[str]]]:
    """(id, tokens) of each memory with a token, from ``states`` rows (id, body as JSON)."""
    for sid, body in rows:
        value = json.loads(body)
        toks = fulltext.tokens(value.get("text", ""), value.get("atoms") or ())
        if toks:
            yield str(sid), toks


def _states(conn: sqlite3.Connection) -> Iterator[tuple[str, list[str]]]:
    """:func:`_expected` of every state, in id order, a page at a time."""
    after = ""
    while True:
        rows = conn.execute(
            "SELECT id, body FROM states WHERE id > ? ORDER BY id LIMIT ?", (after, _PAGE)
        ).fetchall()
        yield from _expected(rows)
        if len(rows) < _PAGE:
            return
        after = rows[-1][0]


def _same(left: Iterable[tuple[Any, ...]], right: Iterable[tuple[Any, ...]]) -> bool:
    """Whether two streams of rows are equal, row by row (read only as far as they agree)."""
    end = object()
    return all(a == b for a, b in itertools.zip_longest(left, right, fillvalue=end))


def _sqlite(conn: sqlite3.Connection, filled: bool) -> list[str]:
    present = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = ?", (fulltext.TABLE,)
    ).fetchone()
    if present is None:  # nothing indexed yet: only right if nothing was to be
        return [] if not filled or next(_states(conn), None) is None else ["recall_fts"]
    wrong: list[str] = []
    try:
        if not _fts_matches(conn, filled):
            wrong.append("recall_fts")
        cut = impacts.threshold(conn)
        if cut is not None:  # the store keeps frequent words' lists
            counts = conn.execute("SELECT term, df FROM recall_df ORDER BY term")
            if not _same(counts, _vocab(conn, "row", "term, doc", order="term")):
                wrong.append("recall_df")
            listed = conn.execute(
                "SELECT doc, term, tf, dl FROM recall_impact ORDER BY doc, term, tf, dl"
            )
            if not _same(listed, _postings(conn, int(cut))):
                wrong.append("recall_impact")
    except sqlite3.DatabaseError:  # FTS5 found its own structures corrupt while reading them
        return sorted({"recall_fts", *wrong})
    return wrong


def _fts_matches(conn: sqlite3.Connection, filled: bool) -> bool:
    """Whether ``recall_fts`` holds the states' tokens, and FTS5's index, token counts and
    averages record hold its rows."""
    table = fulltext.TABLE
    indexed: set[str] | None = None
    if not filled:  # still being filled: compare only the memories it has
        indexed = {str(i) for (i,) in conn.execute(f"SELECT id FROM {table}")}
    expected = (
        (sid, " ".join(toks)) for sid, toks in _states(conn) if indexed is None or sid in indexed
    )
    if not _same(expected, conn.execute(f"SELECT id, body FROM {table} ORDER BY id")):
        return False
    if not _same(_rows(conn), _inverted(conn)):
        return False
    totals = [0, 0]  # rows, tokens: what the averages record must say
    stored = conn.execute(f"SELECT id, sz FROM {table}_docsize ORDER BY id")
    if not _same(_sizes(conn, totals), ((i, sum(impacts.varints(bytes(z)))) for i, z in stored)):
        return False
    return impacts.averages(conn) == (totals[0], totals[1])


def _sizes(conn: sqlite3.Connection, totals: list[int]) -> Iterator[tuple[int, int]]:
    """(rowid, tokens) of ``recall_fts``'s rows in rowid order, counted into ``totals``."""
    for rowid, body in _rows(conn):
        size = len(body.split())
        totals[0] += 1
        totals[1] += size
        yield rowid, size


def _rows(conn: sqlite3.Connection) -> Iterator[tuple[int, str]]:
    """``recall_fts``'s rows as (rowid, tokens joined by spaces), in rowid order."""
    for rowid, body in conn.execute(f"SELECT rowid, body FROM {fulltext.TABLE} ORDER BY rowid"):
        yield int(rowid), " ".join(str(body).split())


def _inverted(conn: sqlite3.Connection) -> Iterator[tuple[int, str]]:
    """Each memory's tokens as FTS5's inverted index has them (every token's memory and
    position, put back in order), as (rowid, tokens joined by spaces), in rowid order; a
    position missing or repeated puts a token no body has in its place."""
    doc: int | None = None
    toks: list[str] = []
    for term, at, offset in _vocab(conn, "instance", "term, doc, offset", order="doc, offset"):
        if at != doc:
            if doc is not None:
                yield doc, " ".join(toks)
            doc, toks = int(at), []
        toks.append(str(term) if offset == len(toks) else f"\x00{offset}")
    if doc is not None:
        yield doc, " ".join(toks)


def _postings(conn: sqlite3.Connection, cut: int) -> Iterator[tuple[int, str, int, int]]:
    """What ``recall_impact`` must hold for lists kept from ``cut`` memories on, as (rowid,
    word, count in the memory, the memory's tokens), in that order."""
    frequent = {str(t) for (t,) in _vocab(conn, "row", "term", where=f"doc >= {int(cut)}")}
    for rowid, body in _rows(conn):
        toks = body.split()
        for word in sorted(frequent.intersection(toks)):
            yield rowid, word, toks.count(word), len(toks)


_names = itertools.count()


def _vocab(
    conn: sqlite3.Connection, kind: str, columns: str, where: str = "1", order: str = "1"
) -> Iterator[tuple[Any, ...]]:
    """Rows of FTS5's own view of its index (``fts5vocab``, a temporary table of its own:
    nothing of the store is written)."""
    name = f"temp.recall_check_{kind}_{next(_names)}"
    conn.execute(f"CREATE VIRTUAL TABLE {name} USING fts5vocab(main, {fulltext.TABLE}, {kind})")
    try:
        yield from conn.execute(f"SELECT {columns} FROM {name} WHERE {where} ORDER BY {order}")
    finally:
        with contextlib.suppress(sqlite3.Error):  # left unread: it goes with the connection
            conn.execute(f"DROP TABLE {name}")


def _postgres(tc: Any, filled: bool) -> list[str]:
    """Each page of states' expected ``tsvector`` compared with its row by the server (which
    parses and orders a ``tsvector`` its own way), then the rows no state accounts for."""
    expected = 0
    wrong = 0
    after = ""
    with tc.errors():
        while True:
            rows = tc.pg.execute(
                "SELECT id, body FROM states WHERE tenant = %s AND id > %s ORDER BY id LIMIT %s",
                (tc.tenant, after, _PAGE),
            ).fetchall()
            page = list(_expected(rows))
            if page:
                join = "LEFT JOIN" if filled else "JOIN"
                (n, bad) = tc.pg.execute(
                    "SELECT count(d.id), count(*) FILTER (WHERE d.body IS DISTINCT FROM "
                    "CAST(e.body AS tsvector)) FROM unnest(%s::text[], %s::text[]) AS e(id, body) "
                    f"{join} recall_docs d ON d.tenant = %s AND d.id = e.id",
                    (
                        [sid for sid, _ in page],
                        [fulltext.tsvector(t) for _, t in page],
                        tc.tenant,
                    ),
                ).fetchone()
                expected += int(n)
                wrong += int(bad)
            if len(rows) < _PAGE:
                break
            after = rows[-1][0]
        (stored,) = tc.pg.execute(
            "SELECT count(*) FROM recall_docs WHERE tenant = %s", (tc.tenant,)
        ).fetchone()
    return ["recall_fts"] if wrong or int(stored) != expected else []
