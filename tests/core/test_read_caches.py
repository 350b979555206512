"""What the SQLite store keeps of rows it read stays what the file holds: rows a rollback undid
are forgotten, and rows another connection commits are seen."""

from __future__ import annotations

from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.model import State
from stategraph.store import SQLiteStore
from stategraph.text.atom_index import LinkIndex, _Dates, _Events, write


def _ids(mem: Memory, term: str, limit: int = 64) -> list[str]:
    """The postings of a term, read as candidate proposal reads them (64: the same kept)."""
    return [p[1] for p in mem.store.postings(term, limit)]


def test_postings_forget_the_documents_a_rollback_undid(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db")
    mem.fact("a", "flight to Shenzhen")
    with pytest.raises(RuntimeError), mem.atomic():
        mem.fact("b", "hotel in Shenzhen")
        assert _ids(mem, "g:she") == ["b", "a"]  # b's document is read, and kept
        raise RuntimeError
    mem.fact("c", "meeting in Shenzhen")  # the next document: the seq b had
    assert _ids(mem, "g:she") == ["c", "a"]
    with mem.atomic():  # a savepoint rolled back inside a transaction
        with pytest.raises(RuntimeError), mem.atomic():
            mem.fact("d", "dinner in Shenzhen")
            assert _ids(mem, "g:she") == ["d", "c", "a"]
            raise RuntimeError
        mem.fact("e", "taxi in Shenzhen")
        assert _ids(mem, "g:she") == ["e", "c", "a"]
    assert _ids(mem, "g:she") == ["e", "c", "a"]
    mem.close()


def test_kept_postings_follow_writes_rollbacks_and_other_writers(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db")
    mem.fact("a", "flight to Shenzhen")
    assert _ids(mem, "g:she") == ["a"]  # kept from here on
    mem.fact("b", "hotel in Shenzhen")
    assert _ids(mem, "g:she") == ["b", "a"]
    assert _ids(mem, "g:she", 1) == ["b"]  # another limit
    for i in range(12):
        mem.fact(f"c{i}", "Shenzhen again")
    assert _ids(mem, "g:she") == [*(f"c{i}" for i in reversed(range(12))), "b", "a"]
    assert _ids(mem, "g:she", 10) == [f"c{i}" for i in reversed(range(2, 12))]  # the newest
    with pytest.raises(RuntimeError), mem.atomic():
        mem.fact("d", "dinner in Shenzhen")
        assert _ids(mem, "g:she")[0] == "d"
        raise RuntimeError
    assert _ids(mem, "g:she")[0] == "c11"
    other = Memory(tmp_path / "m.db")
    other.fact("e", "taxi in Shenzhen")
    assert _ids(mem, "g:she")[:2] == ["e", "c11"]
    other.close()
    mem.close()


def _dated(i: int, date: str) -> State:
    return State(id=f"s{i}", kind="fact", atoms=(f'flight(user,tokyo,"{date}")',))


def _as_read(index: LinkIndex) -> None:
    """The index's kept dates are those a fresh read gives."""
    kept, fresh = index.dates(), _Dates(index.all_dates())
    assert (kept.known, kept.full, kept.days, kept.other) == (
        fresh.known,
        fresh.full,
        fresh.days,
        fresh.other,
    )
    events, read = index.events("flight"), _Events(index.dates_of("flight"))
    assert (events.full, events.days, events.months, sorted(events.yearless)) == (
        read.full,
        read.days,
        read.months,
        sorted(read.yearless),
    )


def test_the_link_index_dates_follow_writes_rollbacks_and_other_writers(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    index = LinkIndex(store.conn)
    with store.transaction():
        write(store.conn, [_dated(1, "2026-05-10")])
    _as_read(index)
    with store.transaction():
        write(store.conn, [_dated(2, "2026-05-01"), _dated(3, "2026-05"), _dated(4, "--12")])
    assert index.dates().full == ["2026-05-01", "2026-05-10"]
    _as_read(index)

    with pytest.raises(RuntimeError), store.transaction():
        write(store.conn, [_dated(5, "2026-06-01")])
        assert "2026-06-01" in index.dates().known
        assert "2026-06-01" in index.events("flight").full
        raise RuntimeError
    assert "2026-06-01" not in index.dates().known
    assert "2026-06-01" not in index.events("flight").full
    _as_read(index)
    with store.transaction():  # the same count of rows as the undone ones, other dates
        write(store.conn, [_dated(6, "2026-06-02")])
    assert "2026-06-02" in index.events("flight").full
    _as_read(index)

    other = SQLiteStore(tmp_path / "m.db")
    with other.transaction():
        write(other.conn, [_dated(7, "2026-07-01")])
    assert "2026-07-01" in index.dates().known
    assert "2026-07-01" in index.events("flight").full
    _as_read(index)
    other.close()
    store.close()
