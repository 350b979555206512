"""The ``stategraph`` command line: a thin layer over :class:`stategraph.Memory`.

Feature packages add their own commands through a ``register(subparsers)`` function
(``stategraph.grounding.cli``, ``stategraph.bench.cli``), so this module stays small.

Every failure ends in one line on stderr, ``stategraph: error: <message>``, and an exit code
chosen by the error's class (:data:`EXIT_CODES`), so a script can tell bad input from a busy
or damaged store without parsing messages; ``--debug`` adds the traceback. Files are read
through :mod:`stategraph.loaders`, and a command that only reads a store never creates one.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sqlite3
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from stategraph.cli import demo
from stategraph.errors import (
    InconsistentStoreError,
    InvalidInputError,
    LogicError,
    LogIntegrityError,
    StategraphError,
    StoreBusyError,
    StoreError,
    StoreNotFoundError,
)
from stategraph.escaping import LINE_ESCAPES
from stategraph.urls import redact

if TYPE_CHECKING:  # the commands import these when they run: --help stays fast
    from pydantic import BaseModel

    from stategraph.asof import MemoryAsOf
    from stategraph.memory import Memory
    from stategraph.model import LostSupport, Report

__all__ = ["EXIT_CODES", "REVERSALS", "main", "render_report"]

REVERSALS = ("supersede", "ask", "check")
"""The values of ``--reversals``: :class:`stategraph.values.ReversalPolicy`'s, spelt out so that
``--help`` imports nothing more (``tests/cli/test_startup.py`` holds the two equal)."""

EXIT_INTERNAL = 1
EXIT_INPUT = 2
EXIT_STORE = 3
EXIT_INTEGRITY = 4
EXIT_BUSY = 5
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

EXIT_CODES: tuple[tuple[type[StategraphError], int], ...] = (
    (LogIntegrityError, EXIT_INTEGRITY),
    (InconsistentStoreError, EXIT_INTEGRITY),
    (StoreBusyError, EXIT_BUSY),
    (StoreError, EXIT_STORE),
    (LogicError, EXIT_INTERNAL),
    (StategraphError, EXIT_INPUT),
)
"""The exit code of each error class, most specific first (a subclass takes its parent's code
unless it has a row of its own)."""

_EPILOG = f"""\
exit codes:
  0    success
  {EXIT_INTERNAL}    internal error: a bug; rerun with --debug and report the traceback
  {EXIT_INPUT}    bad command or input: a usage error, an unknown id, an invalid change, or a file
       the loaders refuse (missing, not UTF-8, too large, too deep, YAML aliases, duplicate keys)
  {EXIT_STORE}    the store cannot be used: missing (only add, revise and import create
       one), a folder, not a stategraph store, another schema version, damaged
  {EXIT_INTEGRITY}    the revision log does not verify (with --deep: or the tables do not match it),
       or the store refuses writes since a verification failed: the store was altered
       (restore it, or accept writes again with history --acknowledge-tamper); or the log
       does not reach the head given with --expect-head (which refuses nothing); or why /
       why-not found a state whose stored value its own justifications contradict
  {EXIT_BUSY}    the store is busy: another process held its write lock past the busy timeout;
       nothing was written, retry later
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C): a revision under way was rolled back
  {EXIT_BROKEN_PIPE}  the output was closed early (e.g. piped into head); nothing more is printed

Errors are one line on stderr ("stategraph: error: ..."); --debug adds the traceback.
"""

_PLUGINS: dict[str, tuple[str, str]] = {
    "ground": ("stategraph.grounding.cli", "show the atoms a memory's text grounds to"),
    "grounder": (
        "stategraph.grounding.cli",
        "start, stop or look at the warm grounder (commands that ground text start fast)",
    ),
    "bench": ("stategraph.bench.cli", "run the StateChangeBench-style suite and report Impact-F1"),
    "review": (
        "stategraph.cli.review",
        "list the states waiting for a person (needs_confirmation), and why",
    ),
    "confirm": (
        "stategraph.cli.review",
        "settle a flagged state: it holds on your word (logged, cascades)",
    ),
    "reject": (
        "stategraph.cli.review",
        "settle a flagged state: it is retracted (logged, cascades)",
    ),
    "audit": (
        "stategraph.cli.review",
        "export the revision log, verify and replay an export, show a revision",
    ),
    "recall": (
        "stategraph.cli.recall",
        "the memories that best match a question: what holds, what to ask first",
    ),
    "serve": (
        "stategraph.service.cli",
        "serve the HTTP API (FastAPI on uvicorn), one memory per tenant",
    ),
    "mcp": (
        "stategraph.service.cli",
        "serve the memory to agents over the Model Context Protocol (stdio by default)",
    ),
}
"""The feature packages' commands: the module whose ``register(subparsers)`` adds each, and
its line in the listing. ``stategraph --help`` shows these lines without importing the modules
(the benchmark, the service and the grounder weigh more than the whole core); a command's own
parser is built only when it runs. A test holds each line to the one its module registers."""

M = TypeVar("M", bound="BaseModel")


def _lost(lost: LostSupport) -> str:
    """One lost justification in words: which premises went, which ``unless`` blocks it."""
    j = lost.justification
    why = []
    if lost.failed:
        why.append(f"{', '.join(lost.failed)} gone")
    if lost.blocked_by:
        why.append(f"blocked by {', '.join(lost.blocked_by)}")
    if lost.removed or not why:
        why.append("justification removed")
    via = f" via {', '.join(j.rules)}" if j.rules else ""
    if not j.premises:  # a default (``unless`` only): nothing was lost but the condition
        return f"{'; '.join(why)}{via}"
    return f"lost [{', '.join(j.premises)}]{via} ({'; '.join(why)})"


def render_report(report: Report) -> str:
    """A report as aligned text lines, one per changed and touched state (no recursion: a
    report is flat, however deep the cascade)."""
    from stategraph.engine.proof_text import confirmed_by
    from stategraph.model import Origin

    lines = [f"cone: {report.cone_size} states reached, {report.solved} solved"]
    for c in report.changed:
        by = f" by {c.by}" if c.by else ""
        lines.append(f"  {c.id:<10} {c.action}{by} (now {c.new.value})")
    if not report.entries:
        lines.append("  no other state is affected")
    for e in report.entries:
        extra = []
        if e.consequence:
            extra.append(f"consequence: {e.consequence.value}")
        r = e.reason
        extra.extend(_lost(lost) for lost in r.lost)
        if r.surviving and r.surviving.origin is Origin.review:
            extra.append(confirmed_by(r.surviving))
        elif r.surviving:
            extra.append(f"carried by [{', '.join(r.surviving.premises)}]")
        if r.cycle:
            extra.append(f"cycle through unless: {', '.join(r.cycle)}")
        if r.cause in ("depth_limit", "unverified_candidate", "undefined_premise"):
            extra.append(r.cause.replace("_", " "))
        lines.append(
            f"  {e.id:<10} {e.kind:<7} {e.verdict.value:<19} depth {e.depth}  {'; '.join(extra)}"
        )
    lines.append(_summary(report))
    return "\n".join(line.translate(LINE_ESCAPES) for line in lines)


def _many(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _summary(report: Report) -> str:
    """What the revision did, in counts: what went, what still holds or holds again, and what
    a person must settle."""
    return (
        f"summary: {_many(len(report.invalidated), 'no longer holds', 'no longer hold')}, "
        f"{_many(len(report.kept), 'still holds', 'still hold')}, "
        f"{_many(len(report.restored), 'holds again', 'hold again')}, "
        f"{_many(len(report.needs_confirmation), 'needs confirmation', 'need confirmation')}"
    )


def waiting_line(n: int, store: str) -> str:
    """``n`` memories wait for a person (the number ``stategraph review`` lists), and how to
    see them."""
    if not n:
        return "nothing waits for review"
    return f"{_many(n, 'waits', 'wait')} for review: stategraph review {redact(store, store)}"


def _emit(report: Report, as_json: bool, mem: Memory | None = None, store: str = "") -> None:
    """A revision's report: JSON, or the text of :func:`render_report` and, given the memory
    it was made in, how many memories wait for review now."""
    if as_json:
        print(report.to_json())
        return
    print(render_report(report))
    if mem is not None:
        print(waiting_line(len(mem.pending_review()), store))


def _cmd_demo(args: argparse.Namespace) -> int:
    if args.store is not None and Path(args.store).exists():
        hint = "give a new file, or remove this one"
        raise InvalidInputError("demo", [("--store", f"{args.store} exists: {hint}")])
    report = demo.run(args.lang, path=args.store, text_only=args.text)
    _emit(report, args.json)
    if not args.json:
        untouched = sorted(set(demo.SCENARIO[args.lang]) - {e.id for e in report.entries})
        untouched = [sid for sid in untouched if sid not in {c.id for c in report.changed}]
        print(f"  untouched: {', '.join(untouched)} (related to m1, but not resting on it)")
    return 0


def store_arguments(
    p: argparse.ArgumentParser,
    *,
    creates: bool = False,
    busy: str = "how long a write waits for another process's lock before giving up with "
    f"exit code {EXIT_BUSY} (default 30; reading never waits)",
) -> None:
    """The store a command works on and how long it waits for a writer (``--busy-timeout``),
    as :func:`_open` reads them: one wording for every command, the feature packages' too."""
    where = "created if missing" if creates else "must exist"
    p.add_argument("store", help=f"SQLite store file, or postgresql://...?tenant=NAME ({where})")
    p.add_argument("--busy-timeout", type=float, default=30.0, metavar="SECONDS", help=busy)


def _open(args: argparse.Namespace, create: bool = False) -> Memory:
    """Open the store; only commands that write (``create``) may make a new one.

    Raises:
        StoreNotFoundError: a read-only command named a path where no file is.
        StoreError: the path is a folder.
    """
    from stategraph.memory import Memory, check_limits
    from stategraph.store.open import is_postgres, open_store
    from stategraph.store.sqlite import SQLiteStore

    # the limits and the judge before a store is made: a refused option leaves no file
    max_depth = getattr(args, "max_depth", None)
    check_limits(max_depth=max_depth)
    judge = _judge() if getattr(args, "judge", False) else None
    store: SQLiteStore
    if is_postgres(args.store):  # a tenant's store in PostgreSQL (stategraph.stores)
        store = open_store(args.store, busy_timeout=args.busy_timeout, create=create)
    else:
        path = Path(args.store)
        if path.is_dir():
            raise StoreError(args.store, "is a folder, not a store file: give the file's path")
        if not create and not path.exists():
            raise StoreNotFoundError(args.store)
        store = SQLiteStore(args.store, busy_timeout=args.busy_timeout, create=create)
    rules = getattr(args, "rules", None)
    packs: str | list[str] | None = rules if rules in (None, "all") else rules.split(",")
    try:
        return Memory(
            store=store,
            rules=packs,
            grounder=getattr(args, "grounder", None),
            judge=judge,
            max_depth=max_depth,
            reversals=getattr(args, "reversals", None),
        )
    except BaseException:
        store.close()
        raise


@contextmanager
def _no_new_store_left(args: argparse.Namespace) -> Iterator[None]:
    """A command that fails leaves no store file it made: a SQLite store that was not there
    before the command and holds nothing after it (its write rolled back) is removed, with its
    write-ahead log. So ``import`` with a refused line, or ``add`` of a kind no policy knows,
    leaves the path as it found it, whatever the step that refused (a file read as it is
    loaded cannot be checked whole before the store is made)."""
    store = getattr(args, "store", None)
    path = Path(store) if isinstance(store, str) and "://" not in store else None
    if path is None or path.exists():
        yield
        return
    try:
        yield
    except BaseException:
        _remove_if_empty(path)
        raise


def _remove_if_empty(path: Path) -> None:
    """Remove a store file that holds no revision and no state (and its ``-wal``, ``-shm``)."""
    try:
        if not path.is_file():
            return
        if path.stat().st_size:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                found = conn.execute(
                    "SELECT (SELECT count(*) FROM revisions) + (SELECT count(*) FROM states)"
                ).fetchone()
            finally:
                conn.close()
            if found != (0,):
                return
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    except (OSError, sqlite3.Error):  # not a store this command made, or gone: leave it
        return


def _judge() -> Any:
    """The judge the environment configures (``OpenAIJudge.from_env``), for ``--judge``.

    Raises:
        JudgeConfigError: naming the environment variables that are missing.
    """
    from stategraph.judge import OpenAIJudge  # the openai SDK: only when a judge is asked for

    return OpenAIJudge.from_env()


def _alternatives(raw: Sequence[str] | None) -> list[list[str]]:
    return [[p for p in alt.split(",") if p] for alt in raw or ()]


def _cmd_add(args: argparse.Namespace) -> int:
    if args.status and args.kind != "action":
        hint = "drop --status, or give --kind action"
        msg = f"only actions carry a status, and {args.id!r} is a {args.kind}: {hint}"
        raise InvalidInputError("state", [("status", msg)])
    with _open(args, create=True) as mem:
        state: dict[str, Any] = {"id": args.id, "kind": args.kind, "text": args.text}
        if args.status:
            state["status"] = args.status
        if args.session:
            state["session"] = args.session
        report = mem.add(
            state,
            because=_alternatives(args.because),
            unless=args.unless or (),
            context=args.context or (),
        )
        _emit(report, args.json, mem, args.store)
    return 0


def _cmd_revise(args: argparse.Namespace) -> int:
    from stategraph.loaders import load_change
    from stategraph.model import Change

    change: dict[str, Any] = load_change(args.change) if args.change else {}
    if args.retract:
        given = change.get("retract") or []
        change = {**change, "retract": [*(given if isinstance(given, list) else [given])]}
        change["retract"].extend(args.retract)
    if not any(change.values()):  # checked before the store is opened: none is created
        hint = "give --retract ID... or --change FILE with retract, assert or supersede"
        raise InvalidInputError("change", [("", f"nothing to change: {hint}")])
    valid = _validated(Change, change, "change")  # before the store opens: a bad one makes none
    with _open(args, create=True) as mem:
        _emit(mem.revise(valid), args.json, mem, args.store)
    return 0


def _cmd_retract(args: argparse.Namespace) -> int:
    from stategraph.model import Change

    valid = _validated(Change, {"retract": args.ids}, "change")
    with _open(args) as mem:  # only states stored can go: a missing store is an error
        _emit(mem.revise(valid), args.json, mem, args.store)
    return 0


def _cmd_supersede(args: argparse.Namespace) -> int:
    from stategraph.model import State

    fields: dict[str, Any] = {"id": args.id, "kind": args.kind, "text": args.text}
    if args.session:
        fields["session"] = args.session
    new = _validated(State, fields, "memory")
    with _open(args) as mem:
        _emit(mem.supersede(args.old, new), args.json, mem, args.store)
    return 0


def _validated(model: type[M], obj: Any, what: str, where: str = "") -> M:
    """``obj`` as a ``model``, refused as every surface refuses it
    (:func:`stategraph.shapes.validated`; imported here, not at start-up)."""
    from stategraph.shapes import validated

    return validated(model, obj, what, where)


def _import_lines(path: Path, model: type[M]) -> Iterator[M]:
    """One pass over a JSONL import file: its states, or its justifications (the lines with
    a ``head``). Lines may come in any order: the file is read once for each."""
    from stategraph.loaders import import_records
    from stategraph.model import Justification
    from stategraph.review.provenance import check_justification

    for where, obj in import_records(path, justifications=model is Justification):
        item = _validated(model, obj, "import", where)
        if isinstance(item, Justification):  # named by its line (bulk_load checks it again)
            check_justification(item, where)
        yield item


def _cmd_import(args: argparse.Namespace) -> int:
    from stategraph.loaders import require_file
    from stategraph.model import Justification, State

    path = Path(args.file)
    require_file(path)  # a mistyped file name must not leave a new empty store behind
    if args.one_process and not args.memories:
        raise InvalidInputError("import", [("--one-process", "only with --memories")])
    if args.memories:
        return _import_memories(args, path)
    with _open(args, create=True) as mem:
        summary = mem.bulk_load(_import_lines(path, State), _import_lines(path, Justification))
        review = len(mem.pending_review())
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        went = summary["states"] - summary["holding"] - summary["undefined"]
        print(
            f"imported {summary['states']} states and {summary['justifications']} "
            f"justifications: {summary['holding']} hold, {went} do not, {summary['undefined']} "
            f"undefined (sha256 {summary['sha256'][:12]})"
        )
        print(waiting_line(review, args.store))
    return 0


def _import_memories(args: argparse.Namespace, path: Path) -> int:
    from stategraph.importing import GROUND_AHEAD_AFTER, import_memories
    from stategraph.loaders import import_records

    total = sum(1 for _ in import_records(path, justifications=False))
    bar = _Progress(total, sys.stderr)
    with _open(args, create=True) as mem:
        rows = import_records(path, justifications=False)
        after = None if args.one_process else GROUND_AHEAD_AFTER
        summary = import_memories(mem, rows, bar, ground_ahead_after=after)
    bar.done()
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(
            f"imported {summary['imported']} memories: {summary['holding']} hold, "
            f"{summary['not_holding']} do not, {summary['undefined']} undefined"
        )
        print(waiting_line(summary["review"], args.store))
    return 0


class _Progress:
    """A progress line on stderr: redrawn in place on a terminal, every 10% elsewhere."""

    def __init__(self, total: int, stream: Any) -> None:
        self.total, self.stream = total, stream
        self.tty = stream.isatty()
        self.started = time.perf_counter()
        self._shown = -1

    def __call__(self, done: int) -> None:
        tenth = done * 10 // max(self.total, 1)
        if not self.tty and tenth == self._shown:
            return
        self._shown = tenth
        rate = done / max(time.perf_counter() - self.started, 1e-9)
        line = f"import: {done}/{self.total} memories ({rate:.0f}/s)"
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def as_of_argument(p: argparse.ArgumentParser) -> None:
    """``--as-of SEQ|TIME``: read the memory as it was (:meth:`Memory.as_of`)."""
    p.add_argument(
        "--as-of",
        metavar="SEQ|TIME",
        help="as the memory was right after revision SEQ ('history' lists them), or at an ISO "
        "8601 TIME (the last revision committed at or before it; without a zone, UTC)",
    )


def _then(mem: Memory, args: argparse.Namespace) -> Memory | MemoryAsOf:
    """The memory now, or as it was ``--as-of`` a revision or a time."""
    return mem if args.as_of is None else mem.as_of(args.as_of)


def _cmd_why(args: argparse.Namespace) -> int:
    text = None if args.json else _proof_text(args)
    if text is not None:
        print(text)
        return 0
    with _open(args) as opened:
        mem = _then(opened, args)
        if args.json:
            print(mem.why(args.id).model_dump_json(indent=2))
        else:
            print(mem.why(args.id).render())
    return 0


def _cmd_why_not(args: argparse.Namespace) -> int:
    with _open(args) as opened:
        w = _then(opened, args).why_not(args.id)
        print(w.model_dump_json(indent=2) if args.json else w.render())
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    rows = _listed(args)
    if rows is None:
        with _open(args) as opened:
            mem = _then(opened, args)
            rows = [
                {
                    "id": s.id,
                    "kind": s.kind,
                    "truth": mem.truth(s.id).value,
                    "active": mem.is_active(s.id),
                    "text": s.text,
                }
                for s in mem.states()
            ]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    marks = {"true": "+", "false": "-", "undefined": "?"}  # Truth's values
    for r in rows:
        status = "" if r["active"] else " (inactive)"
        line = f"{marks[r['truth']]} {r['id']:<10} {r['kind']:<7} {r['text']}{status}"
        print(line.translate(LINE_ESCAPES))
    return 0


def _listed(args: argparse.Namespace) -> list[Any] | None:
    """``show``'s rows read straight from a SQLite store of this version, without the models
    (:mod:`stategraph.store.listing`); None for the past, PostgreSQL, or a store to open in
    full (which then migrates it or says what is wrong)."""
    from stategraph.store.listing import state_lines

    if args.as_of is not None or "://" in args.store:  # a URL: PostgreSQL's, or refused in full
        return None
    return state_lines(args.store, args.busy_timeout)


def _proof_text(args: argparse.Namespace) -> str | None:
    """``why``'s text read straight from a SQLite store of this version, without the models
    (:mod:`stategraph.store.ancestry`, the same proof and renderer as :meth:`Memory.why
    <stategraph.memory.Memory.why>`); None for the past, PostgreSQL, an id to normalise, or
    anything the full path answers with an error (it then says what is wrong)."""
    import dataclasses
    import unicodedata

    from stategraph.engine.derivation import body, candidate_notes, lowest_proof
    from stategraph.engine.policy import Policy
    from stategraph.engine.proof_text import PlainStep, render_proof
    from stategraph.errors import StategraphError
    from stategraph.store.ancestry import read_ancestry
    from stategraph.values import TRUE

    sid = args.id
    plain = sid and sid == sid.strip() and (sid.isascii() or unicodedata.is_normalized("NFC", sid))
    if args.as_of is not None or "://" in args.store or not plain:
        return None
    found = read_ancestry(args.store, args.busy_timeout, sid)
    if found is None or found.value(sid) is not TRUE:
        return None
    policy, states = Policy(), found.states

    def is_base(s: str) -> bool:
        st = states.get(s)
        return st is not None and st.active and policy.is_exogenous(st)

    try:
        proof = lowest_proof(
            sid, found.justifications_of, is_base, found.value, states.__contains__
        )
    except StategraphError:  # a kind the default policy lacks, a state stored unfounded
        return None
    steps = [
        PlainStep(
            s, states[s].kind, states[s].text, by and dataclasses.replace(by, premises=body(by))
        )
        for s, _, by in proof
    ]
    return render_proof(sid, steps, candidate_notes(found.justifications_of(sid)))


def _head(text: str) -> tuple[int, str]:
    """``SEQ:HASH`` as ``history --verify`` prints the head."""
    seq, _, digest = text.partition(":")
    if not (seq.isdigit() and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
        msg = f"{text!r} is not SEQ:HASH as 'history --verify' prints the head"
        raise InvalidInputError("history", [("--expect-head", msg)])
    return int(seq), digest


def _acknowledge(mem: Memory, as_json: bool) -> int:
    """Let a store that refuses writes since a failed verification accept them again, and
    say which breaks were acknowledged: they stay in the log as the evidence."""
    breaks = mem.store.acknowledge_tamper()
    if as_json:
        print(json.dumps({"acknowledged": [{"seq": s, "reason": r} for s, r in breaks]}))
        return 0
    if not breaks:
        print("nothing to acknowledge: the store does not refuse writes")
        return 0
    found = "; ".join(f"entry {seq} {reason}" for seq, reason in breaks).translate(LINE_ESCAPES)
    print(
        f"acknowledged {len(breaks)} break{'s' if len(breaks) > 1 else ''} of the revision log "
        f"({found}): writes are accepted again; the log still does not verify, and a break "
        "found later refuses writes again"
    )
    return 0


def _cmd_history(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        if args.acknowledge_tamper:
            return _acknowledge(mem, args.json)
        if args.deep and not args.verify:
            raise InvalidInputError("history", [("--deep", "is an option of --verify")])
        if args.verify:
            expect = _head(args.expect_head) if args.expect_head else None
            count = mem.store.verify(expect, args.deep)
            seq, digest = mem.store.head()
            tables = ""
            if args.deep:
                tables = (
                    "; tables match the log"
                    if mem.store.tables_digest() is not None
                    else "; tables not checked (the log predates their digest: checked from "
                    "its next revision on)"
                )
            print(f"log verified: {count} entries, hash chain intact{tables}; head {seq}:{digest}")
            return 0
        entries = mem.store.iter_history(args.limit, args.since)  # streamed: reports can be large
        if args.json:
            rows = [e.model_dump(mode="json", by_alias=True) for e in entries]  # "assert"
            print(json.dumps(rows, ensure_ascii=False))
            return 0
        for e in entries:
            r = e.report
            if r is None:
                print(f"#{e.seq} {e.at} bulk load {e.summary} {e.hash[:12]}")
                continue
            print(
                f"#{e.seq} {e.at} changed={[c.id for c in r.changed]} "
                f"invalidated={r.invalidated} restored={r.restored} "
                f"needs_confirmation={r.needs_confirmation} {e.hash[:12]}"
            )
    return 0


def _cmd_graph(args: argparse.Namespace) -> int:
    from stategraph.pictures import picture_of, render  # only this command needs the pictures

    options: dict[str, Any] = {"revision": args.revision, "around": args.around, "hops": args.hops}
    if args.limit is not None:
        options["limit"] = args.limit
    with _open(args) as mem:
        picture = picture_of(mem, **options)
        text = render(mem, picture, "json" if args.json else args.format)
    if picture.cut:
        fewer = "--hops 0 draws the cone alone" if picture.focus is None else "draw fewer --hops"
        print(
            f"stategraph: note: the picture stops at {len(picture.states)} states and "
            f"{len(picture.supports)} justifications: {picture.scope}; {fewer} or raise --limit",
            file=sys.stderr,
        )
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError("graph", [("-o", f"cannot write {args.output}: {exc}")]) from exc
    return 0


def build_parser(
    for_command: str | None = None, *, listing: bool = False
) -> argparse.ArgumentParser:
    """The argument parser, with every registered command.

    Args:
        for_command: the command about to run, if known. When it is one of this module's
            own, the feature packages' commands (:data:`_PLUGINS`) are left out; when it is
            one of theirs, only its module is loaded: parsing one command needs only its parser.
        listing: for ``stategraph --help``: the feature packages' commands appear with their
            help line only, and none of their modules is imported.
    """
    parser = argparse.ArgumentParser(
        prog="stategraph",
        description="Dependency-aware state revision for agent memory.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true", help="print the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("demo", help="run the seed scenario (a move that is called off)")
    p.add_argument("--lang", choices=sorted(demo.SCENARIO), default="en")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--text",
        action="store_true",
        help="text only: the grounder and the rule packs find the dependencies",
    )
    p.add_argument(
        "--store",
        metavar="FILE",
        help="keep the demo's memory in this new SQLite file (to explore it afterwards: "
        "show, why, history, graph)",
    )
    p.set_defaults(func=_cmd_demo)

    def store_cmd(
        name: str, help_: str, creates: bool = False, revises: bool = False
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_)
        store_arguments(p, creates=creates)
        p.add_argument("--json", action="store_true", help="machine-readable output")
        if creates or revises:
            p.add_argument(
                "--judge",
                action="store_true",
                help="ask the judge the environment configures (STATEGRAPH_JUDGE_MODEL, and "
                "OPENAI_BASE_URL or OPENAI_API_KEY) about what logic leaves undecided",
            )
        if creates:
            p.add_argument(
                "--rules",
                metavar="PACKS",
                help="rule packs that link memories through their atoms: 'all' or "
                "comma-separated names (kept in the store for later commands)",
            )
            p.add_argument(
                "--grounder",
                metavar="NAME",
                help="ground memory text into atoms, e.g. stategraph.rule_grounder.v1 (kept "
                "in the store)",
            )
            p.add_argument(
                "--reversals",
                choices=REVERSALS,
                help="a new fact that reads as reversing or replacing a holding one: "
                "'supersede' it when read cleanly, else ask (a new store's), or always 'ask' "
                "(kept in the store)",
            )
        return p

    p = store_cmd("add", "add a state with its justifications", creates=True)
    p.add_argument("--id", required=True)
    p.add_argument("--kind", default="fact")
    p.add_argument("--text", default="")
    p.add_argument("--status", choices=["pending", "executed"], help="actions only")
    p.add_argument(
        "--because",
        action="append",
        metavar="IDS",
        help="one alternative justification: comma-separated premises; repeat for more",
    )
    p.add_argument("--unless", nargs="+", metavar="ID")
    p.add_argument("--context", nargs="+", metavar="ID", help="candidate premises")
    p.add_argument(
        "--session",
        metavar="NAME",
        help="the session or turn it was written in (candidates fall back on its facts)",
    )
    p.add_argument("--max-depth", type=int)
    p.set_defaults(func=_cmd_add)

    p = store_cmd("revise", "apply a change (retract, assert, supersede, ...)", creates=True)
    p.add_argument("--retract", nargs="+", metavar="ID")
    p.add_argument(
        "--change",
        metavar="FILE",
        help="a change as YAML/JSON ('-' for stdin); read under the limits of "
        "stategraph.loaders.CHANGE (no YAML aliases, 16 MiB, 64 levels)",
    )
    p.add_argument("--max-depth", type=int)
    p.set_defaults(func=_cmd_revise)

    p = store_cmd("retract", "retract states (they stay in the history)", revises=True)
    p.add_argument("ids", nargs="+", metavar="ID")
    p.add_argument("--max-depth", type=int)
    p.set_defaults(func=_cmd_retract)

    p = store_cmd("supersede", "replace a state by a new one", revises=True)
    p.add_argument("old", metavar="OLD", help="the state replaced")
    p.add_argument("--id", required=True, help="the new state's id")
    p.add_argument("--text", required=True, help="the new state's text")
    p.add_argument("--kind", default="fact", help="the new state's kind (default fact)")
    p.add_argument("--session", metavar="NAME", help="the session the new state was told in")
    p.add_argument("--max-depth", type=int)
    p.set_defaults(func=_cmd_supersede)

    p = store_cmd(
        "import", "bulk-load new states and justifications from a JSONL file", creates=True
    )
    p.add_argument(
        "file",
        help="one State or Justification (with a head) per line, in any order; streamed",
    )
    p.add_argument(
        "--memories",
        action="store_true",
        help="each line is a memory as an agent writes it ({id, kind, text, status, because, "
        "unless, context}): grounded, linked and given candidates like 'add', one after "
        "another, in one transaction (a bad line writes nothing); progress on stderr",
    )
    p.add_argument(
        "--one-process",
        action="store_true",
        help="with --memories: ground every text in this process (by default, past 2,000 "
        "memories a worker process grounds the texts ahead, on a machine with two CPUs)",
    )
    p.set_defaults(func=_cmd_import)

    p = store_cmd("why", "the proof of a holding state")
    p.add_argument("id")
    as_of_argument(p)
    p.set_defaults(func=_cmd_why)

    p = store_cmd("why-not", "what stops each justification of a state")
    p.add_argument("id")
    as_of_argument(p)
    p.set_defaults(func=_cmd_why_not)

    p = store_cmd("show", "list the states with their truth values")
    as_of_argument(p)
    p.set_defaults(func=_cmd_show)

    p = store_cmd("history", "the revision log")
    check = p.add_mutually_exclusive_group()
    check.add_argument(
        "--verify", action="store_true", help="check the log's hash chain and print its head"
    )
    check.add_argument(
        "--acknowledge-tamper",
        action="store_true",
        help="after a failed --verify the store refuses writes (exit "
        f"{EXIT_INTEGRITY}): having looked at the damage, accept writes again; the breaks stay "
        "in the log and --verify still reports them",
    )
    p.add_argument(
        "--expect-head",
        metavar="SEQ:HASH",
        help="with --verify: a head printed by an earlier verify, kept elsewhere; catches "
        "entries removed from the end of the log since (a head the log does not reach exits "
        f"{EXIT_INTEGRITY} but does not make the store refuse writes)",
    )
    p.add_argument(
        "--deep",
        action="store_true",
        help="with --verify: also check that the stored states, justifications, edges, "
        "review queue and their past (as_of) hold what the log's revisions wrote (edits made "
        "outside stategraph); "
        f"reads every row, a few seconds a million states; exit {EXIT_INTEGRITY} if not",
    )
    p.add_argument("--limit", type=int, metavar="N", help="only the last N entries")
    p.add_argument(
        "--since",
        metavar="SEQ|TIME",
        help="only entries after this sequence number, or at or after this ISO 8601 time",
    )
    p.set_defaults(func=_cmd_history)

    p = store_cmd("graph", "draw the support graph (DOT, Mermaid, SVG or an HTML page)")
    p.add_argument(
        "--format",
        choices=["dot", "mermaid", "svg", "html"],
        default="dot",
        help="dot (default), mermaid, svg (needs Graphviz's dot) or html (one page to browse, "
        "click a state for its proof); --json prints the picture as data instead",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    p.add_argument(
        "--revision",
        type=int,
        metavar="N",
        help="colour states by revision N's verdicts; on a large store (or with --hops) draw "
        "its whole cone and what is within --hops of it",
    )
    p.add_argument("--around", metavar="ID", help="draw the neighbourhood of one state")
    p.add_argument(
        "--hops",
        type=int,
        metavar="N",
        help="how far out to draw (default 2 with --around, 1 around a revision's cone; 0: "
        "the cone or the state alone)",
    )
    p.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="draw at most N nodes, states and justifications together (default 150); a "
        "store this small is drawn whole; a neighbourhood stops at the first state that would "
        "pass it, and says so on stderr (a revision's cone is drawn whole whatever N)",
    )
    p.set_defaults(func=_cmd_graph)

    if for_command in _PLUGINS:
        modules = [_PLUGINS[for_command][0]]
    elif for_command is not None and for_command in sub.choices:
        modules = []
    elif listing:
        modules = []
        for name, (_, help_) in _PLUGINS.items():
            sub.add_parser(name, help=help_, add_help=False)
    else:
        modules = list(dict.fromkeys(module for module, _ in _PLUGINS.values()))
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    for command in sub.choices.values():  # --debug after the command name works too
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS)
    return parser


def _exit_code(exc: BaseException) -> tuple[int, str]:
    """The exit code and the one-line message for an error."""
    if isinstance(exc, StategraphError):
        code = next(c for cls, c in EXIT_CODES if isinstance(exc, cls))
        return code, str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return EXIT_BUSY, f"the store is busy ({exc}): another process is writing; retry later"
    if isinstance(exc, sqlite3.Error):
        return EXIT_STORE, f"the store cannot be used: {type(exc).__name__}: {exc}"
    hint = "rerun with --debug and report the traceback"
    return EXIT_INTERNAL, f"internal error: {type(exc).__name__}: {exc} ({hint})"


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the flush at exit cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass
    finally:
        os.close(devnull)


class _Interrupts:
    """Remembers a Ctrl-C while a command runs.

    Python raises ``KeyboardInterrupt`` wherever the signal lands, and a library that calls
    back into Python (pydantic serialising a report) may wrap it in an error of its own; the
    flag lets :func:`main` report that as the interruption it was, not as an internal error.
    Installed only over Python's default handler, in the main thread, and removed after.
    """

    def __init__(self) -> None:
        self.received = False
        self._previous: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        self.received = True
        raise KeyboardInterrupt

    def __enter__(self) -> _Interrupts:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            try:
                self._previous = signal.signal(signal.SIGINT, self._handler)
            except ValueError:  # not the main thread
                self._previous = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def _interrupted(debug: bool) -> int:
    if debug:
        traceback.print_exc()
    print("stategraph: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``stategraph`` console script.

    Returns:
        The exit code (see :data:`EXIT_CODES` and ``stategraph --help``).
    """
    debug = False
    with _Interrupts() as interrupts:
        try:
            argv = sys.argv[1:] if argv is None else list(argv)
            command = next((a for a in argv if not a.startswith("-")), None)
            args = build_parser(command, listing=command is None).parse_args(argv)
            debug = bool(args.debug)
            with _no_new_store_left(args):
                code = int(args.func(args))
            sys.stdout.flush()  # a closed pipe shows here, not at exit, where it cannot be caught
            return code
        except BrokenPipeError:
            _quiet_stdout()
            return EXIT_BROKEN_PIPE
        except KeyboardInterrupt:
            return _interrupted(debug)
        except Exception as exc:
            if interrupts.received:
                return _interrupted(debug)
            code, message = _exit_code(exc)
            if debug:
                traceback.print_exc()
            # every credential out, whatever the message quotes (a driver's error included)
            print(f"stategraph: error: {redact(message, *(argv or ()))}", file=sys.stderr)
            return code
