"""Tamper evidence (issue 14, item 5): every column of a log row is under the hash, the stored
links are checked, a head kept elsewhere catches entries removed from the end, and a failed
verification makes the store refuse writes until someone acknowledges it. On both backends.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from backends import Place

from stategraph import Memory
from stategraph.errors import LogIntegrityError, TamperedStoreError

from .logged import (
    BIG_REPORT,
    BULK,
    LAST,
    TEXT_REPORT,
    WITH_CALLS,
    decode,
    encode_like,
    row,
    rows,
    update,
)


@pytest.fixture
def store_path(logged_path: Place) -> Place:
    return logged_path


def verify(path: Place, expect_head: tuple[int, str] | None = None) -> int:
    store = path.open()
    try:
        return store.verify(expect_head) if expect_head else store.verify()
    finally:
        store.close()


def breaks_of(path: Place, expect_head: tuple[int, str] | None = None) -> LogIntegrityError:
    with pytest.raises(LogIntegrityError) as err:
        verify(path, expect_head)
    return err.value


def edit_json(stored: Any, change: Callable[[Any], None]) -> Any:
    """A stored JSON column with one value changed, stored as it was (text or compressed)."""
    data = json.loads(decode(stored))
    change(data)
    return encode_like(stored, json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def other_at(stored: str) -> str:
    """The same time a microsecond later: still a well-formed timestamp."""
    last = stored[-7]  # ...ss.ffffff+00:00: the last digit of the microseconds
    return stored[:-7] + str((int(last) + 1) % 10) + stored[-6:]


def tamperings(path: Place, seq: int) -> dict[str, dict[str, Any]]:
    """For each column, a plausible edit of entry ``seq``: the new values of the columns."""
    r = row(path, seq)

    def another_id(data: Any) -> None:
        if "bulk_load" in data:
            data["bulk_load"]["holding"] += 1
        else:
            data["changed"][0]["id"] = "mX"

    def another_change(data: Any) -> None:
        data["retract"] = [*data.get("retract", []), "mX"]

    def another_config(data: Any) -> None:
        data["max_depth"] = 5

    def another_answer(data: Any) -> None:
        data[0]["answer"]["still_holds"] = True

    forged_call = json.dumps([json.loads(decode(row(path, WITH_CALLS)["calls"]))[0]])
    edits: dict[str, dict[str, Any]] = {
        "seq": {"seq": seq + 100},
        "at": {"at": other_at(r["at"])},
        "change": {"change": edit_json(r["change"], another_change)},
        "report": {"report": edit_json(r["report"], another_id)},
        "config": {"config": edit_json(r["config"], another_config)},
        "prev_hash": {"prev_hash": hashlib.sha256(b"another entry").hexdigest()},
        "hash": {"hash": hashlib.sha256(b"another hash").hexdigest()},
        "calls": {"calls": edit_json(r["calls"], another_answer) if r["calls"] else forged_call},
    }
    return edits


CASES = [
    (seq, column)
    for seq in (BULK, TEXT_REPORT, WITH_CALLS, BIG_REPORT, LAST)
    for column in ("seq", "at", "change", "report", "config", "prev_hash", "hash", "calls")
]


@pytest.mark.parametrize(("seq", "column"), CASES, ids=[f"{c}-of-{s}" for s, c in CASES])
def test_an_edit_of_any_column_of_any_entry_is_named(
    store_path: Place, seq: int, column: str
) -> None:
    assert verify(store_path) == LAST
    update(store_path, seq, **tamperings(store_path, seq)[column])
    err = breaks_of(store_path)
    assert err.seq == seq, err.breaks
    assert f"revision log entry {seq} " in str(err)


@pytest.mark.parametrize("seq", [WITH_CALLS, BIG_REPORT])
def test_a_damaged_compressed_column_is_a_break_not_a_crash(store_path: Place, seq: int) -> None:
    stored = row(store_path, seq)["report"]
    assert isinstance(stored, bytes)
    for damaged in (stored[:1] + bytes([stored[1] ^ 0xFF]) + stored[2:], b"\x09" + stored[1:]):
        update(store_path, seq, report=damaged)
        err = breaks_of(store_path)
        assert err.seq == seq and "column" in err.reason, err.reason
        with Memory(store=store_path.open()) as mem, pytest.raises(LogIntegrityError):
            mem.history()
        store_path.clear_tamper_flags()


def test_shifting_columns_through_a_unit_separator_is_caught(store_path: Place) -> None:
    """The hash joins the columns with 0x1f. Moving every column boundary one place (``at``
    swallowing ``change``, the optional ``calls`` left empty) hashes the same bytes: before,
    such an entry verified and then read back as nonsense."""
    r = row(store_path, WITH_CALLS)
    update(
        store_path,
        WITH_CALLS,
        at=r["at"] + "\x1f" + decode(r["change"]),
        change=decode(r["report"]),
        report=r["config"],
        config=decode(r["calls"]),
        calls="",
    )
    err = breaks_of(store_path)
    assert err.seq == WITH_CALLS and "shifted" in err.reason


def test_every_break_is_named_not_only_the_first(store_path: Place) -> None:
    update(store_path, TEXT_REPORT, **tamperings(store_path, TEXT_REPORT)["config"])
    update(store_path, BIG_REPORT, **tamperings(store_path, BIG_REPORT)["report"])
    err = breaks_of(store_path)
    assert [seq for seq, _ in err.breaks] == [TEXT_REPORT, BIG_REPORT]
    assert "1 more after it" in str(err)


def test_entries_removed_from_the_middle_or_the_start_are_named(store_path: Place) -> None:
    store_path.delete_log([3, 4])
    err = breaks_of(store_path)
    assert err.breaks[0] == (3, "is missing (entries 3 to 4 were removed)")
    store_path.clear_tamper_flags()
    store_path.delete_log([1])
    assert breaks_of(store_path).seq == 1


def test_the_head_catches_entries_removed_from_the_end(store_path: Place) -> None:
    """Before: deleting the last rows left a chain that verified."""
    with Memory(store=store_path.open()) as mem:
        head = mem.store.head()
    assert head == (LAST, rows(store_path)[-1]["hash"])
    store_path.delete_log([LAST - 1, LAST])
    assert verify(store_path) == LAST - 2  # the chain alone cannot see it
    err = breaks_of(store_path, expect_head=head)
    assert err.seq == LAST - 1
    assert f"the log ends at entry {LAST - 2}, but the head given is entry {LAST}" in err.reason


def test_the_head_catches_a_rewritten_chain(store_path: Place) -> None:
    """Someone who edits an entry and recomputes every hash after it leaves a chain that
    verifies; the head taken before no longer matches."""
    store = store_path.open()
    head = store.head()
    store.close()
    prev = row(store_path, TEXT_REPORT - 1)["hash"]
    for seq in range(TEXT_REPORT, LAST + 1):
        r = row(store_path, seq)
        if seq == TEXT_REPORT:
            r["config"] = tamperings(store_path, seq)["config"]["config"]
        texts = [decode(r[c]) for c in ("at", "change", "report", "config")]
        digest = spec_hash(prev, seq, *texts, decode(r["calls"]))
        update(store_path, seq, config=r["config"], prev_hash=prev, hash=digest)
        prev = digest
    assert verify(store_path) == LAST
    err = breaks_of(store_path, expect_head=head)
    assert err.seq == LAST and "head given" in err.reason


def test_a_head_from_before_later_entries_still_verifies(store_path: Place) -> None:
    store = store_path.open()
    head = store.head()
    with Memory(store=store) as mem:
        mem.fact("later")
        assert mem.store.verify(expect_head=head) == LAST + 1
        assert mem.store.verify(expect_head=(0, "0" * 64)) == LAST + 1
        with pytest.raises(LogIntegrityError, match="head given"):
            mem.store.verify(expect_head=(head[0], "f" * 64))


def test_after_a_failed_verification_the_store_refuses_writes_until_acknowledged(
    store_path: Place,
) -> None:
    """Before: writes went on over a log that had just failed to verify."""
    update(store_path, TEXT_REPORT, **tamperings(store_path, TEXT_REPORT)["report"])
    with Memory.open(store_path.url) as mem, pytest.raises(LogIntegrityError):
        mem.verify_log()
    log_before = rows(store_path)
    with Memory.open(store_path.url) as mem:  # another process, later: still refused
        writes: dict[str, Callable[[], object]] = {
            "add": lambda: mem.fact("x"),
            "revise": lambda: mem.retract("f2"),
            "bulk load": lambda: mem.bulk_load([{"id": "n", "kind": "fact"}], []),
            "setting": lambda: mem.store.set_setting("rules", []),
        }
        for what, write in writes.items():
            with pytest.raises(TamperedStoreError) as err:
                write()
            assert err.value.seq == TEXT_REPORT, what
            assert err.value.path == mem.store.path, what  # type: ignore[attr-defined]
            assert str(err.value).startswith(f"{mem.store.path}: "), what  # type: ignore[attr-defined]
            assert "acknowledge_tamper" in str(err.value)
        assert mem.holding() >= {"f2", "m9"}  # reading goes on
        assert mem.history()[-1].seq == LAST
    assert rows(store_path) == log_before

    store = store_path.open()
    acknowledged = store.acknowledge_tamper()
    assert [seq for seq, _ in acknowledged] == [TEXT_REPORT]
    assert store.acknowledge_tamper() == []
    with Memory(store=store) as mem:
        mem.fact("x")
        with pytest.raises(LogIntegrityError) as still:  # the evidence stays
            mem.verify_log()
        assert still.value.seq == TEXT_REPORT
        mem.fact("y")  # an acknowledged break does not refuse writes again

        update(store_path, LAST, **tamperings(store_path, LAST)["at"])
        with pytest.raises(LogIntegrityError) as new:
            mem.verify_log()
        assert [seq for seq, _ in new.value.breaks] == [TEXT_REPORT, LAST]
        with pytest.raises(TamperedStoreError) as refused:  # a new break refuses them again
            mem.fact("z")
        assert refused.value.breaks == new.value.breaks


def test_an_entry_rewritten_with_its_own_hash_is_caught_by_the_next_link(
    store_path: Place,
) -> None:
    """An edited entry whose own hash was recomputed verifies on its own; the entry after it
    still names the old hash as its ``prev_hash``."""
    r = row(store_path, TEXT_REPORT)
    edited = tamperings(store_path, TEXT_REPORT)["config"]["config"]
    texts = [decode(r[c]) for c in ("at", "change", "report")]
    digest = spec_hash(r["prev_hash"], TEXT_REPORT, *texts, edited, decode(r["calls"]))
    update(store_path, TEXT_REPORT, config=edited, hash=digest)
    err = breaks_of(store_path)
    assert err.breaks == [(TEXT_REPORT + 1, err.reason)] and "does not link" in err.reason


def spec_hash(*parts: object) -> str:
    """The documented hash of an entry, written out here independently of ``revlog.chain``:
    SHA-256 over prev_hash, seq, at, change, report, config and, when not empty, calls, each
    as UTF-8 followed by 0x1f."""
    *fixed, calls = (str(p) for p in parts)
    data = b"".join(p.encode("utf-8") + b"\x1f" for p in (*fixed, *([calls] if calls else [])))
    return hashlib.sha256(data).hexdigest()


def test_every_stored_hash_is_the_documented_one(store_path: Place) -> None:
    """Pins the format: stores written before and after this version verify the same way."""
    prev = "0" * 64
    for r in rows(store_path):
        texts = [decode(r[c]) for c in ("at", "change", "report", "config", "calls")]
        assert r["prev_hash"] == prev
        assert r["hash"] == spec_hash(prev, r["seq"], *texts)
        prev = r["hash"]
