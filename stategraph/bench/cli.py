"""The ``bench`` command: run the suite (or given cases) through the systems and report.

``register(subparsers)`` adds the command to the main ``stategraph`` parser. The word ``perf``
is reserved for the performance benchmark (``bench perf``), added separately: it is never read
as a case path here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stategraph.bench import grounding as grounding_bench
from stategraph.bench import recall_cli
from stategraph.bench.cases import Case, CaseError, load_cases, shipped_cases
from stategraph.bench.metrics import DEPTH_BUCKETS, GroupScore, SystemScore
from stategraph.bench.perf import cli as perf_cli
from stategraph.bench.runner import SYSTEM_NAMES, BenchResult, run_bench, stderr_progress
from stategraph.bench.svg import f1_by_depth_svg

__all__ = ["RESERVED", "bench_json", "register", "render_table", "run_command"]

RESERVED = frozenset({"perf"})
"""Sub-command names of ``bench`` kept free for other modules."""


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``bench`` to the main parser's sub-commands; returns the new parser."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "bench",
        help="run the StateChangeBench-style suite and report Impact-F1",
        description="Run the shipped suite (or the given case files and folders) through the "
        "systems and report Impact-F1 by depth, collateral, residue and flagged counts.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="case files or folders")
    p.add_argument(
        "--system",
        action="append",
        dest="systems",
        choices=SYSTEM_NAMES,
        help="a system to run (repeatable; default: all)",
    )
    p.add_argument("--track", choices=("declared", "recovered", "text"), help="only this track")
    p.add_argument("--tag", help="only the cases with this tag (e.g. blind)")
    p.add_argument("--json", action="store_true", help="write the results as JSON on stdout")
    p.add_argument("--plot", metavar="FILE", help="write an SVG of F1 by depth per system")
    p.add_argument(
        "--include-dev",
        action="store_true",
        help="also score the development split the similarity threshold is tuned on",
    )
    p.add_argument(
        "--store",
        metavar="URL",
        help="run stategraph's systems on this store's backend, each case in a scratch store: "
        "postgresql://... (a fresh tenant per case) or sqlite:///DIR (a file per case)",
    )
    p.add_argument(
        "--tradeoff",
        action="store_true",
        help="compare candidate settings on the text cases (logic only): silent misses "
        "against unneeded questions, blind cases apart",
    )
    perf_cli.add_arguments(p)
    recall_cli.add_arguments(p)
    grounding_bench.add_arguments(p)
    p.set_defaults(func=run_command)
    return p


def _load(paths: list[str], track: str | None, tag: str | None = None) -> list[Case]:
    for p in paths:
        if p in RESERVED and not Path(p).exists():
            raise CaseError(p, "", f"'bench {p}' is not available in this installation")
    cases = load_cases(paths) if paths else shipped_cases()
    return [
        c for c in cases if (track is None or c.track == track) and (tag is None or tag in c.tags)
    ]


def run_command(args: argparse.Namespace) -> int:
    """Run ``bench`` as parsed (``bench perf ...`` goes to the perf benchmark); 0 on success."""
    if args.paths[:1] == ["perf"]:
        return perf_cli.run_command(args, args.paths[1:])
    if perf_cli.refuse_stray_options(args):
        return 2
    if grounding_bench.wanted(args):
        return grounding_bench.run_command(args)
    if recall_cli.wanted(args) or args.instances is not None:
        if recall_cli.refuse_stray_options(args):
            return 2
        return recall_cli.run_command(args, _load)
    cases = _load(list(args.paths), args.track, args.tag)
    if not cases:
        print("bench: no case to run", file=sys.stderr)
        return 1
    if args.tradeoff:
        from stategraph.bench import tradeoff

        print(tradeoff.render(tradeoff.tradeoff(cases, progress=stderr_progress())))
        return 0
    names = args.systems or list(SYSTEM_NAMES)
    result = run_bench(
        cases,
        names,
        include_dev=args.include_dev,
        progress=stderr_progress(),
        store=args.store,
    )
    for name, why in result.skipped.items():
        print(f"bench: {name} skipped: {why}", file=sys.stderr)
    if args.plot:
        Path(args.plot).write_text(f1_by_depth_svg(result.scores), encoding="utf-8")
    if args.json:
        print(json.dumps(bench_json(result), ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(render_table(result))
    return 0


def bench_json(result: BenchResult) -> dict[str, Any]:
    """The ``--json`` document: per-system scores and per-case predictions."""
    return {
        "systems": {name: s.to_dict() for name, s in result.scores.items()},
        "skipped": dict(result.skipped),
        "scored_cases": len(result.scored_cases),
        "dev_cases": sorted(result.dev_cases),
        "similarity_threshold": result.threshold,
        "cases": [
            {
                "id": case.id,
                "system": name,
                "invalidated": sorted(pred.invalidated),
                "flagged": sorted(pred.flagged),
                "expected": sorted(case.expect.invalidated),
                **({"error": pred.error} if pred.error else {}),
            }
            for name, case, pred in result.predictions
        ],
    }


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]


def render_table(result: BenchResult) -> str:
    """A plain-text table, one row per system; then, for the systems that flag, one row per
    group of cases (track and batch) with both failures side by side: silent misses and
    unneeded questions per change, with the question precision."""
    head = ["system", "P", "R", "F1", *(f"F1@{b}" for b in DEPTH_BUCKETS)]
    head += ["collat", "resid", "silent", "flag", "unneed/ch", "qprec", "flagHN", "cons", "err"]
    head += ["calls/case", "tok/case", "cand/st", "logic%"]
    lines = _columns([head] + [_row(n, s) for n, s in result.scores.items()])
    groups = [
        [name, key, *_group_row(g)]
        for name, s in result.scores.items()
        if s.flagged or s.cost
        for key, g in sorted(s.by_group.items())
    ]
    if groups:
        head = ["system", "group", "changes", "F1", "silent", "silent%", "collat"]
        head += ["unneed/ch", "qprec", "wait(gold/keep)", "calls/ch"]
        lines += ["", *_columns([head, *groups])]
    note = f"{len(result.scored_cases)} cases scored"
    if result.dev_cases:
        note += f"; {len(result.dev_cases)} development cases"
        note += " included" if _dev_scored(result) else " held out"
    if result.threshold is not None:
        note += f"; similarity threshold {result.threshold:.2f}"
    return "\n".join([*lines, note])


def _dev_scored(result: BenchResult) -> bool:
    return bool(set(result.dev_cases) & set(result.scored_cases))


def _row(name: str, s: SystemScore) -> list[str]:
    by: Mapping[str, Any] = s.by_depth
    return [
        name,
        f"{s.overall.precision:.2f}",
        f"{s.overall.recall:.2f}",
        f"{s.overall.f1:.2f}",
        *(f"{by[b].f1:.2f}" for b in DEPTH_BUCKETS),
        str(s.collateral),
        str(s.residue),
        str(s.silent),
        str(s.flagged),
        f"{s.unneeded_per_change:.2f}",
        f"{100 * s.question_precision:.0f}%",
        str(s.flagged_kept),
        f"{s.consequence_accuracy:.2f}",
        str(s.errors),
        f"{s.judge_calls_per_case:.2f}" if s.cost else "-",
        f"{s.judge_tokens_per_case:.0f}" if s.cost else "-",
        f"{s.candidates_per_derived:.2f}" if s.cost else "-",
        "-" if s.logic_share is None else f"{100 * s.logic_share:.0f}",
    ]


def _group_row(g: GroupScore) -> list[str]:
    return [
        str(g.cases),
        f"{g.counts.f1:.3f}",
        str(g.silent),
        f"{100 * g.silent_share:.1f}",
        str(g.collateral),
        f"{g.unneeded_per_change:.2f}",
        f"{100 * g.question_precision:.0f}%",
        f"{g.waiting_needed}/{g.waiting_kept}",
        f"{g.judge_calls_per_change:.2f}",
    ]
