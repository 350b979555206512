"""``stategraph bench perf``: the options, and the run behind them.

``bench`` takes case paths as positionals, so ``perf`` arrives as its first PATH; the bench
command hands over to :func:`run_command` then. The options live on the ``bench`` parser (added
by :func:`add_arguments`) and are refused without ``perf``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from stategraph.bench.perf.report import render
from stategraph.bench.perf.runner import ALTERNATIVES, PerfOptions, run_perf

__all__ = [
    "PERF_OPTIONS",
    "add_arguments",
    "parse_sizes",
    "refuse_stray_options",
    "run_command",
]

PERF_OPTIONS = (
    "sizes",
    "premises",
    "seed",
    "budget",
    "min_samples",
    "profile",
    "perf_systems",
    "text",
    "recall",
    "workload",
    "asof",
)
"""Attribute names of the options only ``bench perf`` reads."""


def parse_sizes(text: str) -> list[int]:
    """``"1e3,1e4"`` -> ``[1000, 10000]``.

    Raises:
        argparse.ArgumentTypeError: on anything but positive whole numbers.
    """
    try:
        sizes = [int(float(part)) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of sizes: {text!r}") from None
    if not sizes or any(s < 2 or float(s) != float(int(s)) for s in sizes):
        raise argparse.ArgumentTypeError(f"sizes must be whole numbers >= 2: {text!r}")
    return sizes


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the ``bench perf`` options to the ``bench`` parser (default None: not given)."""
    g = p.add_argument_group("bench perf (performance against store size)")
    g.add_argument("--sizes", type=parse_sizes, help="store sizes, e.g. 1e3,1e4,1e5,1e6")
    g.add_argument("--premises", type=int, help="random premises retracted per size (50)")
    g.add_argument("--seed", type=int, help="workload seed (0)")
    g.add_argument("--budget", type=float, help="seconds of measuring per system and size (60)")
    g.add_argument("--min-samples", type=int, help="premises measured whatever the budget (5)")
    g.add_argument("--profile", type=Path, help="write cProfile stats of the engine here")
    g.add_argument(
        "--text",
        action="store_true",
        default=None,
        help="the cost of writing text memories (import, add, revise) instead: see "
        "stategraph.bench.perf.text; --sizes defaults to 1e3,1e4,1e5, --budget bounds the "
        "from-scratch linker per size (60)",
    )
    g.add_argument(
        "--recall",
        action="store_true",
        default=None,
        help="the cost of recall (bounded ranking beside the exhaustive one, over a mix of "
        "dense, rare, English and Chinese queries) and of indexing for it on add: see "
        "stategraph.bench.perf.recall; --sizes defaults to 1e4,1e5; with --store "
        "postgresql://..., on PostgreSQL too (a scratch tenant per size)",
    )
    g.add_argument(
        "--workload",
        choices=["sparse", "dense", "both"],
        help="with --text: the household stream (sparse, the default), the dense one where "
        "thousands of memories share a pattern (stategraph.bench.perf.densegen), or both",
    )
    g.add_argument(
        "--asof",
        action="store_true",
        default=None,
        help="the cost of reading the past (Memory.as_of) beside the same reads now: see "
        "stategraph.bench.perf.asof; --sizes defaults to 1e5 (with a tenth as many revisions)",
    )
    g.add_argument(
        "--perf-system",
        action="append",
        dest="perf_systems",
        choices=list(ALTERNATIVES),
        help="an alternative to run (repeatable; default: all)",
    )


def refuse_stray_options(args: argparse.Namespace) -> bool:
    """True (with a message on stderr) when a ``bench perf`` option was given without ``perf``."""
    given = [o for o in PERF_OPTIONS if getattr(args, o, None) is not None]
    if given:
        option = "--" + given[0].replace("_", "-").replace("perf-systems", "perf-system")
        print(f"bench: {option} is only read by 'bench perf'", file=sys.stderr)
    return bool(given)


def run_command(args: argparse.Namespace, rest: list[str]) -> int:
    """Run ``bench perf`` as parsed; 0 when every system agrees with stategraph."""
    if rest:
        print(f"bench perf: unexpected arguments {rest}", file=sys.stderr)
        return 2
    if args.text:
        return _run_text(args)
    if args.asof:
        return _run_asof(args)
    if args.recall:
        return _run_recall(args)
    options = PerfOptions()
    if args.sizes:
        options.sizes = args.sizes
    if args.premises is not None:
        options.premises = args.premises
    if args.seed is not None:
        options.seed = args.seed
    if args.budget is not None:
        options.budget_s = args.budget
    if args.min_samples is not None:
        options.min_samples = args.min_samples
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
        options.profile = args.profile.resolve()
    if args.perf_systems:
        options.systems = args.perf_systems
    doc = run_perf(options)
    if args.json:
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        print(render(doc))
    agree = all(
        s.get("agree", True) for size in doc["sizes"].values() for s in size["systems"].values()
    )
    return 0 if agree else 1


def _run_asof(args: argparse.Namespace) -> int:
    from stategraph.bench.perf.asof import AsOfOptions, render_asof, run_asof

    options = AsOfOptions(seed=args.seed or 0)
    if args.sizes:
        options.sizes = args.sizes
    doc = run_asof(options)
    print(json.dumps(doc, indent=2, sort_keys=True) if args.json else render_asof(doc))
    return 0


def _run_text(args: argparse.Namespace) -> int:
    from stategraph.bench.perf.text import TextPerfOptions, render_text, run_text

    options = TextPerfOptions()
    if args.sizes:
        options.sizes = args.sizes
    if args.seed is not None:
        options.seed = args.seed
    if args.budget is not None:
        options.relink_budget_s = args.budget
    if args.workload is not None:
        options.workloads = ["sparse", "dense"] if args.workload == "both" else [args.workload]
    doc = run_text(options)
    print(json.dumps(doc, indent=2, sort_keys=True) if args.json else render_text(doc))
    return 0


def _run_recall(args: argparse.Namespace) -> int:
    from stategraph.bench.perf.recall import RecallPerfOptions, render_recall, run_recall

    options = RecallPerfOptions()
    if args.sizes:
        options.sizes = args.sizes
    if args.seed is not None:
        options.seed = args.seed
    if args.store:
        if not str(args.store).startswith("postgresql://"):
            print("bench perf --recall: --store takes a postgresql:// URL", file=sys.stderr)
            return 2
        options.postgres = args.store
    doc = run_recall(options)
    print(json.dumps(doc, indent=2, sort_keys=True) if args.json else render_recall(doc))
    agree = all(r["agree"] == r["queries"] for r in doc["recall"].values())
    return 0 if agree else 1
