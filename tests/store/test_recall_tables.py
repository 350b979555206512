"""Recall's index under the deep check (issue 42, finding 3): an edit of the recall tables with
plain SQL (a doubtful memory's row deleted, the query's words appended to an unrelated fact's
row, a word's count past the row count, FTS5's own structures) fails ``verify(deep=True)`` on
both backends, naming the table, and refuses writes; acknowledging it makes the index again
from the states. Impossible counts never make recall fail. Untouched stores pass.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from backends import Place

from stategraph import Memory
from stategraph.errors import LogIntegrityError, TamperedStoreError
from stategraph.text import fulltext, impacts


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Frequent words' lists from 3 memories on (512 by default), so that a small store keeps
    them."""
    monkeypatch.setattr(impacts, "THRESHOLD", 3)


def seed(place: Place) -> tuple[int, str]:
    """The issue's store: a belief waiting for confirmation about the Louvre, unrelated facts
    (one about tea), a word ("user") in enough memories to be listed. Returns the head."""
    with place.memory() as mem:
        mem.fact("f1", "The user lives in Paris")
        mem.fact("f2", "The user likes green tea")
        mem.fact("f3", "The user was born in 1990")
        mem.fact("f4", "用户计划 2026-12 从上海搬到深圳")
        flat = {"id": "b1", "kind": "belief", "text": "Book a flat near the Louvre"}
        mem.add(flat, context=["f1"])
        mem.retract("f1")
        assert [(r.id, r.status) for r in mem.recall("Louvre")] == [("b1", "needs_confirmation")]
        assert mem.verify_log(deep=True) == 6
        return mem.head()


TAMPERINGS: dict[str, tuple[str, tuple[Any, ...], str]] = {
    "a doubtful memory's row deleted": ("DELETE FROM {docs} WHERE id = ?", ("b1",), "recall_fts"),
    "the query's words appended to an unrelated fact's row": (
        "UPDATE {docs} SET body = {append} WHERE id = ?",
        ("f2",),
        "recall_fts",
    ),
}
"""Edits of the rows themselves, on both backends."""

SQLITE_TAMPERINGS: dict[str, tuple[str, tuple[Any, ...], str]] = {
    "a word's count past the row count": (
        "UPDATE recall_df SET df = 1000 WHERE term = ?",
        ("tea",),
        "recall_df",
    ),
    "a listed posting deleted": (
        "DELETE FROM recall_impact WHERE term = ?",
        ("user",),
        "recall_impact",
    ),
    "FTS5's stored copy of a row edited behind its index": (
        "UPDATE recall_fts_content SET c1 = 'the user likes louvre' WHERE c0 = ?",
        ("f2",),
        "recall_fts",
    ),
    "FTS5's token count of a row edited": (
        "UPDATE recall_fts_docsize SET sz = x'0001' WHERE id = ?",
        (2,),
        "recall_fts",
    ),
}
"""Edits of what only SQLite keeps: the frequent words' lists and FTS5's own tables."""


def _statement(place: Place, name: str) -> str:
    statement = TAMPERINGS[name][0]
    if place.backend == "sqlite":
        return statement.format(docs="recall_fts", append="body || ' louvre'")
    return statement.format(docs="recall_docs", append="body || to_tsvector('simple', 'louvre')")


def _fails_the_deep_check(place: Place, statement: str, args: tuple[Any, ...], table: str) -> None:
    head = seed(place)
    place.edit(statement, *args)
    with place.memory() as mem:
        assert mem.verify_log(head) == 6  # the chain alone cannot see it
        with pytest.raises(LogIntegrityError) as err:
            mem.verify_log(head, deep=True)
        assert "does not match recall's index" in err.value.reason
        assert table in err.value.reason
        with pytest.raises(TamperedStoreError):
            mem.fact("x")


@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
def test_an_edit_of_the_recall_index_fails_the_deep_check(place: Place, tampering: str) -> None:
    """Before: each of these verified ("tables match the log")."""
    _, args, table = TAMPERINGS[tampering]
    _fails_the_deep_check(place, _statement(place, tampering), args, table)


@pytest.mark.parametrize("tampering", sorted(SQLITE_TAMPERINGS))
def test_an_edit_of_sqlites_recall_tables_fails_the_deep_check(
    tmp_path: Path, tampering: str
) -> None:
    """Before: each of these verified too."""
    _fails_the_deep_check(Place("sqlite", str(tmp_path / "s.db")), *SQLITE_TAMPERINGS[tampering])


def test_recall_after_the_issues_edits_and_after_acknowledging(place: Place) -> None:
    """The issue's two edits: recall returned the unrelated fact and lost the memory waiting
    for confirmation. Acknowledging the tamper makes the index again from the states."""
    seed(place)
    place.edit(_statement(place, "a doubtful memory's row deleted"), "b1")
    place.edit(_statement(place, "the query's words appended to an unrelated fact's row"), "f2")
    with place.memory() as mem:
        assert [r.id for r in mem.recall("Louvre")] == ["f2"]  # what the edit does
        with pytest.raises(LogIntegrityError, match="recall's index"):
            mem.verify_log(deep=True)
        mem.store.acknowledge_tamper()
        assert mem.verify_log(deep=True) == 6
        assert [(r.id, r.status) for r in mem.recall("Louvre")] == [("b1", "needs_confirmation")]
        mem.fact("x", "writes go on")


def test_impossible_counts_never_make_recall_fail(tmp_path: Path) -> None:
    """A word's count past the row count made every recall with the word fail with
    ``math domain error``; now the lists are not trusted and FTS5 ranks, as it does alone."""
    place = Place("sqlite", str(tmp_path / "s.db"))
    seed(place)
    conn = sqlite3.connect(place.path)
    with conn:
        conn.execute("UPDATE recall_df SET df = 1000 WHERE term = 'user'")
    conn.close()
    with place.memory() as mem:
        found = [r.id for r in mem.recall("user", k=3)]
        expected = fulltext.search_exhaustive(
            mem.store, ["user"], 3, kinds=None, doubtful=True, invalidated=False
        )
        assert found == [i for i, _ in expected]


def test_an_untouched_store_passes_after_every_way_of_writing(place: Place) -> None:
    """No false alarm: revisions, a bulk load, Chinese text, grounded atoms, a supersession,
    a memory with no words at all, and the lists made for an index written before them."""
    seed(place)
    with place.memory() as mem:
        mem.bulk_load(
            [{"id": f"g{i}", "kind": "fact", "text": f"user fact {i} 上海 深圳"} for i in range(9)]
        )
        mem.supersede("f2", {"id": "f2b", "kind": "fact", "text": "The user likes coffee"})
        mem.fact("nothing", "!!! ...")
        mem.recall("user")
        assert mem.verify_log(deep=True) == 9


def test_a_store_whose_index_is_still_being_filled_passes(tmp_path: Path) -> None:
    """A store written before the index: rows not indexed yet are no tamper, wrong rows are."""
    place = Place("sqlite", str(tmp_path / "s.db"))
    seed(place)
    conn = sqlite3.connect(place.path)
    with conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (f"setting:{fulltext.FILLED}",))
        conn.execute("DELETE FROM recall_fts WHERE id = 'f3'")
        conn.execute("DELETE FROM meta WHERE key = ?", (impacts.THRESHOLD_KEY,))
    conn.close()
    with Memory(str(place.path)) as mem:
        assert mem.verify_log(deep=True) == 6
    place.edit("UPDATE recall_fts SET body = 'louvre' WHERE id = ?", "f2")
    with Memory(str(place.path)) as mem, pytest.raises(LogIntegrityError, match="recall_fts"):
        mem.verify_log(deep=True)
