"""The full-text index that :meth:`Memory.recall <stategraph.memory.Memory.recall>` ranks by.

One tokenisation, done here in Python, for both backends, so that SQLite and PostgreSQL rank
the same words:

- text is NFKC-normalised and lowercased; each run of Han characters is segmented by jieba
  (its search mode, which also yields the shorter words inside a long one, so ``宽带`` meets
  ``退宽带``); every other run of letters and digits is one word;
- the arguments of the memory's grounded atoms are added as words too (``shenzhen``,
  ``shanghai``): grounding names a place, a person or a date with one constant in either
  language, so a query for "Shenzhen" meets ``用户计划 2026-12 从上海搬到深圳``.

Every token is a run of letters and digits, so the stored text is the tokens joined by spaces
and a query is the tokens, each quoted, joined by ``OR``: nothing a user types is ever read as
FTS syntax.

SQLite keeps them in an FTS5 table (``recall_fts``, the ``ascii`` tokenizer, which splits on
the spaces only: every token is kept whole) ranked by BM25; PostgreSQL in ``recall_docs``, a
``tsvector`` built from the same tokens (cast, so no text search configuration re-parses them)
under a GIN index, ranked by ``ts_rank_cd``. Every write path (a revision's commit, a bulk
load, an import, and the schema migrations that index older stores) adds its new memories here
through :meth:`SQLiteStore.index_terms <stategraph.store.SQLiteStore.index_terms>`: the cost is
the new memories' tokens, never the store's size. A memory's text and atoms never change once
written (a change supersedes it), so the index is only ever appended to; whether a memory holds
is read from the store when ranking.

The term index (:mod:`stategraph.grounding.terms`) stays what candidate proposal uses: it looks for
memories that share a place or a gram with a new one, whatever their words. This index is for
ranking memories against a question.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from stategraph.grounding import segment
from stategraph.grounding.terms import argument_terms
from stategraph.grounding.warm import words_warm
from stategraph.model import State
from stategraph.nodes import ATOM_KIND
from stategraph.text import impacts

__all__ = [
    "AUTOMERGE",
    "FILLED",
    "FIRST_DEPTH",
    "MAX_TOKENS",
    "MAX_TOKEN_BYTES",
    "MAX_TOKEN_CHARS",
    "QUERY_GRAM",
    "QUERY_HAN",
    "SQLITE_SCHEMA",
    "TABLE",
    "backfill",
    "han_words",
    "index",
    "matched",
    "name_tokens",
    "query_words",
    "rebuild",
    "search",
    "search_exhaustive",
    "tokens",
    "tsvector",
]

TABLE = "recall_fts"
"""The SQLite table (PostgreSQL: ``recall_docs``)."""

SQLITE_SCHEMA = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(id UNINDEXED, body, tokenize='ascii')"
)

AUTOMERGE = 8
"""FTS5's ``automerge`` for the index (its own default is 4): how many segments of one level it
lets gather before merging them. Each add commits a segment of its own, and merging them is
most of what indexing costs a write in a large store; at 8 each posting is rewritten about
two thirds as often. At 10^6 memories it took a third off indexing's share of a commit, and
the queries of ``bench perf --recall`` cost the same. Below FTS5's ``crisismerge`` (16), so the
merges stay incremental."""

_STATE = (
    "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = ?), "
    "(SELECT value FROM meta WHERE key = ?)"
)
"""Whether the index exists, and the threshold of its frequent words' lists (NULL: none)."""

FILLED = "recall_index"
"""Setting that says every memory of the store is in the index (written once, by
:func:`backfill`, for stores written before the index existed)."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_MAX_POSITION = 16383  # PostgreSQL's largest tsvector position


def han_words(run: str) -> list[str]:
    """jieba's words of a run of Han characters (the run whole if it has none); from a
    running warm grounder (:mod:`stategraph.grounding.warm`) until this process has loaded
    jieba's dictionary itself, which spares a command doing so (about a second)."""
    if not segment.loaded():
        got = words_warm(run)
        if got is not None:
            return got
    return segment.search_words(run)


MAX_TOKEN_CHARS = 200
"""Tokens longer than this are left out of the index and of queries alike: no word is that long,
and PostgreSQL refuses a lexeme over 2,046 bytes (200 characters of at most 4 bytes fit)."""


def _words(text: str, segment: bool = True) -> list[str]:
    return [w for w in _split(text, segment) if len(w) <= MAX_TOKEN_CHARS]


def _split(
    text: str, segment: bool = True, han: Callable[[str], list[str]] | None = None
) -> list[str]:
    """The words of a text; each run of Han characters as ``han`` gives it (default: jieba's
    words when ``segment``, else the run whole)."""
    if _HAN.search(text) is None:  # most texts: every word is whole
        return _WORD.findall(text)
    if han is None:
        han = han_words if segment else _whole
    out: list[str] = []
    for word in _WORD.findall(text):
        pos = 0
        for m in _HAN.finditer(word):
            if m.start() > pos:
                out.append(word[pos : m.start()])
            out.extend(han(m.group()))
            pos = m.end()
        if pos < len(word):
            out.append(word[pos:])
    return out


def _whole(run: str) -> list[str]:
    return [run]


def _parts(run: str) -> list[str]:
    """Every part of a run up to :data:`QUERY_GRAM` characters long, and the run itself."""
    grams = (run[i : i + n] for n in range(1, QUERY_GRAM + 1) for i in range(len(run) - n + 1))
    return list(dict.fromkeys([*grams, run]))


MAX_TOKENS = _MAX_POSITION
"""The most tokens of one memory that are indexed (the first ones; its length in BM25 counts
these): PostgreSQL's largest position, past which every word had the same one."""

MAX_TOKEN_BYTES = 1 << 19
"""The most bytes (UTF-8) of one memory's tokens that are indexed, repeats included (the first
ones, as for :data:`MAX_TOKENS`). With :data:`MAX_TOKENS` it keeps a memory's ``tsvector`` under
PostgreSQL's 1 MiB (its words' bytes, plus four for each word's first position and two for each
further one): a memory of 110,000 distinct words, under the 1 MiB text cap, was refused there
(``string is too long for tsvector``, an HTTP 500) and stored on SQLite. Both backends index
the same tokens."""


def tokens(text: str, atoms: Iterable[str] = ()) -> list[str]:
    """The tokens of a text and its grounded atoms, in order (a word may repeat: term
    frequency counts in BM25). Each is a non-empty run of letters and digits, at most
    :data:`MAX_TOKEN_CHARS` long; at most :data:`MAX_TOKENS` of them and
    :data:`MAX_TOKEN_BYTES` in all, the first ones (the text's, then the atoms')."""
    text = unicodedata.normalize("NFKC", text).lower()
    out = _words(text)
    for term in sorted(argument_terms(atoms)):
        out.extend(_words(unicodedata.normalize("NFKC", term[2:]).lower()))
    return _bounded(out)


def _bounded(toks: list[str]) -> list[str]:
    if len(toks) <= MAX_TOKENS and sum(map(len, toks)) * 4 <= MAX_TOKEN_BYTES:
        return toks  # the common case, without encoding: 4 bytes a character at most
    size = 0
    for n, tok in enumerate(toks[:MAX_TOKENS]):
        size += len(tok.encode("utf-8", "surrogatepass"))
        if size > MAX_TOKEN_BYTES:
            return toks[:n]
    return toks[:MAX_TOKENS]


QUERY_GRAM = 4
"""The longest part of a run of Han characters a query looks for (:func:`query_words`)."""

QUERY_HAN = 256
"""A query with more Han characters than this is segmented by jieba, as memories are: its
parts would be many, and loading the dictionary costs little beside such a search."""


def query_words(text: str) -> list[str]:
    """The tokens of a query: as :func:`tokens` makes them of a text, but each run of Han
    characters gives every part of it up to :data:`QUERY_GRAM` characters long, and itself,
    rather than jieba's words. Every word of up to four characters jieba makes of a run in
    search mode is one of them, and a longer word is indexed with its two- and
    three-character words too (search mode makes those), so the memories jieba's words met
    are met; a part that is no word of any memory matches nothing. No dictionary is loaded
    (about a second of a command's start-up). Parts that are words of other memories but not
    of this query's segmentation weigh in a little: on 937 four-character parts of the
    shipped Chinese cases' memories, the memory came first 784 times against 799 with
    jieba's words, and among the first five 928 times against 927."""
    text = unicodedata.normalize("NFKC", text).lower()
    if sum(len(r) for r in _HAN.findall(text)) > QUERY_HAN:
        return tokens(text)
    return [w for w in _split(text, han=_parts) if len(w) <= MAX_TOKEN_CHARS]


def name_tokens(names: Iterable[str]) -> list[str]:
    """The tokens of names that are each one word (a lexicon's forms: 狗狗, 深圳市, "home
    internet"): as :func:`tokens` makes them, but a run of Han characters is kept whole, not
    segmented, so that an English query widened by Chinese names needs no jieba."""
    return [w for name in names for w in _words(unicodedata.normalize("NFKC", name).lower(), False)]


def matched(query: Iterable[str], text: str, atoms: Iterable[str] = ()) -> list[str]:
    """The query's tokens that a memory has, in the order they come in it (its text's words,
    then its atoms' arguments), found without segmenting its text, so that saying why a
    Chinese memory was recalled loads no jieba: a token is one of its words, or a part of one
    of its runs of Han characters (the words jieba makes of a run are parts of it)."""
    own = _words(unicodedata.normalize("NFKC", text).lower(), False)
    own += tokens("", atoms)
    found: dict[str, int] = {}
    for at, word in enumerate(own):
        for w in dict.fromkeys(query):
            if w not in found and (w == word or (w in word and _HAN.fullmatch(w) is not None)):
                found[w] = at
    return sorted(found, key=found.__getitem__)


def _sqlite(store: Any) -> sqlite3.Connection | None:
    conn = store.conn
    return conn if isinstance(conn, sqlite3.Connection) else None


def index(store: Any, states: Iterable[State]) -> None:
    """Add memories to the index (inside the writer's transaction); atom nodes
    (:mod:`stategraph.nodes`) are no memories and are left out."""
    rows = [(st.id, st.kind, tokens(st.text, tuple(st.atoms))) for st in states]
    rows = [r for r in rows if r[1] != ATOM_KIND]
    rows = [r for r in rows if r[2]]
    if not rows:
        return
    conn = _sqlite(store)
    if conn is not None:
        present, limit = conn.execute(_STATE, (TABLE, impacts.THRESHOLD_KEY)).fetchone()
        if not present:  # a new index: its frequent words' lists start with it
            _create(conn)
            impacts.start(conn)
            limit = impacts.THRESHOLD
        conn.executemany(
            f"INSERT INTO {TABLE} (id, body) VALUES (?, ?)",
            [(i, " ".join(t)) for i, _, t in rows],
        )
        # FTS5 numbers new rows on from the largest rowid, and only this writer inserts
        (last,) = conn.execute("SELECT last_insert_rowid()").fetchone()
        first = int(last) - len(rows) + 1
        if limit is not None:
            impacts.add(conn, [(first + n, t) for n, (_, _, t) in enumerate(rows)], int(limit))
        return
    tc = store.conn
    with tc.errors(), tc.pg.cursor() as cur:
        cur.executemany(
            "INSERT INTO recall_docs (tenant, id, body) VALUES (%s, %s, %s::tsvector) "
            "ON CONFLICT (tenant, id) DO NOTHING",
            [(tc.tenant, i, tsvector(t)) for i, _, t in rows],
        )


def tsvector(toks: Sequence[str]) -> str:
    """The ``tsvector`` text of a memory's tokens (PostgreSQL casts it: no configuration
    re-parses them)."""
    return " ".join(f"'{t}':{min(i + 1, _MAX_POSITION)}" for i, t in enumerate(toks))


def backfill(store: Any) -> None:
    """Index every memory of a store written before the index existed (once: a setting
    records it; writes from then on index as they go), and on SQLite make the frequent words'
    lists of an index written before them (:func:`stategraph.text.impacts.build`, once)."""
    conn = _sqlite(store)
    unlisted = conn is not None and impacts.threshold(conn) is None
    if store.get_setting(FILLED) and not unlisted:
        return
    with store.transaction():
        if not store.get_setting(FILLED):
            if conn is not None:
                _create(conn)
                present = {r[0] for r in conn.execute(f"SELECT id FROM {TABLE}")}
            else:
                tc = store.conn
                with tc.errors():
                    cur = tc.pg.execute("SELECT id FROM recall_docs WHERE tenant=%s", (tc.tenant,))
                    present = {r[0] for r in cur.fetchall()}
            index(store, (st for st in store.states() if st.id not in present))
            store.set_setting(FILLED, True)
        if conn is not None and impacts.threshold(conn) is None:
            _list_words(conn)


def rebuild(store: Any) -> None:
    """Make the index again from the states (inside the writer's transaction): what an
    acknowledged tamper does when a deep check found the index edited
    (:mod:`stategraph.text.index_check`)."""
    conn = _sqlite(store)
    if conn is not None:
        for table in (TABLE, "recall_df", "recall_impact"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute("DELETE FROM meta WHERE key = ?", (impacts.THRESHOLD_KEY,))
    else:
        tc = store.conn
        with tc.errors():
            tc.pg.execute("DELETE FROM recall_docs WHERE tenant = %s", (tc.tenant,))
    store.set_setting(FILLED, False)
    backfill(store)


def _list_words(conn: sqlite3.Connection) -> None:
    _create(conn)  # an index written before the lists: it gets the merge setting too
    impacts.build(conn)


def _create(conn: sqlite3.Connection) -> None:
    """The index, if it is not there, with its merge setting (:data:`AUTOMERGE`)."""
    conn.execute(SQLITE_SCHEMA)
    conn.execute(f"INSERT INTO {TABLE} ({TABLE}, rank) VALUES ('automerge', ?)", (AUTOMERGE,))


FIRST_DEPTH = 32
"""How many of the engine's best matches a search asks for first (or ``2 * limit`` when more):
most are kept, and each deepening asks for four times as many."""


def search(
    store: Any,
    query: Sequence[str],
    limit: int,
    *,
    kinds: Sequence[str] | None,
    doubtful: bool,
    invalidated: bool,
    prefix: str | None = None,
) -> list[tuple[str, float]]:
    """The best ``limit`` memories for the query's tokens, best first, as (id, score): higher
    scores are better matches (BM25 negated, or ``ts_rank_cd``). Equal scores come in the
    order the memories were indexed on SQLite, in id order on PostgreSQL.
    ``doubtful``/``invalidated``: also memories that are undecided or waiting for review /
    that do not hold. ``prefix``: only memories whose id starts with it (the others are
    ranked too, and dropped with the statuses not asked for).

    The engine ranks its matches alone (no join), and only the best of them are looked up in
    the states to drop the statuses and kinds not asked for, :data:`FIRST_DEPTH` (or
    ``2 * limit``) first. SQLite reads them from one ranked cursor, four times as many each
    time that left too few; PostgreSQL takes its best ``FIRST_DEPTH`` with a ``LIMIT`` (a
    top-N sort), and when those leave too few, ranks the matches once more joined to their
    states (:func:`search_exhaustive`), rather than again and again with larger limits. The
    answer is the one :func:`search_exhaustive` gives, which filters every match first: both
    take the first ``limit`` kept memories in the same order.
    """
    if not query:
        return []
    unique = list(dict.fromkeys(query))
    conn = _sqlite(store)
    depth = max(FIRST_DEPTH, 2 * limit)
    hits: list[tuple[str, float]] = []
    if conn is not None:
        if not _has_index(conn):
            return []
        found = impacts.top(
            conn,
            unique,
            limit,
            lambda ids: _keep(store, ids, kinds, doubtful, invalidated, prefix),
        )
        if found is not None:  # a frequent word: read from the front of its lists
            return found
        cur = conn.execute(
            f"SELECT rowid, bm25({TABLE}) AS rank FROM {TABLE} WHERE {TABLE} MATCH ? "
            "ORDER BY rank, rowid",
            (_match(unique),),
        )
        while len(hits) < limit:
            rows = cur.fetchmany(depth)
            ranked = _ids(conn, rows)
            kept = _keep(store, [i for i, _ in ranked], kinds, doubtful, invalidated, prefix)
            hits += [(i, s) for i, s in ranked if i in kept]
            if len(rows) < depth:
                break
            depth *= 4
        cur.close()
        return hits[:limit]
    ranked = _ranked_pg(store, unique, depth)
    kept = _keep(store, [i for i, _ in ranked], kinds, doubtful, invalidated, prefix)
    hits = [(i, s) for i, s in ranked if i in kept]
    if len(hits) >= limit or len(ranked) < depth:
        return hits[:limit]
    # too many of the best did not hold: asking again with a larger LIMIT would rank every
    # match again each time, so rank them once, joined to their states
    return search_exhaustive(
        store,
        query,
        limit,
        kinds=kinds,
        doubtful=doubtful,
        invalidated=invalidated,
        prefix=prefix,
    )


def _has_index(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name=?", (TABLE,)).fetchone() is not None


def _ids(conn: sqlite3.Connection, rows: list[tuple[int, float]]) -> list[tuple[str, float]]:
    """(rowid, bm25) rows, best first, as (memory id, score)."""
    if not rows:
        return []
    marks = ",".join("?" for _ in rows)
    names = dict(
        conn.execute(
            f"SELECT rowid, id FROM {TABLE} WHERE rowid IN ({marks})", [r for r, _ in rows]
        )
    )
    return [(str(names[r]), -float(s)) for r, s in rows]


def _ranked_pg(store: Any, unique: list[str], depth: int) -> list[tuple[str, float]]:
    """PostgreSQL's best ``depth`` matches, best first."""
    tc = store.conn
    sql = (
        "SELECT d.id, ts_rank_cd(d.body, q) AS score FROM recall_docs d, CAST(%s AS tsquery) q "
        "WHERE d.tenant = %s AND d.body @@ q ORDER BY score DESC, d.id LIMIT %s"
    )
    with tc.errors():
        cur = tc.pg.execute(sql, (_tsquery(unique), tc.tenant, depth))
        return [(str(i), float(s)) for i, s in cur.fetchall()]


def _keep(
    store: Any,
    ids: list[str],
    kinds: Sequence[str] | None,
    doubtful: bool,
    invalidated: bool,
    prefix: str | None,
) -> set[str]:
    """Those of ``ids`` whose status and kind were asked for (one read of their states)."""
    if not ids:
        return set()
    conn = _sqlite(store)
    if conn is not None:
        where, args = _filters(kinds, doubtful, invalidated, "?", prefix=prefix)
        marks = ",".join("?" for _ in ids)
        sql = f"SELECT s.id FROM states s WHERE s.id IN ({marks}) {where}"
        return {str(r[0]) for r in conn.execute(sql, (*ids, *args))}
    tc = store.conn
    where, args = _filters(kinds, doubtful, invalidated, "%s", tenant=tc.tenant, prefix=prefix)
    sql = f"SELECT s.id FROM states s WHERE s.tenant = %s AND s.id = ANY(%s) {where}"
    with tc.errors():
        return {str(r[0]) for r in tc.pg.execute(sql, (tc.tenant, ids, *args)).fetchall()}


def _match(unique: Sequence[str]) -> str:
    return " OR ".join(f'"{t}"' for t in unique)


def _tsquery(unique: Sequence[str]) -> str:
    return " | ".join(f"'{t}'" for t in unique)


def search_exhaustive(
    store: Any,
    query: Sequence[str],
    limit: int,
    *,
    kinds: Sequence[str] | None,
    doubtful: bool,
    invalidated: bool,
    prefix: str | None = None,
) -> list[tuple[str, float]]:
    """:func:`search` the slow way, kept as its reference: every match is joined to its state
    and filtered, then ranked. Its cost grows with the matches (a word in half the memories
    ranks half the store), which is why :func:`search` does not do this."""
    if not query:
        return []
    unique = list(dict.fromkeys(query))
    conn = _sqlite(store)
    where, args = _filters(kinds, doubtful, invalidated, "?", prefix=prefix)
    if conn is not None:
        if not _has_index(conn):
            return []
        sql = (
            f"SELECT f.id, bm25({TABLE}) AS rank FROM {TABLE} f JOIN states s ON s.id = f.id "
            f"WHERE {TABLE} MATCH ? {where} ORDER BY rank, f.rowid LIMIT ?"
        )
        return [(str(i), -float(s)) for i, s in conn.execute(sql, (_match(unique), *args, limit))]
    tc = store.conn
    where, args = _filters(kinds, doubtful, invalidated, "%s", tenant=tc.tenant, prefix=prefix)
    sql = (
        "SELECT d.id, ts_rank_cd(d.body, q) AS score FROM recall_docs d "
        "JOIN states s ON s.tenant = d.tenant AND s.id = d.id, CAST(%s AS tsquery) q "
        f"WHERE d.tenant = %s AND d.body @@ q {where} ORDER BY score DESC, d.id LIMIT %s"
    )
    with tc.errors():
        cur = tc.pg.execute(sql, (_tsquery(unique), tc.tenant, *args, limit))
        return [(str(i), float(s)) for i, s in cur.fetchall()]


def _filters(
    kinds: Sequence[str] | None,
    doubtful: bool,
    invalidated: bool,
    mark: str,
    tenant: str | None = None,
    prefix: str | None = None,
) -> tuple[str, list[Any]]:
    """The ``AND ...`` that keeps the statuses and kinds asked for (states ``s``, their ids
    starting with ``prefix`` if given), and its parameters in order."""
    # the queue is small: read once (IN), not once per matching memory (EXISTS)
    if tenant is None:
        queued, qargs = "s.id IN (SELECT id FROM review_queue)", []
    else:
        queued, qargs = f"s.id IN (SELECT id FROM review_queue WHERE tenant = {mark})", [tenant]
    parts: list[str] = []
    args: list[Any] = []
    if not invalidated:
        parts.append(f"((s.active = 1 AND s.truth <> 'false') OR {queued})")
        args.extend(qargs)
    if not doubtful:
        parts.append(f"s.truth <> 'undefined' AND NOT {queued}")
        args.extend(qargs)
    if kinds is not None:
        parts.append(f"s.kind IN ({','.join(mark for _ in kinds)})")
        args.extend(kinds)
    if prefix is not None:  # characters, not bytes, on both backends
        parts.append(f"substr(s.id, 1, {len(prefix)}) = {mark}")
        args.append(prefix)
    return "".join(f" AND {p}" for p in parts), args
