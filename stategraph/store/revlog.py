"""The revision log's format: its entries, the hash chain over them, and how rows are stored.

A log row is ``(seq, at, change, report, config, prev_hash, hash, calls)``. ``change`` is the
change as the caller gave it (what ``stategraph audit verify`` replays), and the report's own
``change`` the change as applied, after grounding, rule links, candidates and the judge
completed it; rows written before this distinction hold the applied change in both. Two things
are kept apart on purpose:

- **What is hashed** is always the canonical text: :func:`chain` runs SHA-256 over
  ``prev_hash``, ``seq``, ``at``, and the JSON of ``change``, ``report`` and ``config`` (and of
  ``calls`` when there are any, so entries from before judge calls were logged keep their
  hashes), each followed by the unit separator ``0x1f``. So the hash does not depend on how a
  row happens to be stored, and a log verifies the same whatever mix of storage it holds.
- **What is stored** is compact: a ``change``, ``report`` or ``calls`` text of
  :data:`COMPACT_MIN` characters or more is written as a BLOB, one format byte
  (:data:`ZLIB`) then the zlib-compressed UTF-8 (:func:`pack`). A hub revision's report of many
  megabytes of repetitive JSON shrinks about tenfold, and so does the write-ahead log it costs.
  Shorter texts (most revisions' are a few hundred bytes) stay TEXT, readable with the
  ``sqlite3`` shell, where compressing would save a few hundred bytes for a zlib call each.
  Rows written before schema 4 are TEXT whatever their size, and are read as they are: nothing
  is rewritten.

Verification (:func:`find_breaks`) walks the rows once, oldest first, and names *every* entry
that does not verify (not only the first), so that an acknowledged break does not hide a later
one.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from stategraph.errors import InvalidInputError
from stategraph.judge.base import JudgeCall
from stategraph.model import Report

__all__ = [
    "COMPACT_MIN",
    "EARLIEST",
    "GENESIS",
    "LATEST",
    "MAX_SEQ",
    "ZLIB",
    "Break",
    "LogEntry",
    "UnreadableColumn",
    "chain",
    "check_head",
    "entry",
    "find_breaks",
    "pack",
    "unpack",
    "utc",
]

GENESIS = "0" * 64
"""The ``prev_hash`` of the first entry, and the head of an empty log."""

EARLIEST = datetime.min.replace(tzinfo=UTC)
LATEST = datetime.max.replace(tzinfo=UTC)
"""The first and last times a log's ``at`` can hold (it is written in UTC)."""


def utc(when: datetime, what: str, field: str) -> datetime:
    """``when`` in UTC, as a log's ``at`` is written (a time with no zone is taken as UTC).

    Raises:
        InvalidInputError: about ``what``, naming ``field``, when its UTC falls outside
            :data:`EARLIEST` to :data:`LATEST` (``0001-01-01T00:00:00+14:00`` is in year 0),
            with that range.
    """
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    try:
        return when.astimezone(UTC)
    except OverflowError:
        problem = (
            f"{when.isoformat()} is outside the times a log can hold: give one from "
            f"{EARLIEST.isoformat()} to {LATEST.isoformat()} (in UTC)"
        )
        raise InvalidInputError(what, [(field, problem)]) from None


COMPACT_MIN = 1024
"""Texts shorter than this (in characters) are stored as TEXT, longer ones compressed."""

ZLIB = 0x01
"""Format byte of a BLOB column: zlib (RFC 1950) of the UTF-8 text."""

_LEVEL = 6
"""zlib's default. On a hub revision's 33 MB report: 46x smaller in 0.15 s; level 9 is 12%
smaller again but takes 0.39 s, level 1 takes 0.07 s and is 26% larger (tests/store/
measure_log.py, 2-core machine)."""
_BULK = '{"bulk_load":'

_SEPARATOR = "\x1f"
_HEX64 = re.compile(r"[0-9a-f]{64}")


class LogEntry(BaseModel):
    """One revision in the append-only log."""

    model_config = ConfigDict(frozen=True)

    seq: int
    at: str
    """UTC time the revision was committed (ISO 8601); not part of the report itself."""
    report: Report | None
    """The revision's report; None for a bulk load (see ``summary``)."""
    summary: dict[str, Any] | None = None
    """For a bulk load: how many states and justifications, and a digest of them."""
    config: dict[str, Any]
    prev_hash: str
    hash: str
    calls: tuple[JudgeCall, ...] = ()
    """The judge calls the revision made or served from the cache, in the order asked."""


class UnreadableColumn(ValueError):
    """A stored column is neither text nor a BLOB in a format this version reads."""


def chain(
    prev_hash: str, seq: int, at: str, change: str, report: str, config: str, calls: str = ""
) -> str:
    """The hash of one log entry, over every column and the previous hash.

    ``calls`` joins the hash only when there are any, so entries written before judge calls
    were logged keep their hashes.
    """
    h = hashlib.sha256()
    parts = (prev_hash, str(seq), at, change, report, config) + ((calls,) if calls else ())
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()


def pack(text: str) -> str | bytes:
    """How a ``change``, ``report`` or ``calls`` text is stored: itself if short, else
    :data:`ZLIB` and its compressed UTF-8 (or itself, if that would not be smaller)."""
    if len(text) < COMPACT_MIN:
        return text
    raw = text.encode("utf-8")
    packed = bytes((ZLIB,)) + zlib.compress(raw, _LEVEL)
    return packed if len(packed) < len(raw) else text


def unpack(value: object) -> str:
    """The text a stored column holds (the inverse of :func:`pack`, and TEXT as it is).

    Raises:
        UnreadableColumn: the value is of another type, an unknown format, or damaged.
    """
    if isinstance(value, str):
        return value
    if not isinstance(value, bytes) or not value:
        raise UnreadableColumn(f"holds a {type(value).__name__}, not text or a known BLOB")
    if value[0] != ZLIB:
        raise UnreadableColumn(
            f"uses storage format {value[0]:#04x}, which this stategraph does not read: upgrade it"
        )
    try:
        return zlib.decompress(value[1:]).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise UnreadableColumn(f"cannot be decompressed ({exc})") from exc


def entry(
    seq: int, at: str, report: str, config: str, prev: str, digest: str, calls: str = ""
) -> LogEntry:
    """A log entry from its canonical texts (unpacked)."""
    if report.startswith(_BULK):  # written by canonical_json: no space, this key only
        bulk, parsed = json.loads(report)["bulk_load"], None
    else:  # straight from the text: a fifth faster than through json.loads on a hub report
        bulk, parsed = None, Report.model_validate_json(report)
    return LogEntry(
        seq=seq,
        at=at,
        report=parsed,
        summary=bulk,
        config=json.loads(config),
        prev_hash=prev,
        hash=digest,
        calls=tuple(JudgeCall.model_validate(c) for c in json.loads(calls)) if calls else (),
    )


@dataclass(frozen=True)
class Break:
    """One place where the log does not verify.

    Attributes:
        seq: the entry concerned (for removed entries, the first one missing).
        reason: what is wrong, in words that complete "revision log entry N ...".
    """

    seq: int
    reason: str
    given: bool = False
    """Found against a head the caller gave, not in the log itself (which verifies): an
    answer about that head, never evidence of tampering (anyone may give any head)."""

    def pair(self) -> tuple[int, str]:
        """``(seq, reason)``, as errors and the store's ``meta`` table carry it."""
        return (self.seq, self.reason)


Row = tuple[Any, Any, Any, Any, Any, Any, Any, Any]
"""A ``revisions`` row as stored: seq, at, change, report, config, prev_hash, hash, calls."""


MAX_SEQ = (1 << 63) - 1
"""The largest sequence number a log can hold (SQLite's and PostgreSQL's 64-bit integer)."""

_HASH = re.compile("[0-9a-f]{64}")


def check_head(head: object) -> tuple[int, str]:
    """A head given to check a log against, as :meth:`SQLiteStore.head
    <stategraph.store.SQLiteStore.head>` gives one: a sequence number from 0 (the empty log's)
    to :data:`MAX_SEQ`, and a SHA-256 in lower-case hex.

    No log has any other head, so no other is ever "reached": ``(-1, h)`` was, since no entry
    has that number to differ from it, and any hash then verified.

    Raises:
        InvalidInputError: naming what is wrong with it.
    """
    seq, digest = head if isinstance(head, tuple) and len(head) == 2 else (None, None)
    problems: list[tuple[str, str]] = []
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        problems.append(("seq", f"a head's sequence number is 0 to {MAX_SEQ}, not {seq!r:.40}"))
    if not isinstance(digest, str) or _HASH.fullmatch(digest) is None:
        problems.append(("hash", f"a head's hash is 64 lower-case hex digits, not {digest!r:.80}"))
    if problems:
        raise InvalidInputError("head", problems)
    assert isinstance(seq, int) and isinstance(digest, str)
    return seq, digest


def find_breaks(
    rows: Iterable[Row],
    expect_head: tuple[int, str] | None = None,
    start: tuple[int, str] = (0, GENESIS),
) -> tuple[int, list[Break]]:
    """Walk the log's rows (in ``seq`` order) and say where it does not verify.

    Each row is checked on its own (its columns against its hash) and against the row before
    it (consecutive ``seq``, ``prev_hash`` equal to that row's stored ``hash``), so one edited
    row is named once, and the walk goes on to find any later one.

    Args:
        rows: the stored rows, oldest first.
        expect_head: a head ``(seq, hash)`` taken earlier (:meth:`SQLiteStore.head`): the log
            must still reach that entry with that hash; this is what catches entries removed
            from the end, which leave no gap behind.
        start: the entry the rows follow, ``(seq, hash)``: the genesis for a whole log; for
            a part of one (an export ``--since``), the entry before its first row.

    Returns:
        How many rows there are, and the breaks found, in log order.
    """
    if expect_head is not None:
        expect_head = check_head(expect_head)
    breaks: list[Break] = []
    (last_seq, last_hash), count = start, 0
    head_hash = last_hash if expect_head is not None and expect_head[0] == last_seq else None
    for row in rows:
        seq, digest = row[0], row[6]
        count += 1
        if seq != last_seq + 1:
            gone = f"{last_seq + 1}" if seq == last_seq + 2 else f"{last_seq + 1} to {seq - 1}"
            breaks.append(Break(last_seq + 1, f"is missing (entries {gone} were removed)"))
        elif row[5] != last_hash:
            breaks.append(Break(seq, "does not link to the entry before it (prev_hash differs)"))
        problem = _check_row(row)
        if problem:
            breaks.append(Break(seq, problem))
        if expect_head is not None and seq == expect_head[0]:
            head_hash = digest
        last_seq, last_hash = seq, digest
    if expect_head is not None:
        seq, digest = expect_head
        if seq > last_seq:
            breaks.append(
                Break(
                    last_seq + 1,
                    f"is missing: the log ends at entry {last_seq}, but the head given is entry "
                    f"{seq} (entries were removed from the end)",
                    given=True,
                )
            )
        elif head_hash is not None and head_hash != digest:
            breaks.append(
                Break(seq, "is not the entry of the head given (its hash differs)", given=True)
            )
    return count, breaks


def _check_row(row: Row) -> str:
    """What is wrong with one row on its own, or ``""``."""
    seq, at, change, report, config, prev, digest, calls = row
    if not all(isinstance(v, str) for v in (at, config, prev, digest)):
        return "has a column that is not text"
    if not _HEX64.fullmatch(digest):
        return "has a malformed hash"
    try:
        change, report, calls = (unpack(v) for v in (change, report, calls))
    except UnreadableColumn as exc:
        return f"has a column that {exc}"
    if any(_SEPARATOR in t for t in (at, change, report, config, prev, calls)):
        # No entry writes one (JSON escapes it): a column boundary was moved, which the
        # separated hash alone would not show.
        return "has a unit separator (0x1f) in a column: its columns were shifted"
    if chain(prev, seq, at, change, report, config, calls) != digest:
        return "does not match its hash (a column was altered)"
    return ""
