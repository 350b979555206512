"""Audit: the revision log exported for someone who has no access to the store, and checked
by them from that file alone.

**Export** (:func:`export`) writes the log as JSON Lines, one entry a line, oldest first::

    {"seq": 3, "at": "...", "change": "<JSON>", "report": "<JSON>", "config": "<JSON>",
     "calls": "<JSON or empty>", "prev_hash": "...", "hash": "..."}

Every field is what the entry's hash covers (:func:`stategraph.store.revlog.chain`), and ``change``,
``report``, ``config`` and ``calls`` are the very texts it was computed over, as JSON strings
(stored compressed or not, a log row is always hashed over its canonical text): re-serialising
parsed JSON is not guaranteed to give the same bytes, a string is. ``change`` is the change as
the caller gave it (reviews included: who confirmed or rejected what, and why), ``report``
the revision's report, whose own ``change`` is the change as applied (grounded, linked, with
candidates and the judge's justifications). A bulk load logs only a summary (counts and a
digest), ``{"bulk_load": ...}``.

**Verify** (:func:`verify_export`) checks the file in two passes:

1. the hash chain: every line against its hash, every link, no gap, from the genesis and,
   given a head kept elsewhere, to that head (an empty file reaches no head but the genesis).
   A file that does not start at entry 1 fails, its first entries missing, unless it is
   declared a part (``partial``, ``audit verify --partial``: an export ``--since``); its chain
   can then only start from the first line's ``prev_hash``, as the file says;
2. a replay without the store: a memory in memory, revised with each entry's change in order,
   with the configuration the entry logged (rule packs, grounder, candidate settings, depth
   bound, judge budget) and the judge's answers served from the entry's logged calls
   (:class:`stategraph.judge.ReplayJudge`); each replayed report, judge calls and
   configuration must equal the logged ones byte for byte, and the first that does not is
   named with the first place it differs. Each change is revised as a caller's
   (:mod:`stategraph.review.provenance`: no review, judge, rule or assumed record in it), except a
   person's decision, which is made again by confirm or reject (refused for a state nothing
   had flagged) and must give the logged change.

What cannot be replayed, and is said so: a part of a log (the store before it is unknown: its
chain is checked, nothing is replayed), and anything from a bulk load
on (its states and justifications are not in the log, only their digest: the chain covers the
entries after it, the replay stops there). Entries logged before the log kept the change as
asked (it kept the change as applied) replay only where grounding, linking, candidates and the
judge added nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from stategraph.engine.policy import Policy
from stategraph.errors import (
    InputSyntaxError,
    LogIntegrityError,
    ReplayDivergenceError,
    ReplayUnavailableError,
    StategraphError,
)
from stategraph.judge.base import PROMPT_VERSION, Judge, JudgeCall, Question
from stategraph.judge.replay import ReplayJudge
from stategraph.judge.settle import JudgeBudget
from stategraph.loaders import Limits, read_jsonl
from stategraph.memory import Memory
from stategraph.model import Change, Decision, Report
from stategraph.store.revlog import GENESIS, UnreadableColumn, check_head, find_breaks, unpack
from stategraph.store.sqlite import SQLiteStore, canonical_json
from stategraph.store.tables import CONFIG_KEY
from stategraph.text.candidates import Proposer, proposer_from_config

__all__ = [
    "FIELDS",
    "LINE",
    "AuditResult",
    "LogRow",
    "entry_row",
    "export",
    "read_export",
    "store_rows",
    "verify_export",
]

FIELDS = ("seq", "at", "change", "report", "config", "calls", "prev_hash", "hash")
"""The fields of an exported entry, in the order they are written."""

LINE = Limits(max_bytes=1 << 30, max_depth=2)
"""One exported line: an object of strings, up to 1 GiB (a hub revision's report is tens of
megabytes; a line past this is refused, never read whole)."""

_BULK = '{"bulk_load":'


@dataclass(frozen=True)
class LogRow:
    """One log entry as its hash covers it: the canonical texts."""

    seq: int
    at: str
    change: str
    report: str
    config: str
    calls: str
    prev_hash: str
    hash: str

    @property
    def is_bulk(self) -> bool:
        """A bulk load's summary (written by ``canonical_json``: no space, this key first)."""
        return self.report.startswith(_BULK)

    def chained(self) -> tuple[Any, ...]:
        """The row in the order :func:`stategraph.store.revlog.find_breaks` reads."""
        return (
            self.seq,
            self.at,
            self.change,
            self.report,
            self.config,
            self.prev_hash,
            self.hash,
            self.calls,
        )

    def line(self) -> str:
        """The exported line (without its newline)."""
        fields = {f: getattr(self, f) for f in FIELDS}
        return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


def store_rows(store: SQLiteStore, since: int = 0, until: int | None = None) -> Iterator[LogRow]:
    """The store's log entries after ``since`` (up to ``until``), one at a time, unpacked.

    Raises:
        LogIntegrityError: a column cannot be decoded (``verify`` names every such entry).
    """
    end = store.head()[0] if until is None else until
    sql = (
        "SELECT seq, at, change, report, config, prev_hash, hash, calls FROM revisions "
        "WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT 1"
    )
    last = since
    while (row := store.conn.execute(sql, (last, end)).fetchone()) is not None:
        last = int(row[0])
        _, at, change, report, config, prev, digest, calls = row
        try:
            texts = [unpack(v) for v in (change, report, calls)]
        except UnreadableColumn as exc:
            raise LogIntegrityError(store.path, last, f"has a column that {exc}") from exc
        yield LogRow(last, str(at), texts[0], texts[1], str(config), texts[2], prev, digest)


def export(store: SQLiteStore, out: Path | TextIO, since: int = 0) -> tuple[int, int, int]:
    """Write the log (the entries after ``since``) as JSON Lines.

    A file is written under a temporary name and renamed when complete, so an interrupted
    export never leaves a truncated file that looks like a shorter log.

    Returns:
        How many entries were written, the first and the last ``seq`` (0, 0 for none).
    """
    if not isinstance(out, Path):
        return _write(store, out, since)
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8", newline="\n") as f:
            written = _write(store, f, since)
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return written


def _write(store: SQLiteStore, out: TextIO, since: int) -> tuple[int, int, int]:
    count = first = last = 0
    for row in store_rows(store, since):
        out.write(row.line() + "\n")
        count, last = count + 1, row.seq
        first = first or row.seq
    return count, first, last


def read_export(path: Path | str) -> Iterator[LogRow]:
    """The entries of an exported file, one line at a time, each checked for its shape.

    Raises:
        InputFileError: the file cannot be read, a line is not JSON, or not an entry (its
            fields and their types are exactly :data:`FIELDS`: an integer ``seq`` and texts).
    """
    name = str(path)
    for number, obj in read_jsonl(name, LINE):
        if not isinstance(obj, dict) or set(obj) != set(FIELDS):
            have = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
            raise InputSyntaxError(
                name,
                f"not a log entry: expected the fields {', '.join(FIELDS)}, got {have}",
                number,
            )
        seq = obj["seq"]
        wrong = [f for f in FIELDS[1:] if not isinstance(obj[f], str)]
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            wrong.insert(0, "seq")
        if wrong:
            raise InputSyntaxError(
                name,
                f"field {wrong[0]} has the wrong type (seq is a number >= 1, the rest text)",
                number,
            )
        yield LogRow(**obj)


@dataclass(frozen=True)
class AuditResult:
    """What :func:`verify_export` found (it raises on anything wrong).

    Attributes:
        count: entries in the file.
        first: the first entry's ``seq``.
        head: the last entry's ``(seq, hash)``.
        replayed: entries replayed with identical reports, calls and configuration.
        not_replayed: why the replay stopped before the end ('' when it covered every entry,
            or none was asked for).
    """

    count: int
    first: int
    head: tuple[int, str]
    replayed: int
    not_replayed: str


def verify_export(
    path: Path | str,
    expect_head: tuple[int, str] | None = None,
    replay: bool = True,
    policy: Policy | None = None,
    partial: bool = False,
) -> AuditResult:
    """Check an exported log from the file alone: its hash chain, then a replay.

    Args:
        path: the exported file.
        expect_head: a head ``(seq, hash)`` kept elsewhere; the file must reach it (catches
            entries cut from the end, and an empty file).
        replay: replay the revisions (False: the chain only).
        policy: the kinds the memory was written with, when it used kinds of its own (the
            log records only their names).
        partial: accept an export that starts after entry 1 (``audit export --since``). Its
            chain can only start from the ``prev_hash`` its first line gives, so it proves
            that the lines link to each other, not that they continue the store's log; and
            nothing is replayed. Without it such a file fails: its first entries are missing.

    Raises:
        InputFileError: the file is unreadable or not an export.
        InvalidInputError: ``expect_head`` is no head a log can have
            (:func:`~stategraph.store.revlog.check_head`).
        LogIntegrityError: the chain does not verify (naming every break), the file does not
            start at entry 1 and ``partial`` is not given, or it does not reach
            ``expect_head`` (which for a partial export must not lie before its first line).
        ReplayDivergenceError: a replayed revision differs from the logged one (the first).
        ReplayUnavailableError: an entry's configuration cannot be rebuilt here.
    """
    name = str(path)
    if expect_head is not None:
        expect_head = check_head(expect_head)  # before anything is read: no head is below 0
    first = next(read_export(path), None)
    start = (0, GENESIS)
    if first is not None and first.seq != 1:
        if not partial:
            missing = "entry 1 is" if first.seq == 2 else f"entries 1 to {first.seq - 1} are"
            raise LogIntegrityError(
                name,
                1,
                f"is missing: the export starts at entry {first.seq} ({missing} not in it)",
                advice="export the whole log, or verify a part of it with --partial",
            )
        start = (first.seq - 1, first.prev_hash)
        if expect_head is not None and expect_head[0] < start[0]:
            raise LogIntegrityError(
                name,
                expect_head[0],
                f"is the head given, but the export starts at entry {first.seq}",
                advice="a head before the export's first entry cannot be checked from it",
            )
    last: list[LogRow | None] = [first]

    def chained() -> Iterator[tuple[Any, ...]]:
        for row in read_export(path):
            last[0] = row
            yield row.chained()

    count, breaks = find_breaks(chained(), expect_head, start)
    if breaks:
        found = [b.pair() for b in breaks]
        raise LogIntegrityError(
            name,
            found[0][0],
            found[0][1],
            found,
            advice="the export was altered, or exported from an altered store",
        )
    if first is None or last[0] is None:  # an empty file, which reached any head given
        return AuditResult(0, 0, (0, GENESIS), 0, "")
    head = (last[0].seq, last[0].hash)
    if not replay:
        return AuditResult(count, first.seq, head, 0, "")
    if first.seq != 1:
        why = f"the export starts at entry {first.seq}, and replaying needs the log from entry 1"
        return AuditResult(count, first.seq, head, 0, why)
    replayer = _Replayer(name, policy)
    done = 0
    try:
        for row in read_export(path):
            if row.is_bulk:
                why = (
                    f"entry {row.seq} is a bulk load, which logs only a summary of what it "
                    f"loaded: entries {row.seq} to {head[0]} were checked by the hash chain only"
                )
                return AuditResult(count, first.seq, head, done, why)
            replayer.replay(row)
            done += 1
    finally:
        replayer.store.close()
    return AuditResult(count, first.seq, head, done, "")


class _AsLogged:
    """The judge of a replayed revision: its logged calls, served as they were logged.

    :class:`~stategraph.judge.ReplayJudge` finds the call for each question (and refuses
    calls whose key is not their question's); a call the model answered is then returned as
    logged (``attempts``, not marked cached), so the replay spends the judge budget as the
    revision did and caches the answer in the replay's store as the revision did in its own.
    """

    def __init__(self, calls: Sequence[JudgeCall], name: str, model: str) -> None:
        self.name, self.model = name, model
        # calls logged under an earlier prompt version are found under that version's keys
        versions = {call.prompt_version for call in calls}
        version = versions.pop() if len(versions) == 1 else PROMPT_VERSION
        self.prompt_version = version  # and asked as they were: edge by edge before v3
        self._replay = ReplayJudge(calls, name=name, model=model, prompt_version=version)
        self._made: dict[str, JudgeCall] = {}
        for call in calls:
            if not call.cached:
                self._made.setdefault(call.key, call)

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        return [self._made.get(c.key, c) for c in self._replay.ask(questions)]


class _Replayer:
    """Revises a memory in memory with each logged change, and compares what it logs."""

    def __init__(self, name: str, policy: Policy | None) -> None:
        self.name = name
        self.policy = policy
        self.store = SQLiteStore(":memory:")
        self._memories: dict[str, Memory] = {}

    def replay(self, row: LogRow) -> None:
        mem = self._memory(row)
        try:
            change = Change.model_validate_json(row.change)
        except ValidationError as exc:
            raise self._diverged(
                row.seq, "change", "a change", f"unreadable ({exc.error_count()} errors)"
            ) from None
        if len(change.reviews) > 1:  # the review path makes one a change
            many = f"{len(change.reviews)} reviews in one change"
            raise self._diverged(row.seq, "change.reviews", "one review a change", many)
        try:
            mem.judge = self._judge(row)
            if change.reviews:
                _review(mem, change)
            elif mem.linker == "logged":
                _replay_completed(mem, row)
            else:
                mem.revise(change)
        except StategraphError as exc:
            raise self._diverged(row.seq, "report", "a revision", f"an error: {exc}") from exc
        (replayed,) = store_rows(self.store, row.seq - 1, row.seq)
        # the configuration, the report and the calls first: where they differ says more
        # than the tables' digest, which then differs too; a review's change is made again
        # by the review path: it must be the logged one
        compared = ("config", "report", "calls", "tables")
        for field in ("change", *compared) if change.reviews else compared:
            logged, again = _compared(field, row, replayed)
            if logged != again:
                where, old, new = _first_difference(
                    field.replace("tables", "config"), logged, again
                )
                raise self._diverged(row.seq, where, old, new)

    def _diverged(self, seq: int, where: str, logged: str, replayed: str) -> ReplayDivergenceError:
        return ReplayDivergenceError(self.name, seq, where, logged, replayed)

    def _judge(self, row: LogRow) -> Judge | None:
        config = json.loads(row.config)
        if "judge" not in config:
            return None
        calls = [JudgeCall.model_validate(c) for c in json.loads(row.calls)] if row.calls else []
        try:
            return _AsLogged(calls, config["judge"]["name"], config["judge"]["model"])
        except StategraphError as exc:
            raise self._diverged(row.seq, "calls", "judge calls", f"unusable: {exc}") from exc

    def _memory(self, row: LogRow) -> Memory:
        """A memory over the replay's store with the entry's configuration (one per distinct
        configuration: the rule packs are compiled once)."""
        key = _without_digest(_without_cap(row.config))
        found = self._memories.get(key)
        if found is not None:
            return found
        try:
            config = json.loads(row.config)
            options: dict[str, Any] = {
                "max_depth": config["max_depth"],
                "rules": list(config.get("rules", ())),
                "grounder": config.get("grounder"),
                "assume": config.get("assume", True),
            }
            if "max_cone" in config:
                options["max_cone"] = config["max_cone"]
            if "reversals" in config:  # the policy a new fact told as a change was read with
                options["reversals"] = config["reversals"]
            if options["rules"] and "links" not in config:
                # linked memory to memory, before atom nodes: the change carries its links
                options["linker"] = "logged"
            if "judge" in config:
                # a budget logged before the deadline existed had none
                budget = {"seconds": None, **config["judge"]["budget"]}
                options["judge_budget"] = JudgeBudget(**budget)
            kinds, proposer = config["kinds"], config.get("candidates")
        except (KeyError, TypeError, ValueError) as exc:
            raise ReplayUnavailableError(
                row.seq, f"its configuration is not one stategraph writes ({exc!r})"
            ) from None
        options["policy"] = self._policy(row.seq, kinds)
        options["candidates"] = _proposer(row.seq, proposer)
        try:
            mem = Memory(store=self.store, **options)
        except (StategraphError, TypeError) as exc:
            raise ReplayUnavailableError(
                row.seq, f"its configuration cannot be rebuilt here ({exc})"
            ) from None
        self._memories[key] = mem
        return mem

    def _policy(self, seq: int, kinds: list[str]) -> Policy:
        policy = self.policy or Policy()
        if sorted(policy.kinds) != kinds:
            raise ReplayUnavailableError(
                seq,
                f"it was written with the kinds {', '.join(kinds)}, not "
                f"{', '.join(sorted(policy.kinds))}: pass the Policy that defines them "
                "(stategraph.audit.verify_export(policy=...))",
            )
        return policy


def _without_digest(config: str) -> str:
    """A logged configuration without the tables' digest (:mod:`stategraph.store.tables`), which
    changes with every entry: what the replay's memories are kept by."""
    try:
        value = json.loads(config)
    except json.JSONDecodeError:
        return config
    if not isinstance(value, dict) or CONFIG_KEY not in value:
        return config
    return canonical_json({k: v for k, v in value.items() if k != CONFIG_KEY})


def _without_cap(config: str) -> str:
    """A logged configuration without the cap on rule derivations an entry linked memory to
    memory under (``max_alternatives``, before atom nodes): its replay carries the links the
    change logged, under no cap."""
    try:
        value = json.loads(config)
    except json.JSONDecodeError:
        return config
    if not isinstance(value, dict) or "max_alternatives" not in value or "links" in value:
        return config
    return canonical_json({k: v for k, v in value.items() if k != "max_alternatives"})


def _compared(field: str, logged: LogRow, replayed: LogRow) -> tuple[str, str]:
    """One field of a logged entry and of its replay, as they are compared: ``config``
    without the tables' digest (:mod:`stategraph.store.tables`), then ``tables``, the whole
    configuration, with the digest left out of the replay's where the entry, written before
    the digest, has none (and the cap of an entry linked before atom nodes left out of the
    logged one). Every other entry's digest must be the replay's: the replay rebuilds the
    tables from the log alone."""
    config = _without_cap(logged.config)
    if field == "config":
        return _without_digest(config), _without_digest(replayed.config)
    if field == "tables":
        legacy = _without_digest(config) == config
        return config, (_without_digest(replayed.config) if legacy else replayed.config)
    return getattr(logged, field), getattr(replayed, field)


def _replay_completed(mem: Memory, row: LogRow) -> None:
    """Replay an entry linked before atom nodes: its report's change, as the linker of then
    completed it, applied without linking again (no linker of today makes those links); the
    supersessions its report graded as compatible updates are taken from the report."""
    report = Report.model_validate_json(row.report)
    superseded = {s.id for s in report.change.supersede}
    compatible = frozenset(
        x
        for e in report.entries
        if e.reason.cause == "compatible_update"
        for lost in e.reason.lost
        for x in lost.failed
        if x in superseded
    )
    mem._apply_logged(report.change, compatible)  # the engine's own path, as a replay is


def _review(mem: Memory, change: Change) -> None:
    """Replay a person's decision as it was made: by confirm or reject, which refuse a state
    that was not waiting for review (a caller's change may carry no review)."""
    (r,) = change.reviews
    settle = mem.confirm if r.decision is Decision.confirmed else mem.reject
    settle(r.id, by=r.by, note=r.note, at=r.at)


def _proposer(seq: int, config: dict[str, Any] | None) -> Proposer | None:
    if config is None:
        return None
    try:
        return proposer_from_config(config)
    except (ValueError, TypeError, KeyError):
        raise ReplayUnavailableError(
            seq, f"its candidate proposer {config.get('name')!r} is not one this stategraph has"
        ) from None


def _first_difference(field: str, logged: str, replayed: str) -> tuple[str, str, str]:
    """Where two JSON texts first differ: a path and the two values there (as JSON)."""
    try:
        a, b = json.loads(logged) if logged else None, json.loads(replayed) if replayed else None
    except json.JSONDecodeError:
        return field, repr(logged[:200]), repr(replayed[:200])
    stack: list[tuple[str, Any, Any]] = [(field, a, b)]
    while stack:
        path, x, y = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            keys = [*x, *(k for k in y if k not in x)]
            stack.extend(
                (f"{path}.{k}", x.get(k, _MISSING), y.get(k, _MISSING)) for k in reversed(keys)
            )
        elif isinstance(x, list) and isinstance(y, list):
            n = max(len(x), len(y))
            pairs = [
                (x[i] if i < len(x) else _MISSING, y[i] if i < len(y) else _MISSING)
                for i in range(n)
            ]
            stack.extend((f"{path}[{i}]", p, q) for i, (p, q) in reversed(list(enumerate(pairs))))
        elif x != y or type(x) is not type(y):
            return path, _show(x), _show(y)
    return field, "these bytes", "the same values in other bytes"


_MISSING = object()


def _show(value: Any) -> str:
    return "nothing" if value is _MISSING else json.dumps(value, ensure_ascii=False)[:200]


def entry_row(store: SQLiteStore, seq: int) -> LogRow | None:
    """One entry of a store's log, or None."""
    return next(store_rows(store, seq - 1, seq), None)
