"""Recall's frequent words' lists (:mod:`stategraph.text.impacts`) give what FTS5 gives when it
ranks every match: the same ids in the same order with the same scores, bit for bit, ties
included; lists kept write by write equal lists made at once; a store written before them
has them made by its first recall.

The threshold is lowered so that small stores have frequent words (the lists record the
threshold they were made with, so it is patched before the store is created).
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.text import fulltext, impacts

WORDS = ["tea", "green", "user", "move", "broadband", "宽带", "搬家", "用户", "深圳", "bike"]
RARE = ["router", "shanghai", "ticket", "garden"]


@pytest.fixture(autouse=True)
def low_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(impacts, "THRESHOLD", 12)


@pytest.fixture(params=[1, 3, 64])
def batch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Runs read a row at a time, a few, or (at this size) whole: reading must stop where
    nothing unread can come first, and not before."""
    monkeypatch.setattr(impacts, "FIRST_BATCH", request.param)
    return int(request.param)


def random_store(mem: Memory, rng: random.Random, n: int) -> None:
    """``n`` memories, most words frequent, a few rare; texts repeat whole (ties of equal
    scores) and words repeat within one (counts above one); a third of the facts retracted."""
    facts: list[str] = []
    texts: list[str] = []
    for i in range(n):
        if texts and rng.random() < 0.15:
            text = rng.choice(texts)
        else:
            words = [rng.choice(WORDS) for _ in range(rng.randint(1, 7))]
            if rng.random() < 0.1:
                words.append(rng.choice(RARE))
            text = " ".join(words)
        texts.append(text)
        if i % 3 == 0 or not facts:
            mem.fact(f"f{i:03d}", text)
            facts.append(f"f{i:03d}")
        else:
            mem.belief(f"b{i:03d}", text, because=[rng.choice(facts)])
    mem.retract(*rng.sample(facts, len(facts) // 3))


def _lists(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        df = conn.execute("SELECT * FROM recall_df ORDER BY term").fetchall()
        rows = conn.execute("SELECT * FROM recall_impact ORDER BY term, tf, dl, doc").fetchall()
        return df, rows
    finally:
        conn.close()


def _rebuilt(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The store's lists made again, at once, from its index."""
    with Memory(path) as mem:
        conn = mem.store.conn
        assert isinstance(conn, sqlite3.Connection)
        with mem.store.transaction():
            impacts.build(conn)
    return _lists(path)


@pytest.mark.parametrize("seed", range(5))
def test_the_lists_rank_as_fts5_ranks_every_match(tmp_path: Path, seed: int, batch: int) -> None:
    rng = random.Random(seed)
    mem = Memory(tmp_path / "m.db")
    random_store(mem, rng, 150)
    conn = mem.store.conn
    assert isinstance(conn, sqlite3.Connection)
    used = 0
    for _ in range(60):
        query = rng.sample(WORDS, rng.randint(1, 3)) + rng.sample(RARE, rng.randint(0, 1))
        k = rng.choice([1, 2, 5, 10, 40, 200])
        options = {
            "kinds": rng.choice([None, ["fact"], ["belief", "fact"]]),
            "doubtful": rng.random() < 0.5,
            "invalidated": rng.random() < 0.3,
        }
        toks = fulltext.tokens(" ".join(query))
        unique = list(dict.fromkeys(toks))
        if impacts.top(conn, unique, k, lambda ids: set(ids)) is not None:
            used += 1
        bounded = fulltext.search(mem.store, toks, k, **options)  # type: ignore[arg-type]
        exhaustive = fulltext.search_exhaustive(mem.store, toks, k, **options)  # type: ignore[arg-type]
        assert bounded == exhaustive, (query, k, options)  # scores too, exactly
    assert used >= 50  # the lists were what ranked, not the FTS5 path
    mem.close()


def test_ties_come_in_rowid_order_as_fts5_puts_them(tmp_path: Path, batch: int) -> None:
    mem = Memory(tmp_path / "m.db")
    mem.fact("longer", "green tea with a slice of lemon")
    for i in range(40):  # equal texts, equal scores: FTS5 puts the lower rowid first
        mem.fact(f"same{i:02d}", "green tea")
    mem.retract("same00", "same02")
    args = {"kinds": None, "doubtful": True, "invalidated": False}
    hits = fulltext.search(mem.store, ["tea"], 3, **args)  # type: ignore[arg-type]
    assert hits == fulltext.search_exhaustive(mem.store, ["tea"], 3, **args)  # type: ignore[arg-type]
    assert [i for i, _ in hits] == ["same01", "same03", "same04"]
    assert hits[0][1] == hits[2][1]
    mem.close()


def test_the_best_matches_not_holding_are_read_past(tmp_path: Path, batch: int) -> None:
    mem = Memory(tmp_path / "m.db")
    mem.fact("base", "user lives here")
    for i in range(40):  # the shortest memories with the word no longer hold
        mem.belief(f"gone{i:02d}", "user tea", because=["base"])
    mem.retract("base")
    mem.fact("later", "user tea and a long walk by the river")
    args = {"kinds": None, "doubtful": True, "invalidated": False}
    hits = fulltext.search(mem.store, ["user"], 3, **args)  # type: ignore[arg-type]
    assert hits == fulltext.search_exhaustive(mem.store, ["user"], 3, **args)  # type: ignore[arg-type]
    assert hits[0][0] == "later"
    mem.close()


def test_lists_kept_write_by_write_equal_lists_made_at_once(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = tmp_path / "m.db"
    with Memory(path) as mem:
        random_store(mem, rng, 120)  # words cross the threshold one write at a time
    kept = _lists(path)
    assert _rebuilt(path) == kept
    assert len(kept[1]) > 300


def test_a_bulk_load_onto_a_store_lists_each_memory_under_its_own_rowid(tmp_path: Path) -> None:
    """Many memories indexed in one statement after others: FTS5 numbers them on from the
    largest rowid, and the lists must name the rows it gave."""
    rng = random.Random(11)
    path = tmp_path / "m.db"
    with Memory(path) as mem:
        random_store(mem, rng, 40)
        texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) for _ in range(60)]
        mem.bulk_load(
            {"id": f"bulk{i:02d}", "kind": "fact", "text": t} for i, t in enumerate(texts)
        )
    kept = _lists(path)
    assert _rebuilt(path) == kept
    conn = sqlite3.connect(path)
    try:
        bodies = dict(conn.execute("SELECT rowid, body FROM recall_fts"))
        assert all(term in bodies[doc].split() for term, _, _, doc in kept[1])
    finally:
        conn.close()


def _automerge(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(
            conn.execute("SELECT v FROM recall_fts_config WHERE k = 'automerge'").fetchone()[0]
        )
    finally:
        conn.close()


def test_a_new_index_merges_its_segments_at_the_setting_chosen(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as mem:
        mem.fact("f", "user tea")
    assert _automerge(tmp_path / "m.db") == fulltext.AUTOMERGE != 4  # FTS5's own default


def test_a_store_without_lists_ranks_the_fts5_way_then_gets_them_at_its_first_recall(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    with Memory(path) as mem:
        random_store(mem, random.Random(3), 90)
    conn = sqlite3.connect(path)  # as a stategraph before the lists left it
    conn.execute("DROP TABLE recall_df")
    conn.execute("DROP TABLE recall_impact")
    conn.execute("DELETE FROM meta WHERE key LIKE 'recall:%'")
    conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema'")
    conn.execute("INSERT INTO recall_fts (recall_fts, rank) VALUES ('automerge', 4)")
    conn.commit()
    conn.close()
    with Memory(path) as mem:
        store_conn = mem.store.conn
        assert isinstance(store_conn, sqlite3.Connection)
        assert impacts.threshold(store_conn) is None
        mem.fact("new", "user tea tea")  # written while there are no lists: none are kept
        assert impacts.top(store_conn, ["user"], 5, lambda ids: set(ids)) is None
        mem.recall("user tea")  # the first recall makes them, from the index
        assert impacts.threshold(store_conn) == 12
        assert _automerge(path) == fulltext.AUTOMERGE  # and the index the merge setting
        again = fulltext.search(
            mem.store, ["user", "tea"], 10, kinds=None, doubtful=True, invalidated=False
        )
        assert again == fulltext.search_exhaustive(
            mem.store, ["user", "tea"], 10, kinds=None, doubtful=True, invalidated=False
        )
        assert "new" in [i for i, _ in again]
    made = _lists(path)
    assert _rebuilt(path) == made
