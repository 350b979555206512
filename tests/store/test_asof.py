"""Memory.as_of on each store backend: the seed scenario, what can be asked for, the past's
rows under the tables' digest, bulk loads, tenants, and a store written before the past was
kept."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from backends import Place, sqlite_execute

from stategraph import Memory, Truth
from stategraph.cli import demo
from stategraph.errors import (
    AsOfRangeError,
    InvalidInputError,
    LogIntegrityError,
    NotHoldingError,
    UnknownStateError,
)
from stategraph.store import SCHEMA_VERSION

from .test_compact_log import v3_store
from .test_postgres import database  # noqa: F401 (a fixture)


def seed(mem: Memory) -> Memory:
    t = demo.SCENARIO["zh"]
    mem.fact("m1", t["m1"])
    mem.belief("m2", t["m2"], because=["m1"])
    mem.action("m3", t["m3"], because=["m1"], status="pending")
    mem.fact("m4", t["m4"])
    return mem


def test_the_revision_before_the_move_was_called_off_shows_m3_holding(place: Place) -> None:
    with seed(place.memory()) as mem:
        before = mem.head()[0]
        mem.supersede("m1", {"id": "m1b", "text": "不搬了，留在上海"})  # 不搬了
        assert mem.truth("m3") is Truth.false
        then = mem.as_of(before)
        assert then.seq == before
        assert then.truth("m3") is Truth.true and then.is_active("m1")
        assert then.holding() == {"m1", "m2", "m3", "m4"}
        assert [s.id for s in then.why("m3").steps] == ["m1", "m3"]
        assert [(r.id, r.status) for r in then.recall("宽带")] == [("m3", "holds")]
        assert [(r.id, r.status) for r in mem.recall("宽带", as_of=before)] == [("m3", "holds")]
        assert mem.recall("宽带") == []
        with pytest.raises(UnknownStateError):
            then.truth("m1b")  # written later
        assert "m1b" not in {s.id for s in then.states()}
        now = mem.as_of(mem.head()[0])
        assert now.truth("m3") is Truth.false and now.why_not("m3").items[0].first_failed == "m1"
        with pytest.raises(NotHoldingError):
            now.why("m3")


def test_a_view_keeps_its_revision_while_the_memory_goes_on(place: Place) -> None:
    with place.memory() as mem:
        mem.fact("a", "the user likes tea")
        mem.belief("b", "tea is in the cupboard", because=["a"])
        view = mem.as_of(2)
        mem.retract("a")
        mem.fact("c", "the user likes coffee")
        assert view.holding() == {"a", "b"} and not hasattr(view, "revise")
        assert mem.as_of(3).holding() == frozenset()
        assert mem.as_of("4").holding() == {"c"}


def test_what_can_be_asked_for_and_clear_errors_otherwise(place: Place) -> None:
    with place.memory() as mem:
        with pytest.raises(AsOfRangeError, match="no revision yet"):
            mem.as_of(1)
        mem.fact("a")
        time.sleep(0.01)
        mem.fact("b")
        first, second = mem.history()
        for wrong, said in [
            (0, "before the first revision: give a revision from 1 to 2"),
            (3, "revision 3 is not written yet: give a revision from 1 to 2"),
            ("99999999999999999999999", "does not exist"),
            (datetime.now(UTC) + timedelta(days=1), "is in the future"),
            (datetime(2000, 1, 1), "is before the first revision"),
        ]:
            with pytest.raises(AsOfRangeError, match=said):
                mem.as_of(wrong)  # type: ignore[arg-type]
        for wrong in ("yesterday", 1.5, True, None):
            with pytest.raises(InvalidInputError, match="as_of"):
                mem.as_of(wrong)  # type: ignore[arg-type]
        assert mem.as_of(first.at).seq == 1 and mem.as_of(second.at).seq == 2
        between = datetime.fromisoformat(second.at) - timedelta(microseconds=1)
        assert mem.as_of(between).seq == 1
        assert mem.as_of(between.replace(tzinfo=None)).seq == 1  # a time without zone: UTC
        assert mem.as_of(datetime.now(UTC)).seq == 2


def test_an_edit_of_the_past_shows_in_the_deep_check(place: Place) -> None:
    with place.memory() as mem:
        mem.fact("a")
        mem.belief("b", because=["a"])
        mem.retract("a")
        assert mem.verify_log(deep=True) == 3
        assert mem.as_of(2).truth("b") is Truth.true
    edit = "UPDATE states_past SET truth = 'false' WHERE id = 'b' AND until = 3"
    if place.backend == "sqlite":
        sqlite_execute(place.path, edit)
    else:
        place._conn().execute(edit + " AND tenant = %s", (place.tenant,))
    with place.memory() as mem:
        assert mem.as_of(2).truth("b") is Truth.false  # the edit is read...
        with pytest.raises(LogIntegrityError, match="states_past"):
            mem.verify_log(deep=True)  # ...and found


def test_a_bulk_load_is_absent_before_it_and_there_after(place: Place) -> None:
    with place.memory() as mem:
        mem.fact("hub")
        mem.bulk_load(
            [{"id": f"c{i}", "kind": "belief"} for i in range(30)],
            [{"head": f"c{i}", "premises": ["hub"]} for i in range(30)],
        )
        mem.retract("hub")
        assert mem.as_of(1).holding() == {"hub"} and len(mem.as_of(1).states()) == 1
        assert len(mem.as_of(2).holding()) == 31
        assert [j.head for j in mem.as_of(2).justifications("c7")] == ["c7"]
        assert mem.as_of(3).holding() == frozenset()
        with pytest.raises(UnknownStateError):
            mem.as_of(1).why_not("c7")
        assert mem.verify_log(deep=True) == 3


def test_review_decisions_and_the_queue_then(place: Place) -> None:
    with place.memory() as mem:
        mem.fact("p")
        mem.action("x", because=["p"], status="executed")
        mem.retract("p")  # an executed action lost its support: it waits for a person
        assert [r.id for r in mem.pending_review()] == ["x"]
        flagged = mem.head()[0]
        mem.confirm("x", by="ana", note="it was done")
        assert mem.pending_review() == []
        assert [r.id for r in mem.as_of(flagged).pending_review()] == ["x"]
        assert mem.as_of(flagged - 1).pending_review() == []
        origins = [j.origin.value for j in mem.as_of(flagged + 1).justifications("x")]
        assert "review" in origins
        assert "review" not in [j.origin.value for j in mem.as_of(flagged).justifications("x")]


def test_a_tenant_never_sees_another_tenants_past(place: Place) -> None:
    other = place.sibling("other")
    with place.memory() as mine, other.memory() as theirs:
        theirs.fact("secret", "the other tenant's memory")
        theirs.fact("more")
        mine.fact("a", "mine")
        assert mine.as_of(1).holding() == {"a"}
        assert [s.id for s in mine.as_of(1).states()] == ["a"]
        assert mine.as_of(1).recall("tenant") == []
        with pytest.raises(AsOfRangeError, match="not written yet"):
            mine.as_of(2)
        with pytest.raises(UnknownStateError):
            mine.as_of(1).truth("secret")


def test_a_store_written_before_the_past_was_kept(tmp_path: Path) -> None:
    """A schema-3 store is migrated on open: its past is kept from the head it had then, and
    a read of an earlier revision says why it cannot be shown."""
    path = tmp_path / "m.db"
    v3_store(path)
    with Memory.open(path) as mem:
        head = mem.head()[0]
        assert mem.store.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (
            str(SCHEMA_VERSION),
        )
        assert mem.verify_log(deep=True) == head
        with pytest.raises(AsOfRangeError, match=f"migrated at revision {head}"):
            mem.as_of(head - 1)
        then = mem.as_of(head)
        holding = mem.holding()
        assert then.holding() == holding
        mem.fact("later")
        assert mem.as_of(head).holding() == holding
        assert mem.as_of(head + 1).holding() == holding | {"later"}
        assert mem.verify_log(deep=True) == head + 1


def test_a_postgresql_database_written_before_the_past_was_kept(database: str) -> None:  # noqa: F811
    """Schema 4's migration: the past's tables, and each tenant's past kept from its head."""
    import psycopg

    with Memory(database + "?tenant=t1") as mem:
        mem.fact("a")
        mem.belief("b", because=["a"])
        mem.retract("a")
    with psycopg.connect(database, autocommit=True) as conn:  # back to schema 3, as it was
        for table in (
            "states_past",
            "justifications_past",
            "review_past",
            "embedding_cache",
            "link_atoms",
            "atom_watches",
        ):
            conn.execute(f"DROP TABLE stategraph.{table}")
        conn.execute("DROP INDEX stategraph.docs_by_session")  # schema 6's
        conn.execute("ALTER TABLE stategraph.docs DROP COLUMN session")
        conn.execute("UPDATE stategraph.stategraph_schema SET version = 3")
    with Memory(database + "?tenant=t1") as mem:
        with pytest.raises(AsOfRangeError, match="migrated at revision 3"):
            mem.as_of(2)
        assert mem.as_of(3).holding() == frozenset()
        mem.fact("c")
        assert mem.as_of(3).holding() == frozenset() and mem.as_of(4).holding() == {"c"}
