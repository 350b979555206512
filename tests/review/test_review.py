"""Human review against real SQLite files: the queue, confirm and reject as revisions.

DESIGN.md: "needs_confirmation is settled by a person: confirming adds a justification with
origin review (who, when, note; no premises); rejecting retracts the state. Both are
revisions, logged and cascading like any other." The property against the oracle is in
``tests/properties/test_review.py``; here, each cause of the queue, what a decision writes and
logs, how ``why`` explains it, and what is refused.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from stategraph import Memory, Truth
from stategraph.errors import InvalidInputError, NotPendingError, UnknownStateError
from stategraph.model import Consequence, Decision, Origin, Verdict
from stategraph.store import SQLiteStore


def cycle_memory(path: Path) -> Memory:
    """a and b each hold unless the other does: both undefined (a negative cycle), and c
    rests on a."""
    mem = Memory(path)
    mem.fact("f1", "the user travels in May")
    mem.belief("a", "the user flies", because=[{"all": ["f1"], "unless": ["b"]}])
    mem.belief("b", "the user takes the train", because=["f1"])
    mem.plan("c", "book the airport taxi", because=["a"])
    mem.revise(
        {
            "add_justifications": [{"head": "b", "premises": ["f1"], "unless": ["a"]}],
            "remove_justifications": [{"head": "b", "premises": ["f1"]}],
        }
    )
    return mem


def pending(mem: Memory) -> dict[str, tuple[str, Truth]]:
    return {p.id: (p.cause, p.truth) for p in mem.pending_review()}


def test_each_kind_of_flag_is_listed_with_its_cause(tmp_path: Path) -> None:
    mem = cycle_memory(tmp_path / "m.db")
    mem.fact("f2", "The user flies to Tokyo on May 10")
    mem.plan("p1", "Book a sushi dinner in Tokyo", context=["f2"])
    mem.action("x1", "Paid the hotel deposit", because=["f2"], status="executed")
    mem.retract("f2")  # p1: an unverified candidate; x1: an executed action to review
    deep = Memory(tmp_path / "deep.db", max_depth=1)
    deep.fact("g")
    deep.belief("d1", because=["g"])
    deep.belief("d2", because=["d1"])
    deep.retract("g")
    assert pending(mem) == {
        "a": ("negative_cycle", Truth.undefined),
        "b": ("negative_cycle", Truth.undefined),
        "c": ("undefined_premise", Truth.undefined),
        "p1": ("unverified_candidate", Truth.undefined),
        "x1": ("no_support", Truth.false),
    }
    (x1,) = [p for p in mem.pending_review() if p.id == "x1"]
    assert x1.consequence is Consequence.review and x1.status is not None
    assert x1.text == "Paid the hotel deposit" and x1.reason.lost[0].failed == ("f2",)
    assert x1.flagged_in == len(mem.history())  # the retraction flagged it
    assert [p.id for p in mem.pending_review()][:3] == ["a", "b", "c"]  # oldest flag first
    assert pending(deep) == {"d2": ("depth_limit", Truth.undefined)}


def test_the_queue_is_read_from_its_index_not_from_the_log(tmp_path: Path) -> None:
    mem = cycle_memory(tmp_path / "m.db")
    store = mem.store
    assert isinstance(store, SQLiteStore)
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    mem.pending_review()
    store.conn.set_trace_callback(None)
    assert seen and not any("revisions" in sql for sql in seen)
    plan = store.conn.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM states WHERE truth = 'undefined' ORDER BY id"
    ).fetchall()
    assert "states_undefined" in str(plan), plan


def test_confirm_adds_a_review_justification_logs_who_and_cascades(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem = cycle_memory(path)
    before = len(mem.history())
    report = mem.confirm("a", by="alice", note="the user booked the flight")
    assert mem.truth("a") is Truth.true
    assert (mem.truth("b"), mem.truth("c")) == (Truth.false, Truth.true)  # cascaded
    assert report.entry("a").verdict is Verdict.restored  # type: ignore[union-attr]
    assert report.invalidated == ["b"] and report.restored == ["a", "c"]
    (j,) = [j for j in mem.justifications("a") if j.origin is Origin.review]
    assert (j.premises, j.unless) == ((), ())
    assert j.notes == {"by": "alice", "note": "the user booked the flight"}
    entry = mem.history()[-1]
    assert entry.seq == before + 1
    (review,) = entry.report.change.reviews  # type: ignore[union-attr]
    assert (review.id, review.decision, review.by) == ("a", Decision.confirmed, "alice")
    assert review.at is None  # no clock read: the log entry's time is the review's
    assert mem.pending_review() == []
    assert mem.verify_log() == before + 1
    mem.close()
    with Memory.open(path) as again:  # a new process sees the same
        assert (
            again.why("c")
            .render()
            .splitlines()[1]
            .endswith("<- confirmed by alice: the user booked the flight")
        )
        assert "confirmed by alice" in again.why_not("a").render()


def test_reject_retracts_and_what_rested_on_it_goes(tmp_path: Path) -> None:
    mem = cycle_memory(tmp_path / "m.db")
    report = mem.reject("a", by="bob", note="the flight was cancelled")
    assert [(c.id, c.action) for c in report.changed] == [("a", "retracted")]
    assert mem.truth("b") is Truth.true and mem.truth("c") is Truth.false
    assert report.restored == ["b"] and report.invalidated == ["c"]
    (review,) = report.change.reviews
    assert (review.decision, review.by, review.note) == (
        Decision.rejected,
        "bob",
        "the flight was cancelled",
    )
    assert mem.pending_review() == []


def test_confirming_an_executed_action_that_lost_its_support(tmp_path: Path) -> None:
    """It stands as done, on the reviewer's word: it holds again, and so does what rests on
    it; rejecting it would retract it."""
    mem = Memory(tmp_path / "m.db")
    mem.fact("f1", "The user moves to Shenzhen")
    mem.action("x1", "Cancelled the broadband", because=["f1"], status="executed")
    mem.belief("b1", "No internet at the old flat", because=["x1"])
    report = mem.retract("f1")
    assert report.consequences == {"x1": "review"} and mem.truth("x1") is Truth.false
    assert [p.id for p in mem.pending_review()] == ["x1"]
    report = mem.confirm("x1", by="carol", note="done; it stays cancelled", at="2026-05-02T10:00")
    assert report.restored == ["b1", "x1"]
    assert mem.why("b1").step("x1").by.notes == {  # type: ignore[union-attr]
        "at": "2026-05-02T10:00:00",
        "by": "carol",
        "note": "done; it stays cancelled",
    }
    assert "confirmed by carol on 2026-05-02T10:00:00: done" in mem.why("b1").render()


def test_states_no_revision_graded_are_listed_with_why(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db")
    mem.fact("f1")
    mem.belief("a", because=[{"all": ["f1"], "unless": ["b"]}])
    mem.belief("b", because=[{"all": ["f1"], "unless": ["a"]}])  # closes the cycle: asserted
    mem.belief("d", because=["b"])  # asserted while its premise is undefined
    mem.bulk_load(
        [{"id": "p", "kind": "belief"}, {"id": "q", "kind": "belief"}],
        [{"head": "p", "premises": ["f1"], "unless": ["q"]}, {"head": "q", "unless": ["p"]}],
    )
    found = {p.id: p for p in mem.pending_review()}
    assert sorted(found) == ["a", "b", "d", "p", "q"]
    assert found["b"].reason.cycle == ("a", "b") and found["b"].flagged_in == 3
    assert (found["d"].cause, found["d"].reason.undecided) == ("undefined_premise", ("b",))
    assert (found["p"].cause, found["p"].reason.cycle, found["p"].flagged_in) == (
        "negative_cycle",
        ("p", "q"),
        None,
    )


def test_refused_decisions_write_nothing(tmp_path: Path) -> None:
    mem = cycle_memory(tmp_path / "m.db")
    head = mem.head()
    with pytest.raises(NotPendingError) as caught:
        mem.confirm("f1", by="alice")
    assert caught.value.state_id == "f1" and "not waiting for review" in str(caught.value)
    with pytest.raises(UnknownStateError):
        mem.reject("nope", by="alice")
    with pytest.raises(InvalidInputError) as bad:
        mem.confirm("a", by="  ")
    assert bad.value.what == "review" and bad.value.errors[0][0] == "by"
    with pytest.raises(InvalidInputError):
        mem.confirm("a", by="alice", at="yesterday")
    mem.reject("a", by="bob")
    with pytest.raises(NotPendingError) as gone:
        mem.confirm("a", by="alice")
    assert gone.value.active is False
    assert len(mem.history()) == head[0] + 1


def test_a_review_must_be_applied_by_its_change() -> None:
    mem = Memory()
    mem.fact("f1")
    with pytest.raises(InvalidInputError, match="must retract it"):
        mem.revise({"retract": [], "reviews": [{"id": "f1", "decision": "rejected", "by": "x"}]})


def test_a_store_written_before_the_queue_fills_it_from_its_log(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem = cycle_memory(path)
    mem.fact("f2")
    mem.action("x1", because=["f2"], status="executed")
    mem.retract("f2")
    expected = mem.pending_review()
    mem.close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE review_queue")
    conn.execute("DELETE FROM meta WHERE key = 'review_queue:filled'")
    conn.commit()
    conn.close()
    with Memory.open(path) as again:
        assert again.pending_review() == expected
        assert again.verify_log() == len(again.history())


def test_the_queue_as_json(tmp_path: Path) -> None:
    mem = cycle_memory(tmp_path / "m.db")
    data = json.loads(json.dumps([p.model_dump(mode="json") for p in mem.pending_review()]))
    assert [d["id"] for d in data] == ["a", "b", "c"]
    assert data[0]["reason"]["cycle"] == ["a", "b"]


def test_a_commit_reads_only_the_queue_rows_of_the_states_it_names(tmp_path: Path) -> None:
    """A revision costs what its cone costs: keeping the queue current never reads it whole."""
    from stategraph.store import SQLiteStore

    mem = Memory.open(tmp_path / "m.db")
    mem.fact("f")
    mem.belief("d", because=[{"all": [], "unless": ["e"]}])
    mem.belief("e", because=[{"all": [], "unless": ["d"]}])  # a negative cycle: queued
    assert {p.id for p in mem.pending_review()} == {"d", "e"}
    store = mem.store
    assert isinstance(store, SQLiteStore)

    def queue_reads(revise: Callable[[], object]) -> list[str]:
        seen: list[str] = []
        store.conn.set_trace_callback(seen.append)
        try:
            revise()
        finally:
            store.conn.set_trace_callback(None)
        return [
            s for s in seen if "FROM review_queue" in s and s.lstrip().upper().startswith("SELECT")
        ]

    # a new memory has no place in the queue yet: nothing of it is read
    assert queue_reads(lambda: mem.belief("b", because=["f"])) == []
    reads = queue_reads(lambda: mem.retract("f"))  # b changes: its row, and only it, is read
    assert reads and all("WHERE" in s.upper() for s in reads), reads
