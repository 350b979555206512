"""The store's write path: ``commit`` (the head check, the change it logs, the judge answers it
caches) and ``append`` (the entry it returns is the entry the log reads back); on both
backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from backends import Place

from stategraph import Memory
from stategraph.engine.revise import Revision
from stategraph.errors import ConcurrentChangeError, InvalidInputError
from stategraph.judge import JudgeAnswer, JudgeCall, Question, Quote
from stategraph.model import Change
from stategraph.store.sqlite import SQLiteStore

from .logged import decode

pytestmark = pytest.mark.citus  # the backend tests also run on Citus (tests/backends.py)


@pytest.fixture
def mem(place: Place) -> Iterator[Memory]:
    with place.memory() as m:
        m.fact("f", "a fact")
        m.belief("b", "a belief", because=["f"])
        yield m


def sql_store(mem: Memory) -> SQLiteStore:
    assert isinstance(mem.store, SQLiteStore)  # PostgresStore is one too
    return mem.store


def captured_commit(mem: Memory, change: dict[str, Any]) -> dict[str, Any]:
    """Revise, and return the arguments the memory committed the revision with."""
    store = mem.store
    real = store.commit
    seen: dict[str, Any] = {}

    def spy(revision: Revision, config: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        seen.update(revision=revision, config=config, args=args, kwargs=kwargs)
        return real(revision, config, *args, **kwargs)

    store.commit = spy  # type: ignore[method-assign]
    try:
        mem.revise(change)
    finally:
        del store.commit
    return seen


def call(head: str, answer: bool | None, *, cached: bool = False) -> JudgeCall:
    return JudgeCall(
        key=f"key-{head}",
        question=Question(
            head=Quote(id=head, kind="plan", text="a plan"),
            premise=Quote(id="f", kind="fact", text="a fact"),
            premise_change="retracted",
        ),
        judge="test.v1",
        model="script",
        answer=None if answer is None else JudgeAnswer(still_holds=answer, reason="because"),
        error="timeout" if answer is None else None,
        attempts=0 if cached else 1,
        cached=cached,
    )


def test_a_commit_from_a_stale_head_writes_nothing(mem: Memory) -> None:
    store = sql_store(mem)
    stale = store.head()
    seen = captured_commit(mem, {"retract": ["f"]})
    assert seen["kwargs"]["expect_head"] == stale
    head = store.head()
    assert head[0] == stale[0] + 1
    with pytest.raises(ConcurrentChangeError) as err:
        store.commit(seen["revision"], seen["config"], expect_head=stale)
    assert err.value.attempts == 1
    assert err.value.path == store.path
    assert str(err.value) == (
        f"{store.path}: other writers committed during each of 1 attempts to revise; nothing "
        "was written: retry the change"
    )
    assert store.head() == head
    # without a head to expect, the commit is not checked: the entry is appended
    entry = store.commit(seen["revision"], seen["config"])
    assert (entry.seq, entry.prev_hash) == (head[0] + 1, head[1])
    assert store.head() == (entry.seq, entry.hash)


def test_the_log_keeps_the_change_as_asked_with_its_field_names(mem: Memory, place: Place) -> None:
    seen = captured_commit(mem, {"retract": ["f"]})
    asked = Change.model_validate({"retract": ["b"], "assert": [{"id": "h", "kind": "fact"}]})
    store = mem.store
    logged = store.commit(seen["revision"], seen["config"], asked=asked)
    change = json.loads(decode(place.log_row(logged.seq)["change"]))
    assert change == json.loads(asked.model_dump_json(by_alias=True))
    assert change["assert"][0]["id"] == "h" and "assert_" not in change
    # with nothing asked, the report's change is logged
    again = store.commit(seen["revision"], seen["config"])
    change = json.loads(decode(place.log_row(again.seq)["change"]))
    assert change["retract"] == ["f"]
    assert change["assert"] == [] and "assert_" not in change


def test_only_fresh_answers_are_cached(mem: Memory) -> None:
    seen = captured_commit(mem, {"retract": ["f"]})
    fresh, served, failed = call("b1", True), call("b2", False, cached=True), call("b3", None)
    entry = mem.store.commit(seen["revision"], seen["config"], [fresh, served, failed])
    assert entry.calls == (fresh, served, failed)
    keys = [fresh.key, served.key, failed.key]
    assert mem.store.cached_calls(keys) == {fresh.key: fresh}
    assert mem.store.history()[-1].calls == (fresh, served, failed)


@pytest.mark.parametrize("with_report", [True, False])
def test_append_returns_the_entry_the_log_reads_back(mem: Memory, with_report: bool) -> None:
    store = sql_store(mem)
    report = mem.history()[-1].report
    assert report is not None
    calls = [call("b1", True), call("b2", False)]
    with store.transaction():
        entry = store.append(
            report.change.model_dump_json(by_alias=True),
            report.model_dump_json(by_alias=True),
            {"max_depth": None, "note": "appended"},
            report if with_report else None,
            calls,
        )
    assert entry.calls == tuple(calls)
    assert entry.report == report
    assert store.head() == (entry.seq, entry.hash)
    assert entry == store.history()[-1]
    assert entry.prev_hash == store.history()[-2].hash


def test_a_bulk_load_summary_reads_back_as_a_summary(mem: Memory) -> None:
    store = sql_store(mem)
    with store.transaction():
        entry = store.append('{"bulk_load":true}', '{"bulk_load":{"states":2}}', {})
    assert (entry.report, entry.summary, entry.calls) == (None, {"states": 2}, ())
    assert entry == store.history()[-1]


@pytest.mark.citus(skip="checks the arguments before any statement runs: Citus adds nothing")
@pytest.mark.parametrize(
    ("limit", "since", "field", "problem"),
    [
        (-1, None, "limit", "must be None or >= 0"),
        (
            None,
            1.5,
            "since",
            "must be a sequence number, a datetime or an ISO 8601 string, not 1.5",
        ),
        (None, "soon", "since", "not a sequence number or an ISO 8601 time: 'soon'"),
    ],
)
def test_a_bad_limit_or_since_says_which_and_why(
    mem: Memory, limit: int | None, since: Any, field: str, problem: str
) -> None:
    with pytest.raises(InvalidInputError) as err:
        mem.store.history(limit, since)
    assert (err.value.what, err.value.errors) == ("history", [(field, problem)])
    assert str(err.value) == f"invalid history: {field}: {problem}"


def test_a_commit_reads_no_row_of_a_state_it_creates() -> None:
    """A new memory has no row, justification, edge into it or place in the queue yet: the
    commit's read for the digest asks for none of them (a dense memory has sixty-four
    justifications). Edges out of it may be stored already (an ``unless`` may cite a state
    before it exists) and are read."""
    from stategraph.engine.revise import Writes
    from stategraph.model import Justification, Report, State
    from stategraph.store.sqlite import _touched, justification_row

    new = State(id="n", kind="belief")
    added = [
        Justification(head="n", premises=("f",)),
        Justification(head="b", premises=("f",), unless=("n",)),
    ]
    writes = Writes(new_states=[new], added=added, follow=[(1, "f", "n"), (1, "n", "b")])
    report = Report(
        change=Change(), changed=(), entries=(), cone_size=0, solved=0, method="", max_depth=None
    )
    keys = _touched(writes, report, [justification_row(j) for j in added])
    assert keys.states == set()
    assert {k[0] for k in keys.justifications} == {"b"}
    assert keys.edges == {("f", "b"), ("n", "b")}


def test_edges_out_of_a_new_state_are_read_only_where_one_is_stored(tmp_path: Any) -> None:
    """A new state's edges to what cites it are new, unless a justification cited it before
    it existed (an ``unless``): then the stored edge is read for the digest, which still
    verifies after both."""
    mem = Memory(tmp_path / "m.db")
    mem.fact("f")
    mem.belief("b", because=[{"all": ["f"], "unless": ["g"]}])
    store = mem.store
    assert isinstance(store, SQLiteStore)

    def edge_reads(add: str) -> list[str]:
        seen: list[str] = []
        store.conn.set_trace_callback(seen.append)
        try:
            mem.revise(
                {
                    "assert": [{"id": add, "kind": "fact"}],
                    "add_justifications": [{"head": "b", "premises": [add]}],
                }
            )
        finally:
            store.conn.set_trace_callback(None)
        return [s for s in seen if "JOIN edges" in s]

    assert not any("'n'" in s for s in edge_reads("n"))  # nothing cited n: nothing to read
    assert any("'g'" in s for s in edge_reads("g"))  # b's unless did: its edge is read
    assert store.verify(deep=True) > 0
