"""A key's latest version is found in one query (issue 42, finding 5): a ``get`` or ``put`` of a
key rewritten many times probed its versions sixteen at a time (8 ms at 500 versions, 90 ms at
3,000). ``python scripts/langgraph_versions.py`` times both side by side; here, the statements
a ``get`` runs are counted, and the latest version is checked at the boundaries of a number's
digits, on both backends."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from backends import Place

pytest.importorskip("langgraph", reason="needs LangGraph: pip install 'stategraph[langgraph]'")

from stategraph import Memory
from stategraph.integrations.langgraph import StategraphStore

U1 = ("memories", "u1")


def _rewritten(store: StategraphStore, times: int, key: str = "home") -> None:
    for v in range(times):
        store.put(U1, key, {"text": f"The user lives at address {v}"})


def _statements_of_a_get(path: Path, versions: int) -> list[str]:
    with StategraphStore(Memory(str(path))) as store:
        _rewritten(store, versions)
        conn = store.memory.store.conn
        assert isinstance(conn, sqlite3.Connection)
        seen: list[str] = []
        conn.set_trace_callback(seen.append)
        try:
            item = store.get(U1, "home")
        finally:
            conn.set_trace_callback(None)
        assert item is not None and item.value["text"].endswith(str(versions - 1))
        return seen


def test_a_get_runs_the_same_statements_at_3_and_at_40_versions(tmp_path: Path) -> None:
    """Before: one more lookup for every 16 versions (three at 40)."""
    few = _statements_of_a_get(tmp_path / "few.db", 3)
    many = _statements_of_a_get(tmp_path / "many.db", 40)
    assert len(few) == len(many)
    on_states = [s for s in many if "FROM states" in s and "states_past" not in s]
    assert len(on_states) == 2, on_states  # the latest version's id, then its row


@pytest.mark.parametrize("versions", [1, 2, 9, 10, 11, 17, 100])
def test_the_latest_version_is_found_on_both_backends(place: Place, versions: int) -> None:
    with StategraphStore(Memory(place.url)) as store:
        _rewritten(store, versions)
        _rewritten(store, 12, key="home2")  # a key that starts like it: not one of its versions
        store.memory.fact("memories/u1/home#x", "an id this mapping did not make")
        item = store.get(U1, "home")
        assert item is not None
        assert item.value["text"] == f"The user lives at address {versions - 1}"
        assert store.state_id(U1, "home") == (
            "memories/u1/home" if versions == 1 else f"memories/u1/home#{versions}"
        )
        store.delete(U1, "home")
        assert store.get(U1, "home") is None
        store.put(U1, "home", {"text": "back"})
        assert store.state_id(U1, "home") == f"memories/u1/home#{versions + 1}"
