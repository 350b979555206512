"""Recall's frequent words, their postings kept in BM25's order (SQLite), so that a query
with a word most memories share costs what it returns rather than what it matches.

FTS5 ranks by scoring every match: a query for a word in 40% of 10^5 memories scores 40,000
rows (about 80 ms) to return ten. For a single word, BM25 depends on a memory only through
the word's count in it (``tf``) and the memory's length in tokens (``dl``): within one count,
the shorter memory scores higher. So for every word in at least :data:`THRESHOLD` memories
this module keeps the word's postings ordered by ``(tf, dl, rowid)`` (``recall_impact``),
and :func:`top` reads the best of them from the front, one run per count, the way the
threshold algorithms of top-k retrieval do: the memories of the query's rarer words (few, by
definition) and the front of each frequent word's runs are scored exactly, and reading stops
once no memory left unread can beat the ``limit``-th kept one, ties included (FTS5 puts the
lower rowid first).

The scores are FTS5's own: its ``bm25()`` (``fts5_aux.c``: k1 = 1.2, b = 0.75, an idf at or
below 0 counted as 1e-6, the terms summed in the query's order) redone here operation by
operation, in the same double precision, from FTS5's own row count and token total (the
index's averages record) and each word's document count (``recall_df``, kept as FTS5 counts
it). The answer is therefore :func:`~stategraph.text.fulltext.search_exhaustive`'s, score
for score, and the tests compare the two.

A store whose full-text index was created by a stategraph without this module has no lists:
:func:`build` makes them, once, from the index (the first recall does:
:func:`~stategraph.text.fulltext.backfill`); until then queries rank the FTS5 way. From then
on every write adds its memories' postings (:func:`add`), in the writer's transaction. The
threshold a store's lists were built with is recorded in it, so a later change of
:data:`THRESHOLD` does not make them disagree.

PostgreSQL ranks with ``ts_rank_cd`` under its GIN index, and does not use this module.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "FIRST_BATCH",
    "SCHEMA",
    "THRESHOLD",
    "THRESHOLD_KEY",
    "add",
    "averages",
    "build",
    "start",
    "threshold",
    "top",
    "varints",
]

THRESHOLD = 512
"""A word in at least this many memories has its postings kept in order. A query's rarer
words are scored over all their matches, so a query costs at most about this many memories
per rare word."""

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS recall_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) "
    "WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS recall_impact (term TEXT NOT NULL, tf INTEGER NOT NULL, "
    "dl INTEGER NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (term, tf, dl, doc)) WITHOUT ROWID",
)
"""``recall_df``: each indexed word and how many memories have it (FTS5's count).
``recall_impact``: the postings of the words in at least the store's threshold of memories:
a memory (``doc``, its rowid in ``recall_fts``) with the word ``tf`` times among ``dl``
tokens."""

THRESHOLD_KEY = "recall:impact_threshold"
"""The ``meta`` row that says the lists exist and are kept, with the threshold they use."""

_T = TypeVar("_T")
_FTS = "recall_fts"
_K1, _B = 1.2, 0.75
_CHUNK = 900  # bound parameters per statement, well under any SQLite build's limit
FIRST_BATCH = 32
"""Rows of each run read first; each further read of a run asks for four times as many."""


def threshold(conn: sqlite3.Connection) -> int | None:
    """The threshold the store's lists were built with, or None: it has none (yet)."""
    row = conn.execute("SELECT value FROM meta WHERE key=?", (THRESHOLD_KEY,)).fetchone()
    return None if row is None else int(row[0])


def _chunks(items: Sequence[_T]) -> Iterator[Sequence[_T]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


def _marks(n: int) -> str:
    return ",".join("?" * n)


def start(conn: sqlite3.Connection) -> None:
    """Keep lists from now on (empty ones: for an index created just now, nothing to build)."""
    for statement in SCHEMA:
        conn.execute(statement)
    conn.execute("DELETE FROM recall_df")
    conn.execute("DELETE FROM recall_impact")
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (THRESHOLD_KEY, str(THRESHOLD)))


def build(conn: sqlite3.Connection) -> None:
    """Make the lists of an existing index (inside the writer's transaction): every word's
    count from FTS5's vocabulary, then one pass over the memories for the frequent words."""
    start(conn)
    conn.execute(f"CREATE VIRTUAL TABLE temp.recall_vocab USING fts5vocab(main, {_FTS}, row)")
    try:
        conn.execute("INSERT INTO recall_df SELECT term, doc FROM temp.recall_vocab")
    finally:
        conn.execute("DROP TABLE temp.recall_vocab")
    frequent = {
        str(t) for (t,) in conn.execute("SELECT term FROM recall_df WHERE df >= ?", (THRESHOLD,))
    }
    rows: list[tuple[str, int, int, int]] = []
    for rowid, body in conn.execute(f"SELECT rowid, body FROM {_FTS}"):
        rows.extend(_postings(int(rowid), str(body).split(), frequent))
        if len(rows) >= 100_000:  # a million memories' postings do not sit in memory at once
            conn.executemany("INSERT INTO recall_impact VALUES (?, ?, ?, ?)", rows)
            rows.clear()
    conn.executemany("INSERT INTO recall_impact VALUES (?, ?, ?, ?)", rows)


def _postings(
    rowid: int, toks: Sequence[str], words: set[str]
) -> Iterator[tuple[str, int, int, int]]:
    for word, tf in Counter(toks).items():
        if word in words:
            yield word, tf, len(toks), rowid


def add(conn: sqlite3.Connection, docs: Sequence[tuple[int, Sequence[str]]], limit: int) -> None:
    """Count and list memories just added to the index, as (rowid, tokens) (inside the
    writer's transaction, after the rows went into ``recall_fts``), in a store whose lists
    use ``limit`` (:func:`threshold`). A word that reaches it now has its whole list made
    from the index, once."""
    new: Counter[str] = Counter()
    for _, toks in docs:
        new.update(set(toks))
    words = sorted(new)
    before: dict[str, int] = {}
    for part in _chunks(words):
        sql = f"SELECT term, df FROM recall_df WHERE term IN ({_marks(len(part))})"
        before.update((str(t), int(d)) for t, d in conn.execute(sql, list(part)))
    conn.executemany(
        "INSERT INTO recall_df VALUES (?, ?) "
        "ON CONFLICT (term) DO UPDATE SET df = df + excluded.df",
        [(w, new[w]) for w in words],
    )
    listed = {w for w in words if before.get(w, 0) >= limit}
    crossing = [w for w in words if before.get(w, 0) < limit <= before.get(w, 0) + new[w]]
    rows = [p for rowid, toks in docs for p in _postings(rowid, toks, listed)]
    for word in crossing:  # the rows just added are in the index already
        sql = f"SELECT rowid, body FROM {_FTS} WHERE {_FTS} MATCH ?"
        for rowid, body in conn.execute(sql, (f'"{word}"',)).fetchall():
            rows.extend(_postings(int(rowid), str(body).split(), {word}))
    if rows:
        conn.executemany("INSERT INTO recall_impact VALUES (?, ?, ?, ?)", rows)


# ---- reading --------------------------------------------------------------------------------


def averages(conn: sqlite3.Connection) -> tuple[int, int]:
    """FTS5's row count and token total (its averages record: varints, the rows then each
    column's tokens), the figures its ``bm25()`` reads."""
    row = conn.execute(f"SELECT block FROM {_FTS}_data WHERE id = 1").fetchone()
    values = varints(bytes(row[0]) if row is not None and row[0] is not None else b"")
    return (values[0], sum(values[1:])) if values else (0, 0)


def varints(data: bytes) -> list[int]:
    """SQLite's varints in ``data`` (7 bits a byte, the ninth byte whole); a varint cut off
    at the end is read as far as it goes."""
    values: list[int] = []
    i = 0
    while i < len(data):
        value = 0
        for j in range(9):
            byte = data[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80 or i == len(data):
                break
        values.append(value)
    return values


def _possible(rows: int, tokens: int, dfs: Iterable[int]) -> bool:
    """Whether the index's counts are ones an index can have: at least a row and a token, and
    no word in more memories than there are (``recall_df`` edited past that made every
    recall with the word fail: BM25's idf took the logarithm of a negative number). A
    deep check (:mod:`stategraph.text.index_check`) names such an edit."""
    return rows > 0 and tokens > 0 and all(0 <= df <= rows for df in dfs)


def _idf(rows: int, df: int) -> float:
    idf = math.log(((rows - df) + 0.5) / (df + 0.5))
    return idf if idf > 0.0 else 1e-6


def _part(idf: float, tf: float, dl: int, avgdl: float) -> float:
    """One word's share of a memory's score, as ``fts5_aux.c`` computes it."""
    return idf * ((tf * (_K1 + 1.0)) / (tf + _K1 * (1 - _B + _B * dl / avgdl)))


@dataclass
class _Run:
    """One frequent word's postings with one count, read in ``(dl, doc)`` order."""

    word: str
    tf: int
    idf: float
    dl: int = 0  # the last row read (the first row's, before any)
    doc: int = 0
    batch: int = 0  # rows the next read asks for
    done: bool = False

    def bound(self, avgdl: float) -> float:
        """The most an unread row can score for this word: the rows left are as long or
        longer."""
        return 0.0 if self.done else _part(self.idf, float(self.tf), self.dl, avgdl)

    def read(self, conn: sqlite3.Connection) -> list[int]:
        """The next batch of rowids (four times as many next time)."""
        found = conn.execute(
            "SELECT dl, doc FROM recall_impact WHERE term = ? AND tf = ? AND (dl, doc) > (?, ?) "
            "ORDER BY dl, doc LIMIT ?",
            (self.word, self.tf, self.dl, self.doc, self.batch),
        ).fetchall()
        if len(found) < self.batch:
            self.done = True
        if found:
            self.dl, self.doc = int(found[-1][0]), int(found[-1][1])
        self.batch *= 4
        return [int(d) for _, d in found]


def _runs(conn: sqlite3.Connection, word: str, idf: float) -> list[_Run]:
    """A run per count the word has, each starting before its first row (a skip scan)."""
    out: list[_Run] = []
    tf = 0
    while True:
        row = conn.execute(
            "SELECT tf, dl FROM recall_impact WHERE term = ? AND tf > ? ORDER BY tf, dl, doc "
            "LIMIT 1",
            (word, tf),
        ).fetchone()
        if row is None:
            return out
        tf = int(row[0])
        out.append(_Run(word, tf, idf, dl=int(row[1]), doc=-1, batch=FIRST_BATCH))


Keep = Callable[[list[str]], set[str]]
"""Of memory ids, those a search keeps (their statuses and kinds were asked for)."""

_MAX_FREQUENT = 8
"""Queries with more frequent words than this rank the FTS5 way (the bound looks at every set
of them that can meet in one memory)."""


def top(
    conn: sqlite3.Connection, words: Sequence[str], limit: int, keep: Keep
) -> list[tuple[str, float]] | None:
    """The best ``limit`` kept memories for the query's distinct ``words`` (in the query's
    order), best first, as (id, score): what ranking every match with FTS5's ``bm25()`` and
    keeping the first ``limit`` kept ones gives. None when the lists cannot help (the store
    has none, no word of the query is frequent, or too many are): rank the FTS5 way."""
    cut = threshold(conn)
    if cut is None:
        return None
    dfs: dict[str, int] = {}
    for part in _chunks(list(words)):
        sql = f"SELECT term, df FROM recall_df WHERE term IN ({_marks(len(part))})"
        dfs.update((str(t), int(d)) for t, d in conn.execute(sql, list(part)))
    frequent = [w for w in words if dfs.get(w, 0) >= cut]
    rare = [w for w in words if 0 < dfs.get(w, 0) < cut]
    if not frequent or len(frequent) > _MAX_FREQUENT:
        return None
    rows, tokens = averages(conn)
    if not _possible(rows, tokens, dfs.values()):
        return None  # statistics no index can have (edited): rank the FTS5 way
    avgdl = tokens / rows
    idf = {w: _idf(rows, dfs.get(w, 0)) for w in words}
    runs = {w: _runs(conn, w, idf[w]) for w in frequent}
    groups = _groups(conn, frequent)
    fresh: list[int] = []
    if rare:
        match = " OR ".join(f'"{w}"' for w in rare)
        sql = f"SELECT rowid FROM {_FTS} WHERE {_FTS} MATCH ?"
        fresh = [int(r) for (r,) in conn.execute(sql, (match,))]
    seen: set[int] = set()
    kept: list[tuple[float, int, str]] = []  # (-score, rowid, id), best first
    left = {w: dfs[w] for w in frequent}  # postings of each word not read yet
    reading = [run for w in frequent for run in runs[w]]
    while True:
        for run in reading:
            if not run.done:
                found = run.read(conn)
                left[run.word] -= len(found)
                fresh.extend(found)
        todo = sorted({r for r in fresh if r not in seen})
        seen.update(todo)
        fresh = []
        floor = -kept[limit - 1][0] if len(kept) >= limit else None
        kept.extend(_scored(conn, todo, words, idf, avgdl, keep, floor))
        kept.sort()
        bounds = [(_bound(group, runs, avgdl), group) for group in groups]
        bounds = [(b, g) for b, g in bounds if b > 0.0]
        if not bounds or _settled(kept, limit, bounds, runs, avgdl):
            return [(i, -s) for s, _, i in kept[:limit]]
        # what keeps reading going is the highest bound: lower it where that costs least,
        # by reading on in the word of its set with the fewest postings left
        _, binding = max(bounds)
        word = min(binding, key=lambda w: (left[w], w))
        reading = [max(runs[word], key=lambda r: (r.bound(avgdl), -r.tf))]


def _groups(conn: sqlite3.Connection, frequent: list[str]) -> list[tuple[str, ...]]:
    """The sets of frequent words that may meet in one memory (every two of them do in some
    memory), each in the query's order: a memory the lists have not reached has one of these
    sets of the query's words, and none of its rare ones."""
    apart: set[tuple[str, str]] = set()
    for i, a in enumerate(frequent):
        for b in frequent[i + 1 :]:
            sql = f"SELECT 1 FROM {_FTS} WHERE {_FTS} MATCH ? LIMIT 1"
            if conn.execute(sql, (f'"{a}" AND "{b}"',)).fetchone() is None:
                apart.add((a, b))
    out: list[tuple[str, ...]] = []
    for mask in range(1, 1 << len(frequent)):
        group = tuple(w for i, w in enumerate(frequent) if mask >> i & 1)
        if not any((a, b) in apart for i, a in enumerate(group) for b in group[i + 1 :]):
            out.append(group)
    return out


def _bound(group: tuple[str, ...], runs: dict[str, list[_Run]], avgdl: float) -> float:
    """The most an unread memory with exactly the words of ``group`` can score: in each word's
    runs it lies past the last row read, so its length is at least the shortest of those
    rows' in every word's runs, and its share of each word at most the best run's at that
    length. Summed in the query's order, as a score is (rounding is monotone, so a sum of
    bounds bounds the sum). 0 if a word's runs are all read."""
    live = [[r for r in runs[w] if not r.done] for w in group]
    if not all(live):
        return 0.0
    length = max(min(r.dl for r in rs) for rs in live)
    total = 0.0
    for rs in live:
        total += max(_part(r.idf, float(r.tf), max(r.dl, length), avgdl) for r in rs)
    return total


def _scored(
    conn: sqlite3.Connection,
    rowids: list[int],
    words: Sequence[str],
    idf: dict[str, float],
    avgdl: float,
    keep: Keep,
    floor: float | None,
) -> Iterable[tuple[float, int, str]]:
    """The kept ones of ``rowids`` that score at least ``floor`` (the ``limit``-th kept score so
    far, which only rises: a memory below it can never be among the best), scored:
    (-score, rowid, id). Only those are looked up to see if they are kept."""
    scored: list[tuple[float, int, str]] = []
    weights = [(w, idf[w]) for w in words]
    k1p = _K1 + 1.0
    for part in _chunks(rowids):
        sql = f"SELECT rowid, id, body FROM {_FTS} WHERE rowid IN ({_marks(len(part))})"
        for rowid, sid, body in conn.execute(sql, list(part)).fetchall():
            toks = body.split()
            norm = _K1 * (1 - _B + _B * len(toks) / avgdl)
            score = 0.0
            for w, weight in weights:  # _part's operations in its order; a word absent adds 0.0
                tf = toks.count(w)
                if tf:
                    score += weight * ((tf * k1p) / (tf + norm))
            if floor is None or score >= floor:
                scored.append((-score, rowid, str(sid)))
    out: list[tuple[float, int, str]] = []
    for batch in _chunks(scored):
        wanted = keep([sid for _, _, sid in batch])
        out.extend(row for row in batch if row[2] in wanted)
    return out


def _settled(
    kept: list[tuple[float, int, str]],
    limit: int,
    bounds: list[tuple[float, tuple[str, ...]]],
    runs: dict[str, list[_Run]],
    avgdl: float,
) -> bool:
    """Whether no unread memory can come before the ``limit``-th kept one.

    It cannot if it scores less. Scoring the same, it comes after if its rowid is larger:
    for a memory with one frequent word, whose score is that word's share alone, a tie
    means it has the length of the last row read of a run that reaches the score, and lies
    past that row. Ties of two or more words' shares are left to further reading.
    """
    if len(kept) < limit:
        return False
    worst, rowid, _ = kept[limit - 1]
    score = -worst
    top_bound = max(b for b, _ in bounds)
    if score > top_bound:
        return True
    if score < top_bound or any(len(g) > 1 and b >= score for b, g in bounds):
        return False
    return all(
        rowid <= run.doc
        for rs in runs.values()
        for run in rs
        if not run.done and run.bound(avgdl) >= score
    )
