"""The store: atomic revisions, round trips, the hash-chained log (the tests that take
``place`` run on both backends, SQLite and PostgreSQL: ``tests/backends.py``)."""

from __future__ import annotations

import itertools
import re
import sqlite3
from pathlib import Path

import pytest
from backends import Place
from hypothesis import given
from hypothesis import strategies as hs

from stategraph import Memory
from stategraph.engine.graph import SupportGraph
from stategraph.errors import LogIntegrityError, StategraphError, StoreError
from stategraph.store.rowcodec import decode_ids
from stategraph.store.sqlite import SCHEMA_VERSION, SQLiteStore, canonical_json, ids_json

pytestmark = pytest.mark.citus  # the backend tests also run on Citus (tests/backends.py)


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def seed(path: Path | str) -> Memory:
    mem = Memory.open(path)
    mem.fact("m1", "moves to Shenzhen")
    mem.belief("m2", "commute in Shenzhen", because=["m1"])
    mem.action("m3", "cancel broadband", because=["m1"])
    mem.fact("m4", "likes Cantonese food")
    return mem


def test_round_trip_gives_the_same_revision(place: Place) -> None:
    path = place.url
    seed(path).close()
    with Memory.open(path) as reopened:
        assert reopened.holding() == {"m1", "m2", "m3", "m4"}
        on_disk = reopened.retract("m1")
    in_memory = Memory()
    for st in ("m1", "m4"):
        in_memory.fact(st, {"m1": "moves to Shenzhen", "m4": "likes Cantonese food"}[st])
    in_memory.belief("m2", "commute in Shenzhen", because=["m1"])
    in_memory.action("m3", "cancel broadband", because=["m1"])
    assert on_disk.to_json() == in_memory.retract("m1").to_json()
    with Memory.open(path) as again:
        assert again.holding() == {"m4"}
        assert not again.is_active("m1")
        assert again.verify_log() == 5


def test_a_retracted_state_has_no_successor_and_a_superseded_one_names_its_own(
    tmp_path: Path,
) -> None:
    """``superseded_by`` is NULL for a retraction (never an empty id) and the new id for a
    supersession; both flags and values are written by one revision."""
    path = tmp_path / "m.db"
    seed(path).close()
    with Memory.open(path) as mem:
        mem.retract("m4")
        mem.supersede("m1", {"id": "m1b", "text": "stays in Shanghai"})
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT id, active, superseded_by, truth FROM states ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    assert rows == [
        ("m1", 0, "m1b", "false"),
        ("m1b", 1, None, "true"),
        ("m2", 1, None, "false"),
        ("m3", 1, None, "false"),
        ("m4", 0, None, "false"),
    ]


def test_fault_mid_revision_leaves_the_file_identical(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = seed(place.url)
    before = place.dump()
    holding = mem.holding()

    def boom(self: SQLiteStore, *args: object, **kwargs: object) -> None:
        raise OSError("disk unplugged")

    # the states and truth values are written first; the log entry fails after them
    monkeypatch.setattr(SQLiteStore, "append", boom)
    with pytest.raises(OSError, match="disk unplugged"):
        mem.supersede("m1", {"id": "m1b", "text": "stays in Shanghai"})
    assert place.dump() == before
    assert (
        mem.holding() == holding
        and mem.is_active("m1")
        and "m1b" not in {s.id for s in mem.states()}
    )
    monkeypatch.undo()
    assert mem.supersede("m1", {"id": "m1b"}).invalidated == ["m2", "m3"]
    mem.close()


def test_fault_in_logic_leaves_memory_and_file_identical(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stategraph.engine.doubt as doubt_module

    mem = seed(place.url)
    before = place.dump()

    def broken(program: object) -> None:
        raise RuntimeError("solver crashed")

    monkeypatch.setattr(doubt_module, "well_founded", broken)
    with pytest.raises(RuntimeError):
        mem.retract("m1")
    assert place.dump() == before and mem.is_active("m1")
    assert mem.holding() == {"m1", "m2", "m3", "m4"}


def test_tampering_with_the_log_is_detected(place: Place) -> None:
    seed(place.url).close()
    report = place.log_row(2)["report"]
    place.update_log(2, report=report.replace("m2", "mX"))
    with Memory.open(place.url) as mem, pytest.raises(LogIntegrityError) as err:
        mem.verify_log()
    assert err.value.seq == 2


def test_deleting_a_log_entry_is_detected(place: Place) -> None:
    seed(place.url).close()
    place.delete_log([2])
    with Memory.open(place.url) as mem, pytest.raises(LogIntegrityError):
        mem.verify_log()


def test_history_lists_every_revision(place: Place) -> None:
    mem = seed(place.url)
    mem.retract("m1")
    history = mem.history()
    assert [e.seq for e in history] == [1, 2, 3, 4, 5]
    assert history[-1].report.invalidated == ["m2", "m3"]
    config = dict(history[-1].config)
    assert re.fullmatch(r"[0-9a-f]{64}", config.pop("tables"))  # stategraph.tables
    assert config == {
        "max_depth": None,
        "kinds": ["action", "belief", "fact", "plan"],
        "candidates": {
            "name": "stategraph.candidates.v3",
            "k": 8,
            "floor": 0.0,
            "relative": 0.5,
            "max_df_share": 0.05,
            "min_df": 50,
            "turn": 8,
            "inherit": True,
            "contemporaries": True,
            "cover": 0.5,
            "cover_facts": True,
            "max_terms": 48,
            "postings": 64,
            "exogenous": ["fact"],
            "derived": ["action", "belief", "plan"],
        },
    }
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(history))


def test_a_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not a stategraph store"):
        Memory.open(path)


def test_a_store_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    seed(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    with pytest.raises(StategraphError, match="schema version 99"):
        Memory.open(path)


def test_rows_read_back_equal_validated_models(place: Place) -> None:
    from stategraph.model import Justification

    mem = Memory.open(place.url)
    mem.fact("f")
    mem.action("a", "text", because=[{"all": ["f"], "unless": ["x"]}], status="executed")
    mem.plan("p", context=["f"], because=["a"])
    for j in mem.justifications():
        assert j == Justification.model_validate(j.model_dump())
    graph = mem.store.subgraph(["a"])
    light = graph.states["a"]
    assert (light.id, light.kind, light.status) == ("a", "action", mem.state("a").status)


@given(hs.lists(hs.text(min_size=1)))
def test_id_arrays_encode_like_the_json_encoder_and_decode_back(ids: list[str]) -> None:
    text = ids_json(ids)
    assert text == canonical_json(ids)
    assert decode_ids(text) == tuple(ids)


def test_a_version_1_store_is_migrated_on_open(tmp_path: Path) -> None:
    """Version 1 had justifications in a rowid table and no open/closed flag on edges."""
    path = tmp_path / "m.db"
    seed(path).close()
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        DROP INDEX edges_open_into;
        ALTER TABLE edges DROP COLUMN follow;
        CREATE TABLE j1 (head TEXT NOT NULL, premises TEXT NOT NULL, unless TEXT NOT NULL,
            origin TEXT NOT NULL, extra TEXT NOT NULL, PRIMARY KEY (head, premises, unless));
        INSERT INTO j1 SELECT * FROM justifications;
        DROP TABLE justifications;
        ALTER TABLE j1 RENAME TO justifications;
        UPDATE meta SET value = '1' WHERE key = 'schema';
        """
    )
    conn.commit()
    conn.close()
    with Memory.open(path) as mem:
        assert mem.holding() == {"m1", "m2", "m3", "m4"}
        report = mem.retract("m1")
    assert report.invalidated == ["m2", "m3"]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (
            str(SCHEMA_VERSION),
        )
        assert {r[1] for r in conn.execute("PRAGMA table_info(edges)")} >= {"follow"}
        index = "SELECT 1 FROM sqlite_master WHERE name = 'edges_open_into'"
        assert conn.execute(index).fetchone()  # made once follow is there
        sql = "SELECT sql FROM sqlite_master WHERE name = 'justifications'"
        assert "WITHOUT ROWID" in conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def test_a_version_2_store_gets_its_term_index_on_open(tmp_path: Path) -> None:
    """Version 2 had no term index: opening indexes every stored state once."""
    path = tmp_path / "m.db"
    seed(path).close()
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        DROP TABLE docs; DROP TABLE terms; DROP TABLE term_df;
        UPDATE meta SET value = '2' WHERE key = 'schema';
        """
    )
    conn.commit()
    conn.close()
    with Memory.open(path) as mem:
        store = mem.store
        assert isinstance(store, SQLiteStore)
        assert store.doc_count() == len(mem.states())
        assert [p[1] for p in store.postings("g:she", 10)]  # "Shenzhen" is in seed()'s texts
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (
            str(SCHEMA_VERSION),
        )
    finally:
        conn.close()


def test_a_store_written_before_the_open_edges_index_gets_it_with_its_next_write(
    tmp_path: Path,
) -> None:
    """The index of open edges (read by the lean read of steady heads) came within schema 6.
    Opening a store of 6 only reads, so one without the index is read without it (the lean
    read then finds the same open edges pair by pair) and gets it with its next write."""
    path = tmp_path / "m.db"
    seed(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX edges_open_into")
    conn.commit()
    conn.close()
    index = "SELECT 1 FROM sqlite_master WHERE name = 'edges_open_into'"
    with Memory.open(path) as mem:
        store = mem.store
        assert isinstance(store, SQLiteStore)
        heads = ["m2", "m3", "m4"]
        without = store.lean_heads(SupportGraph(), heads)
        conn = sqlite3.connect(path)
        assert conn.execute(index).fetchone() is None  # opening and reading wrote nothing
        conn.close()
        mem.fact("m9")
        assert store.lean_heads(SupportGraph(), heads) == without
    conn = sqlite3.connect(path)
    try:
        assert conn.execute(index).fetchone()
        sql = "SELECT head, src FROM edges INDEXED BY edges_open_into WHERE follow = 1"
        found = sorted(conn.execute(sql + " AND head IN (SELECT head FROM edges)"))
        every = sorted(conn.execute("SELECT head, src FROM edges WHERE follow = 1"))
        assert found and found == every
    finally:
        conn.close()
