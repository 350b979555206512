"""Reading the log in parts (issue 14 item 6, issue 13 item 5): ``history(limit, since)`` and
``iter_history``, which reads and decodes one entry at a time; on both backends."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest
from backends import Place

from stategraph import Memory
from stategraph.errors import InvalidInputError, LogIntegrityError
from stategraph.store.sqlite import _MAX_SEQ as MAX_SEQ
from stategraph.store.sqlite import LogEntry, SQLiteStore

from .logged import LAST, row, update

pytestmark = pytest.mark.citus  # the backend tests also run on Citus (tests/backends.py)


@pytest.fixture
def logged(logged_path: Place) -> Place:
    return logged_path


@pytest.fixture
def store(logged: Place) -> Iterator[SQLiteStore]:
    store = logged.open()
    yield store
    store.close()


def seqs(entries: Iterable[LogEntry]) -> list[int]:
    return [e.seq for e in entries]


def test_limit_and_since_select_a_part_of_the_log_oldest_first(store: SQLiteStore) -> None:
    everything = list(range(1, LAST + 1))
    assert seqs(store.history()) == everything
    assert seqs(store.history(limit=2)) == [LAST - 1, LAST]
    assert seqs(store.history(limit=LAST + 10)) == everything
    assert seqs(store.history(limit=0)) == []
    assert seqs(store.history(since=5)) == [6, 7]
    assert seqs(store.history(since=2, limit=3)) == [5, 6, 7]
    assert seqs(store.history(since=store.head()[0])) == []
    assert seqs(store.history(since=0)) == everything
    assert store.history() == list(store.iter_history())


def test_since_a_time_starts_at_the_first_entry_committed_then(
    store: SQLiteStore, logged: Place
) -> None:
    at = datetime.fromisoformat(row(logged, 4)["at"])
    assert seqs(store.history(since=at)) == [4, 5, 6, 7]
    assert seqs(store.history(since=at + timedelta(microseconds=1))) == [5, 6, 7]
    naive = at.astimezone(UTC).replace(tzinfo=None)  # read as UTC
    assert seqs(store.history(since=naive.isoformat())) == [4, 5, 6, 7]
    in_tokyo = at.astimezone(timezone(timedelta(hours=9))).isoformat()
    assert seqs(store.history(since=in_tokyo)) == [4, 5, 6, 7]
    assert seqs(store.history(since=at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), limit=1)) == [7]


@pytest.mark.citus(skip="checks the arguments before any statement runs: Citus adds nothing")
@pytest.mark.parametrize(
    ("limit", "since"), [(-1, None), (None, "last tuesday"), (None, 1.5), (None, True)]
)
def test_a_bad_limit_or_since_is_refused_when_asked(
    store: SQLiteStore, limit: int | None, since: object
) -> None:
    with pytest.raises(InvalidInputError):
        store.iter_history(limit, since)  # type: ignore[arg-type]


@pytest.mark.citus(skip="checks the arguments before any statement runs: Citus adds nothing")
def test_since_a_sequence_number_given_as_digits_reads_as_that_number(store: SQLiteStore) -> None:
    """The command line and the HTTP API pass ``since`` as text: digits are a sequence number,
    up to the largest one a store can hold, in either form; a negative one is before all."""
    assert seqs(store.history(since="5")) == [6, 7]
    assert seqs(store.history(since="0")) == list(range(1, LAST + 1))
    assert seqs(store.history(since=str(MAX_SEQ))) == []
    assert seqs(store.history(since=MAX_SEQ)) == []
    assert seqs(store.history(since=-MAX_SEQ)) == list(range(1, LAST + 1))


@pytest.mark.citus(skip="checks the arguments before any statement runs: Citus adds nothing")
@pytest.mark.parametrize(
    ("since", "says"),
    [
        (str(MAX_SEQ + 1), "at most 9223372036854775807, not 9223372036854775808..."),
        ("9" * 20, "at most 9223372036854775807, not 99999999999999999999..."),
        ("9" * 5_000, f"at most 9223372036854775807, not {'9' * 24}..."),
        (MAX_SEQ + 1, "at most 9223372036854775807 in size"),
        (-MAX_SEQ - 1, "at most 9223372036854775807 in size"),
        ("last tuesday", "not a sequence number or an ISO 8601 time: 'last tuesday'"),
        (1.5, "must be a sequence number, a datetime or an ISO 8601 string, not 1.5"),
        (True, "must be a sequence number, a datetime or an ISO 8601 string, not True"),
    ],
)
def test_a_since_out_of_range_is_refused_naming_it(
    store: SQLiteStore, since: object, says: str
) -> None:
    """Refused here, before the database driver sees it (which failed with an overflow, or on
    Python's digit limit): an error naming ``since`` that quotes at most 24 of its digits."""
    with pytest.raises(InvalidInputError) as caught:
        store.history(since=since)  # type: ignore[arg-type]
    assert caught.value.what == "history"
    [(field, problem)] = caught.value.errors
    assert field == "since"
    assert problem.endswith(says)
    assert len(problem) < 120


def test_entries_are_read_one_at_a_time(store: SQLiteStore, logged: Place) -> None:
    """A damaged last entry does not keep the ones before it from being read (before: the
    whole log was decoded before the first entry was returned)."""
    update(logged, LAST, report=b"\x01not zlib at all")
    entries = store.iter_history()
    assert seqs(next(entries) for _ in range(LAST - 1)) == list(range(1, LAST))
    with pytest.raises(LogIntegrityError) as err:
        next(entries)
    assert err.value.seq == LAST


def test_writing_while_iterating_ends_at_the_head_it_started_from(store: SQLiteStore) -> None:
    with Memory(store=store) as mem:
        for e in store.iter_history():
            mem.fact(f"seen{e.seq}")
        assert store.head()[0] == 2 * LAST


@pytest.mark.citus(skip="five bulk loads of 2,000 rows take about 70 s on Citus: too long for CI")
def test_iterating_holds_one_report_at_a_time(place: Place) -> None:
    """Five hub revisions: walking the log with ``iter_history`` peaks at about one report,
    ``history()`` at all five."""
    with Memory.open(place.url) as mem:
        for k in range(5):
            mem.bulk_load(
                [{"id": f"h{k}", "kind": "fact"}]
                + [{"id": f"b{k}_{i}", "kind": "belief"} for i in range(2000)],
                [{"head": f"b{k}_{i}", "premises": [f"h{k}"]} for i in range(2000)],
            )
            mem.retract(f"h{k}")
    store = place.open()

    def peak(walk: Callable[[], object]) -> int:
        tracemalloc.start()
        try:
            walk()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    def stream() -> None:
        for e in store.iter_history():
            assert e.seq > 0

    whole = peak(store.history)
    streamed = peak(stream)
    assert streamed * 3 < whole, (streamed, whole)
    store.close()
