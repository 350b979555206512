"""The ``stategraph`` command line: a thin layer over :class:`stategraph.Memory`.

Feature packages add their own commands through a ``register(subparsers)`` function
(``stategraph.grounding.cli``, ``stategraph.bench.cli``), so this module stays small.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from stategraph import demo
from stategraph.errors import InvalidInputError, StategraphError
from stategraph.memory import Memory
from stategraph.model import Justification, Report, State, Truth

__all__ = ["main", "render_report"]

_PLUGINS = ("stategraph.grounding.cli", "stategraph.bench.cli")

M = TypeVar("M", bound=BaseModel)


def render_report(report: Report) -> str:
    """A report as aligned text lines, one per changed and touched state."""
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
        for lost in r.lost:
            gone = ", ".join(lost.failed + lost.blocked_by) or "removed"
            via = f" via {', '.join(lost.justification.rules)}" if lost.justification.rules else ""
            extra.append(f"lost [{', '.join(lost.justification.premises)}]{via} ({gone} gone)")
        if r.surviving:
            extra.append(f"carried by [{', '.join(r.surviving.premises)}]")
        if r.cycle:
            extra.append(f"cycle through unless: {', '.join(r.cycle)}")
        if r.cause in ("depth_limit", "unverified_candidate", "undefined_premise"):
            extra.append(r.cause.replace("_", " "))
        lines.append(
            f"  {e.id:<10} {e.kind:<7} {e.verdict.value:<19} depth {e.depth}  {'; '.join(extra)}"
        )
    return "\n".join(lines)


def _emit(report: Report, as_json: bool) -> None:
    print(report.to_json() if as_json else render_report(report))


def _cmd_demo(args: argparse.Namespace) -> int:
    _emit(demo.run(args.lang, text_only=args.text), args.json)
    return 0


def _open(args: argparse.Namespace) -> Memory:
    return Memory.open(args.store, max_depth=getattr(args, "max_depth", None))


def _alternatives(raw: Sequence[str] | None) -> list[list[str]]:
    return [[p for p in alt.split(",") if p] for alt in raw or ()]


def _cmd_add(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        state: dict[str, Any] = {"id": args.id, "kind": args.kind, "text": args.text}
        if args.status:
            state["status"] = args.status
        report = mem.add(
            state,
            because=_alternatives(args.because),
            unless=args.unless or (),
            context=args.context or (),
        )
        _emit(report, args.json)
    return 0


def _read_change(source: str) -> Any:
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidInputError("change", [(source, f"not valid YAML/JSON: {exc}")]) from None


def _cmd_revise(args: argparse.Namespace) -> int:
    change: dict[str, Any] = _read_change(args.change) if args.change else {}
    if args.retract:
        change = {**change, "retract": [*change.get("retract", ()), *args.retract]}
    with _open(args) as mem:
        _emit(mem.revise(change), args.json)
    return 0


def _import_lines(path: Path, model: type[M]) -> Iterator[M]:
    """One pass over a JSONL import file: its states, or its justifications (the lines with
    a ``head``). Lines may come in any order: the file is read once for each."""
    justifications = model is Justification
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInputError("import", [(where, f"not JSON: {exc.msg}")]) from None
            if not isinstance(obj, dict):
                raise InvalidInputError("import", [(where, "expected a JSON object")])
            if ("head" in obj) != justifications:
                continue
            try:
                yield model.model_validate(obj)
            except ValidationError as exc:
                errors = [
                    (".".join([where, *(str(p) for p in e["loc"])]), e["msg"]) for e in exc.errors()
                ]
                raise InvalidInputError("import", errors) from None


def _cmd_import(args: argparse.Namespace) -> int:
    path = Path(args.file)
    with _open(args) as mem:
        summary = mem.bulk_load(_import_lines(path, State), _import_lines(path, Justification))
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(
            f"imported {summary['states']} states and {summary['justifications']} "
            f"justifications: {summary['holding']} hold, {summary['undefined']} undefined "
            f"(sha256 {summary['sha256'][:12]})"
        )
    return 0


def _cmd_why(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        if args.json:
            print(mem.why(args.id).model_dump_json(indent=2))
        else:
            print(mem.why(args.id).render())
    return 0


def _cmd_why_not(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        w = mem.why_not(args.id)
        print(w.model_dump_json(indent=2) if args.json else w.render())
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        rows: list[dict[str, Any]] = [
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
    marks = {Truth.true.value: "+", Truth.false.value: "-", Truth.undefined.value: "?"}
    for r in rows:
        status = "" if r["active"] else " (inactive)"
        print(f"{marks[r['truth']]} {r['id']:<10} {r['kind']:<7} {r['text']}{status}")
    return 0


def _cmd_history(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        if args.verify:
            print(f"log verified: {mem.verify_log()} entries, hash chain intact")
            return 0
        entries = mem.history()
        if args.json:
            print(json.dumps([e.model_dump(mode="json") for e in entries], ensure_ascii=False))
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with every registered command."""
    parser = argparse.ArgumentParser(
        prog="stategraph", description="Dependency-aware state revision for agent memory."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("demo", help="run the seed scenario (a move that is called off)")
    p.add_argument("--lang", choices=sorted(demo.SCENARIO), default="en")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--text",
        action="store_true",
        help="text only: the grounder and the rule packs find the dependencies",
    )
    p.set_defaults(func=_cmd_demo)

    def store_cmd(name: str, help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_)
        p.add_argument("store", help="SQLite store file (created if missing)")
        p.add_argument("--json", action="store_true", help="machine-readable output")
        return p

    p = store_cmd("add", "add a state with its justifications")
    p.add_argument("--id", required=True)
    p.add_argument("--kind", default="fact")
    p.add_argument("--text", default="")
    p.add_argument("--status", choices=["pending", "executed"])
    p.add_argument(
        "--because",
        action="append",
        metavar="IDS",
        help="one alternative justification: comma-separated premises; repeat for more",
    )
    p.add_argument("--unless", nargs="+", metavar="ID")
    p.add_argument("--context", nargs="+", metavar="ID", help="candidate premises")
    p.add_argument("--max-depth", type=int)
    p.set_defaults(func=_cmd_add)

    p = store_cmd("revise", "apply a change (retract, assert, supersede, ...)")
    p.add_argument("--retract", nargs="+", metavar="ID")
    p.add_argument("--change", metavar="FILE", help="a change as YAML/JSON ('-' for stdin)")
    p.add_argument("--max-depth", type=int)
    p.set_defaults(func=_cmd_revise)

    p = store_cmd("import", "bulk-load new states and justifications from a JSONL file")
    p.add_argument(
        "file",
        help="one State or Justification (with a head) per line, in any order; streamed",
    )
    p.set_defaults(func=_cmd_import)

    p = store_cmd("why", "the proof of a holding state")
    p.add_argument("id")
    p.set_defaults(func=_cmd_why)

    p = store_cmd("why-not", "what stops each justification of a state")
    p.add_argument("id")
    p.set_defaults(func=_cmd_why_not)

    p = store_cmd("show", "list the states with their truth values")
    p.set_defaults(func=_cmd_show)

    p = store_cmd("history", "the revision log")
    p.add_argument("--verify", action="store_true", help="check the log's hash chain")
    p.set_defaults(func=_cmd_history)

    for name in _PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``stategraph`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except StategraphError as exc:
        print(f"stategraph: error: {exc}", file=sys.stderr)
        return 2
