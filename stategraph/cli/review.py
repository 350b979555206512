"""The commands a person uses on a revision: review, confirm and reject, and the audit log.

``review``, ``confirm`` and ``reject`` work the review queue (:mod:`stategraph.review`);
``audit export``, ``audit verify`` and ``audit show`` hand the log to someone without the store
(:mod:`stategraph.audit`, :mod:`stategraph.audit.render`). Registered by
:mod:`stategraph.cli` like the other feature commands, with the same error handling and exit
codes (a log that does not verify or replay exits 4).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from stategraph.cli.main import _emit, _head, _open, store_arguments
from stategraph.errors import InvalidInputError
from stategraph.escaping import LINE_ESCAPES
from stategraph.memory import Memory
from stategraph.store.sqlite import SQLiteStore

__all__ = ["register"]


def _decision_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the state waiting for review")
    p.add_argument("--by", required=True, metavar="NAME", help="who decides (recorded)")
    p.add_argument("--note", default="", metavar="TEXT", help="why (recorded)")
    p.add_argument(
        "--at",
        metavar="TIME",
        help="when the decision was made, ISO 8601 (recorded; default: the log entry's time)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def register(subparsers: Any) -> None:
    """Add ``review``, ``confirm``, ``reject`` and ``audit`` to a CLI's subparsers."""
    p = subparsers.add_parser(
        "review", help="list the states waiting for a person (needs_confirmation), and why"
    )
    store_arguments(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_cmd_review)

    p = subparsers.add_parser(
        "confirm", help="settle a flagged state: it holds on your word (logged, cascades)"
    )
    store_arguments(p)
    _decision_args(p)
    p.set_defaults(func=_cmd_decide, decision="confirmed")

    p = subparsers.add_parser(
        "reject", help="settle a flagged state: it is retracted (logged, cascades)"
    )
    store_arguments(p)
    _decision_args(p)
    p.set_defaults(func=_cmd_decide, decision="rejected")

    audit = subparsers.add_parser(
        "audit", help="export the revision log, verify and replay an export, show a revision"
    )
    sub = audit.add_subparsers(dest="audit_command", required=True, metavar="COMMAND")
    p = sub.add_parser("export", help="write the log as JSON Lines, with its hash chain")
    store_arguments(p)
    p.add_argument("file", help="the file to write ('-' for standard output)")
    p.add_argument("--since", type=int, default=0, metavar="N", help="only entries after N")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser(
        "verify", help="check an export's hash chain and replay its revisions, without the store"
    )
    p.add_argument("file", help="a file written by 'audit export'")
    p.add_argument(
        "--expect-head",
        metavar="SEQ:HASH",
        help="a head kept elsewhere ('history --verify' prints it): the export must reach it",
    )
    p.add_argument("--chain-only", action="store_true", help="check the hash chain, do not replay")
    p.add_argument(
        "--partial",
        action="store_true",
        help="accept an export that starts after entry 1 ('audit export --since'): its chain "
        "is checked from what its first line says, nothing is replayed",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_cmd_verify)

    p = sub.add_parser("show", help="one revision as a page for a reviewer (Markdown or HTML)")
    store_arguments(p)
    p.add_argument("seq", type=int, metavar="N", help="the revision (log entry) to show")
    p.add_argument("--format", choices=["md", "html"], default="md")
    p.set_defaults(func=_cmd_show)


def _sqlite(mem: Memory) -> SQLiteStore:
    store = mem.store
    if not isinstance(store, SQLiteStore):  # _open always opens one
        raise InvalidInputError("audit", [("store", "the audit commands need a SQLite store")])
    return store


def _cmd_review(args: argparse.Namespace) -> int:
    from stategraph.audit.render import reason_text

    with _open(args) as mem:
        pending = mem.pending_review()
    if args.json:
        print(json.dumps([p.model_dump(mode="json") for p in pending], ensure_ascii=False))
        return 0
    if not pending:
        print("nothing waits for review")
        return 0
    for p in pending:
        since = f"flagged in revision {p.flagged_in}" if p.flagged_in else "never graded"
        then = f", {p.consequence.value}" if p.consequence else ""
        print(f"{p.id}  {p.kind}{then}  {p.truth.value}  {since}: {p.text}".translate(LINE_ESCAPES))
        print(f"    {reason_text(p.reason)}".translate(LINE_ESCAPES))
        if p.waiting:
            print(f"    {len(p.waiting)} rest on it, settled with it: {', '.join(p.waiting)}")
    print(f"{len(pending)} waiting: settle each with 'stategraph confirm' or 'stategraph reject'")
    return 0


def _cmd_decide(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        settle = mem.confirm if args.decision == "confirmed" else mem.reject
        report = settle(args.id, by=args.by, note=args.note, at=args.at)
        _emit(report, args.json, mem, args.store)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from stategraph.audit.export import export

    if args.since < 0:
        raise InvalidInputError("audit", [("--since", "must be a sequence number >= 0")])
    with _open(args) as mem:
        store = _sqlite(mem)
        if args.file == "-":
            export(store, sys.stdout, args.since)
            return 0
        count, first, last = export(store, Path(args.file), args.since)
        seq, digest = store.head()
    what = f"entries {first} to {last}" if count else "no entries"
    print(f"exported {what} to {args.file}; the store's head is {seq}:{digest}")
    if first > 1:
        print("it starts after entry 1: verify it with 'stategraph audit verify --partial'")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from stategraph.audit.export import verify_export

    expect = _head(args.expect_head) if args.expect_head else None
    result = verify_export(args.file, expect, replay=not args.chain_only, partial=args.partial)
    partial = result.first > 1
    if args.json:
        print(
            json.dumps(
                {
                    "entries": result.count,
                    "first": result.first,
                    "partial": partial,
                    "head": f"{result.head[0]}:{result.head[1]}",
                    "replayed": result.replayed,
                    "not_replayed": result.not_replayed,
                }
            )
        )
        return 0
    if not result.count:
        print("the export holds no entries")
        return 0
    print(
        f"hash chain intact: entries {result.first} to {result.head[0]}; "
        f"head {result.head[0]}:{result.head[1]}"
    )
    if partial:
        print(
            f"partial export (--partial): entries 1 to {result.first - 1} are not in it; its "
            "chain starts from the prev_hash its first line gives, which only a head kept "
            "elsewhere ties to the store's log"
        )
    if args.chain_only:
        print("not replayed (--chain-only)")
    elif result.not_replayed:
        print(f"replayed {result.replayed} of {result.count}: {result.not_replayed}")
    else:
        print(f"replayed all {result.replayed}: every report, judge call and config identical")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from stategraph.audit.export import entry_row
    from stategraph.audit.render import blocks, to_html, to_markdown

    with _open(args) as mem:
        store = _sqlite(mem)
        row = entry_row(store, args.seq)
        if row is None:
            head = store.head()[0]
            raise InvalidInputError(
                "audit", [("N", f"the log has no entry {args.seq} (its entries are 1 to {head})")]
            )
        texts = {}
        if not row.is_bulk:
            report = json.loads(row.report)
            ids = {c["id"] for c in report["changed"]} | {e["id"] for e in report["entries"]}
            texts = {sid: st.text for sid, st in store.subgraph(ids, full=True).states.items()}
    page = blocks(
        row.seq,
        row.at,
        texts,
        (row.change, row.report, row.config, row.calls, row.prev_hash, row.hash),
    )
    print(to_html(page) if args.format == "html" else to_markdown(page), end="")
    return 0
