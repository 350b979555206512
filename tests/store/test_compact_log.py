"""Compact log rows (issue 13, item 5): a large report is stored compressed, the hash stays over
its canonical text, and stores written before (every column TEXT) read and verify unchanged.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from backends import Place, sqlite_execute, sqlite_query

from stategraph import Memory
from stategraph.errors import StoreError
from stategraph.store import SCHEMA_VERSION, SQLiteStore
from stategraph.store.revlog import COMPACT_MIN, pack, unpack

from .logged import BIG_REPORT, LAST, WITH_CALLS, decode, rows

HUB = 3000
V3_STORE = Path(__file__).parent / "data" / "v3_store.sql"


def hub_store(path: Path, n: int = HUB) -> Memory:
    """A fact that ``n`` beliefs rest on, loaded in bulk: retracting it reports ``n`` states."""
    mem = Memory.open(path)
    mem.bulk_load(
        [{"id": "hub", "kind": "fact"}, *({"id": f"b{i}", "kind": "belief"} for i in range(n))],
        ({"head": f"b{i}", "premises": ["hub"]} for i in range(n)),
    )
    return mem


def test_a_hub_revision_is_logged_compressed_at_least_5x_smaller(tmp_path: Path) -> None:
    """Before: the report went into the row (and the write-ahead log) as its whole JSON."""
    path = tmp_path / "m.db"
    mem = hub_store(path)
    store = mem.store
    assert isinstance(store, SQLiteStore)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    report = mem.retract("hub")
    wal = os.path.getsize(f"{path}-wal")
    text = report.model_dump_json(by_alias=True)
    stored, kind = store.conn.execute(
        "SELECT CAST(report AS BLOB), typeof(report) FROM revisions WHERE seq = 2"
    ).fetchone()
    assert kind == "blob" and stored[0] == 0x01
    assert len(stored) * 5 <= len(text.encode()), (len(stored), len(text))
    # the revision's whole write-ahead log (truth values included) is smaller than the report
    assert wal < len(text.encode()), (wal, len(text))
    assert mem.history()[-1].report == report
    assert mem.verify_log() == 2
    mem.close()


def test_short_texts_stay_readable_text(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory.open(path) as mem:
        mem.fact("f", "a short memory")
        mem.belief("b", because=["f"])
    kinds = sqlite_query(
        path, "SELECT typeof(change), typeof(report), typeof(calls) FROM revisions"
    )
    assert set(kinds) == {("text", "text", "text")}


@pytest.mark.parametrize("text", ["", "{}", "x" * (COMPACT_MIN - 1), '{"a":"中文"}' * 400])
def test_pack_and_unpack_are_inverse(text: str) -> None:
    packed = pack(text)
    assert unpack(packed) == text
    assert isinstance(packed, str) == (len(text) < COMPACT_MIN)


def v3_store(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(V3_STORE.read_text(encoding="utf-8"))
    conn.close()


def test_a_store_written_before_reads_and_verifies_and_goes_on(tmp_path: Path) -> None:
    """A schema-3 store (every log column TEXT, from the version before this one): its rows
    are left as they are, verify, read back, and the chain goes on with compact rows."""
    path = tmp_path / "m.db"
    v3_store(path)
    before = rows(Place("sqlite", str(path)))
    assert {type(r[c]) for r in before for c in ("change", "report", "calls")} == {str}
    with Memory.open(path) as mem:
        assert mem.verify_log() == LAST
        history = mem.history()
        assert [e.seq for e in history] == list(range(1, LAST + 1))
        assert history[WITH_CALLS - 1].calls[0].answer is not None
        big = history[BIG_REPORT - 1].report
        assert big is not None and big.invalidated == sorted(f"b{i}" for i in range(40))
        mem.fact("hub2")
        mem.bulk_load(
            [{"id": f"c{i}", "kind": "belief"} for i in range(100)],
            [{"head": f"c{i}", "premises": ["hub2"]} for i in range(100)],
        )
        mem.retract("hub2")
        assert mem.verify_log() == LAST + 3
    after = rows(Place("sqlite", str(path)))
    assert after[:LAST] == before  # nothing rewritten
    assert isinstance(after[-1]["report"], bytes)  # the new hub report is compact
    assert decode(after[-1]["report"]) == mem_report_json(path, LAST + 3)
    assert sqlite_query(path, "SELECT value FROM meta WHERE key='schema'") == [
        (str(SCHEMA_VERSION),)
    ]


def mem_report_json(path: Path, seq: int) -> str:
    with Memory(store=SQLiteStore(path, create=False)) as mem:
        (e,) = mem.store.history(since=seq - 1, limit=1)
        assert e.report is not None
        return e.report.model_dump_json(by_alias=True)


def test_a_store_of_a_newer_schema_is_refused_before_its_rows_are_misread(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    v3_store(path)
    sqlite_execute(path, "UPDATE meta SET value = ? WHERE key = 'schema'", str(SCHEMA_VERSION + 1))
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}.*upgrade"):
        SQLiteStore(path)
