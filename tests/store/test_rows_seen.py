"""Justification rows read by key are kept for the state of the store they were read at: the
steps of one revision (linking, the lean read, the commit's digest) read each once, and any
write since (a revision, another connection's, a rollback, a row inserted beside a revision)
makes them read again. The oracle is a new connection to the same file."""

from __future__ import annotations

from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.model import Justification
from stategraph.store.sqlite import SQLiteStore, ids_json

KEYS = [
    ("b", ids_json(("f1",)), "[]"),
    ("b", ids_json(("f2",)), "[]"),
    ("b", ids_json(("f3",)), "[]"),
]


def _memory(path: Path) -> tuple[Memory, SQLiteStore]:
    mem = Memory(path)
    for f in ("f1", "f2", "f3"):
        mem.fact(f)
    mem.belief("b", because=[["f1"]])
    assert isinstance(mem.store, SQLiteStore)
    return mem, mem.store


def _fresh(path: Path) -> list[tuple[object, ...]]:
    store = SQLiteStore(path)
    try:
        return sorted(store.justification_rows(KEYS))
    finally:
        store.close()


def test_rows_read_twice_at_one_state_are_read_once(tmp_path: Path) -> None:
    _, store = _memory(tmp_path / "m.db")
    first = store.justification_rows(KEYS)
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        again = store.justification_rows(list(reversed(KEYS)))
    finally:
        store.conn.set_trace_callback(None)
    assert sorted(first) == sorted(again) == _fresh(tmp_path / "m.db")
    assert len(first) == 1
    assert not [s for s in statements if "JOIN justifications" in s]


def test_any_write_since_makes_them_read_again(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, store = _memory(path)

    def current() -> None:
        assert sorted(store.justification_rows(KEYS)) == _fresh(path)

    current()
    mem.revise({"add_justifications": [{"head": "b", "premises": ["f2"]}]})  # a revision
    current()
    other = Memory(path)  # another connection's
    other.revise({"remove_justifications": [{"head": "b", "premises": ["f2"], "unless": []}]})
    other.close()
    current()
    with pytest.raises(RuntimeError), mem.atomic():  # undone
        mem.revise({"add_justifications": [{"head": "b", "premises": ["f3"]}]})
        assert len(store.justification_rows(KEYS)) == 2
        raise RuntimeError("undo")
    current()
    with store.transaction():  # beside a revision
        store.add_justifications([Justification(head="b", premises=("f3",))])
    current()
    assert len(store.justification_rows(KEYS)) == 2
