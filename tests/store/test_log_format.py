"""The log's format functions (:mod:`stategraph.revlog`) on their own: the exact words of
every break, the head check at the edges of a log or of a part of one, and how a column is
packed and unpacked. The mutation run found these untested (``scripts/mutation.sh``): a
reason reworded, a head check dropped at the genesis, a BLOB of the wrong format read anyway.
"""

from __future__ import annotations

import os
import sqlite3
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.errors import InvalidInputError, LogIntegrityError
from stategraph.store.revlog import (
    COMPACT_MIN,
    GENESIS,
    ZLIB,
    UnreadableColumn,
    chain,
    entry,
    find_breaks,
    pack,
    unpack,
)

AT = "2026-01-01T00:00:00.000000+00:00"
CONFIG = '{"max_depth":null}'
REPORT = Memory().fact("f").model_dump_json(by_alias=True)


def rows(n: int, start: tuple[int, str] = (0, GENESIS)) -> list[tuple[object, ...]]:
    """``n`` well-formed rows after ``start``, each linking to the one before."""
    out: list[tuple[object, ...]] = []
    seq, prev = start
    for _ in range(n):
        seq += 1
        digest = chain(prev, seq, AT, "{}", REPORT, CONFIG, "")
        out.append((seq, AT, "{}", REPORT, CONFIG, prev, digest, ""))
        prev = digest
    return out


def reasons(found: list[tuple[object, ...]], **kwargs: object) -> list[tuple[int, str]]:
    count, breaks = find_breaks(found, **kwargs)  # type: ignore[arg-type]
    assert count == len(found)
    return [b.pair() for b in breaks]


def test_a_sound_log_has_no_break() -> None:
    log = rows(3)
    assert reasons(log) == []
    assert reasons(log, expect_head=(3, log[-1][6])) == []


@pytest.mark.parametrize(
    ("column", "value", "reason"),
    [
        (1, 7, "has a column that is not text"),
        (6, "0" * 63, "has a malformed hash"),
        (
            2,
            b"\x02x",
            "has a column that uses storage format 0x02, which this stategraph does not "
            "read: upgrade it",
        ),
        (4, '{"max_depth":1}', "does not match its hash (a column was altered)"),
        (1, AT + "\x1f", "has a unit separator (0x1f) in a column: its columns were shifted"),
    ],
)
def test_each_kind_of_damage_is_named_in_its_own_words(
    column: int, value: object, reason: str
) -> None:
    log = rows(2)
    row = list(log[1])
    row[column] = value
    log[1] = tuple(row)
    assert reasons(log) == [(2, reason)]


def test_a_broken_link_and_removed_entries_are_named() -> None:
    log = rows(6)
    relinked = list(log[1])
    relinked[5] = "f" * 64
    relinked[6] = chain("f" * 64, 2, AT, "{}", REPORT, CONFIG, "")
    assert reasons([log[0], tuple(relinked), *log[2:]]) == [
        (2, "does not link to the entry before it (prev_hash differs)"),
        (3, "does not link to the entry before it (prev_hash differs)"),
    ]
    assert reasons([log[0], *log[2:]]) == [(2, "is missing (entries 2 were removed)")]
    assert reasons([log[0], *log[4:]]) == [(2, "is missing (entries 2 to 4 were removed)")]


def test_the_head_given_is_checked_at_the_genesis_and_past_the_end() -> None:
    assert reasons([], expect_head=(0, GENESIS)) == []
    assert reasons([], expect_head=(0, "1" * 64)) == [
        (0, "is not the entry of the head given (its hash differs)")
    ]
    log = rows(2)
    assert reasons(log, expect_head=(2, "1" * 64)) == [
        (2, "is not the entry of the head given (its hash differs)")
    ]
    assert reasons(log, expect_head=(4, "1" * 64)) == [
        (
            3,
            "is missing: the log ends at entry 2, but the head given is entry 4 (entries were "
            "removed from the end)",
        )
    ]


def test_a_part_of_a_log_checks_the_head_only_where_it_can() -> None:
    """An export ``--since 5`` starts after entry 5: a head at 5 is checked against the
    entry the part follows; a head before that cannot be, and is not a break."""
    before = (5, "a" * 64)
    part = rows(2, before)
    assert reasons(part, start=before) == []
    assert reasons(part, start=before, expect_head=(5, "a" * 64)) == []
    assert reasons(part, start=before, expect_head=(5, "b" * 64)) == [
        (5, "is not the entry of the head given (its hash differs)")
    ]
    assert reasons(part, start=before, expect_head=(3, "b" * 64)) == []


def test_no_calls_hash_and_read_as_empty_calls() -> None:
    assert chain(GENESIS, 1, AT, "{}", REPORT, CONFIG) == chain(
        GENESIS, 1, AT, "{}", REPORT, CONFIG, ""
    )
    read = entry(1, AT, REPORT, CONFIG, GENESIS, "0" * 64)
    assert read.calls == () and read.report is not None and read.summary is None


def test_a_bulk_load_entry_reads_as_its_summary() -> None:
    mem = Memory()
    summary = mem.bulk_load([{"id": "f", "kind": "fact"}])
    (logged,) = mem.history()
    assert logged.report is None and logged.summary == summary


def test_short_texts_stay_text_and_long_ones_are_compressed() -> None:
    assert pack("x" * (COMPACT_MIN - 1)) == "x" * (COMPACT_MIN - 1)
    packed = pack("x" * COMPACT_MIN)
    assert isinstance(packed, bytes) and packed[0] == ZLIB
    assert unpack(packed) == "x" * COMPACT_MIN


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (7, "holds a int, not text or a known BLOB"),
        (b"", "holds a bytes, not text or a known BLOB"),
        (None, "holds a NoneType, not text or a known BLOB"),
        (b"\x09abc", "uses storage format 0x09, which this stategraph does not read: upgrade it"),
    ],
)
def test_an_unreadable_column_says_what_it_holds(value: object, words: str) -> None:
    with pytest.raises(UnreadableColumn) as caught:
        unpack(value)
    assert str(caught.value) == words


def test_a_damaged_blob_says_it_cannot_be_decompressed() -> None:
    with pytest.raises(UnreadableColumn, match=r"^cannot be decompressed \(Error -3"):
        unpack(bytes((ZLIB,)) + b"garbage")


def test_a_store_names_itself_and_the_entry_a_damaged_column_is_in(tmp_path: Path) -> None:
    """history() over a column it cannot read, and verify() over a broken chain, raise a
    LogIntegrityError carrying the store's path, the entry and the reason."""
    path = str(tmp_path / "memory.db")
    with Memory(path) as mem:
        mem.fact("f")
        mem.fact("g")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE revisions SET report = ? WHERE seq = 2", (b"\x02x",))
    with Memory(path) as mem:
        with pytest.raises(LogIntegrityError) as read:
            mem.history()
        words = "has a column that uses storage format 0x02, which this stategraph does not read"
        assert (read.value.path, read.value.seq) == (path, 2)
        assert read.value.reason == words + ": upgrade it"
        with pytest.raises(LogIntegrityError) as verified:
            mem.verify_log()
        assert (verified.value.path, verified.value.breaks) == (path, [(2, words + ": upgrade it")])


def test_a_history_from_a_time_that_is_not_one_says_so() -> None:
    with pytest.raises(InvalidInputError) as caught:
        Memory().history(since="yesterday")
    assert caught.value.what == "history"
    assert caught.value.errors == [
        ("since", "not a sequence number or an ISO 8601 time: 'yesterday'")
    ]


def test_a_history_of_a_negative_length_or_from_a_number_that_is_no_seq_says_so() -> None:
    mem = Memory()
    with pytest.raises(InvalidInputError) as caught:
        mem.history(limit=-1)
    assert (caught.value.what, caught.value.errors) == (
        "history",
        [("limit", "must be None or >= 0")],
    )
    with pytest.raises(InvalidInputError) as caught:
        mem.history(since=2.5)  # type: ignore[arg-type]
    assert (caught.value.what, caught.value.errors) == (
        "history",
        [("since", "must be a sequence number, a datetime or an ISO 8601 string, not 2.5")],
    )


def test_a_time_without_a_zone_is_utc_wherever_the_store_is_read() -> None:
    """Entries are stamped in UTC; a time given without a zone means UTC, and an aware one is
    compared in UTC, even where the machine's own zone is eight hours ahead."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Shanghai"
    time.tzset()
    try:
        mem = Memory()
        for f in ("a", "b", "c"):
            mem.fact(f)
        second = datetime.fromisoformat(mem.history()[1].at)
        naive = second.replace(tzinfo=None)
        assert [e.seq for e in mem.history(since=naive)] == [2, 3]
        local = second.astimezone(timezone(timedelta(hours=8)))
        assert [e.seq for e in mem.history(since=local)] == [2, 3]
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()
