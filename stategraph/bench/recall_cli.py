"""``stategraph bench --recall-status`` and ``stategraph bench --mquake``: recall's benchmarks.

The options live on the ``bench`` parser (added by :func:`add_arguments`); the ``bench``
command hands over to :func:`run_command` when one of the two flags is given.

- ``--recall-status``: the status guarantee over the given cases (the shipped suite by default;
  ``--track``, ``--tag`` and ``--store`` as for the suite), :mod:`stategraph.bench.recall_status`.
  Exit status 1 when any failure count is not 0.
- ``--mquake``: retrieval quality on MQuAKE-hard against the BM25 reference,
  :mod:`stategraph.bench.mquake` (``--instances N``: only the first N instances).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from stategraph.bench.cases import Case
from stategraph.memory import Memory

__all__ = ["add_arguments", "refuse_stray_options", "render_mquake", "render_status", "wanted"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add recall's benchmark options to the ``bench`` parser."""
    g = p.add_argument_group("recall's benchmarks")
    g.add_argument(
        "--recall-status",
        action="store_true",
        help="check recall's status guarantee after each case's change (every memory's text as "
        "a query: nothing that does not hold returned, nothing in doubt without ask_first)",
    )
    g.add_argument(
        "--mquake",
        action="store_true",
        help="recall@10 and stale facts in the top 10 on MQuAKE-hard (edits applied), beside "
        "BM25 over every memory (needs the bench extra: rank-bm25)",
    )
    g.add_argument(
        "--instances",
        type=_positive,
        metavar="N",
        help="with --mquake: only the first N of the 429 instances",
    )


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"a whole number >= 1, got {text!r}")
    return n


def wanted(args: argparse.Namespace) -> bool:
    """True when the command line asks for one of recall's benchmarks."""
    return bool(getattr(args, "recall_status", False) or getattr(args, "mquake", False))


def refuse_stray_options(args: argparse.Namespace) -> bool:
    """True (with a message on stderr) for options that do not go together."""
    why = None
    if args.recall_status and args.mquake:
        why = "--recall-status and --mquake are separate runs: give one"
    elif args.instances is not None and not args.mquake:
        why = "--instances is only read by --mquake"
    elif args.mquake and (args.paths or args.track or args.tag or args.store):
        why = "--mquake runs on its own data: no case paths, --track, --tag or --store"
    elif wanted(args) and (args.systems or args.plot or args.include_dev):
        why = "--system, --plot and --include-dev are read by the suite's run only"
    if why:
        print(f"bench: {why}", file=sys.stderr)
    return why is not None


def run_command(
    args: argparse.Namespace, load: Callable[[list[str], str | None, str | None], list[Case]]
) -> int:
    """Run the benchmark the flags ask for; ``load`` reads the cases as ``bench`` does."""
    if args.mquake:
        return _mquake(args)
    cases = load(list(args.paths), args.track, args.tag)
    if not cases:
        print("bench: no case to run", file=sys.stderr)
        return 1
    from stategraph.bench.recall_status import run_recall_status
    from stategraph.bench.stores import scratch_memories

    factory: Callable[..., Memory] = scratch_memories(args.store) if args.store else Memory
    result = run_recall_status(cases, factory=factory, progress=_progress("recall-status"))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(render_status(result))
    return 0 if result["ok"] else 1


def _progress(name: str) -> Callable[[int, int], None]:
    tty = sys.stderr.isatty()

    def report(done: int, total: int) -> None:
        if tty:
            sys.stderr.write(f"\rbench {name}: {done}/{total} cases")
            if done == total:
                sys.stderr.write("\n")
        elif done == total:
            sys.stderr.write(f"bench {name}: {total} cases\n")
        sys.stderr.flush()

    return report


def _mquake(args: argparse.Namespace) -> int:
    try:
        import rank_bm25  # noqa: F401
    except ImportError:
        print(
            "bench: --mquake compares with rank-bm25: pip install 'stategraph[bench]'",
            file=sys.stderr,
        )
        return 1
    from stategraph.bench.mquake import run_mquake

    result = run_mquake(args.instances)
    doc = result.to_dict()
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(render_mquake(doc))
    return 0


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def render_status(result: dict[str, Any]) -> str:
    """A plain-text table of ``--recall-status``, one row per group of cases."""
    head = ["cases", "n", "queries", "returned", "not holding", "in doubt (returned)"]
    head += ["NH returned", "NH as holds", "doubt w/o ask_first", "doubt as holds", "errors"]
    rows = [head]
    for name, t in [*result["groups"].items(), ("all", result["all"])]:
        rows.append(
            [
                name,
                str(t["cases"]),
                str(t["queries"]),
                str(t["returned"]),
                str(t["not_holding"]),
                f"{t['in_doubt']} ({t['in_doubt_returned']})",
                str(t["not_holding_returned"]),
                str(t["not_holding_as_holding"]),
                str(t["in_doubt_without_ask_first"]),
                str(t["in_doubt_as_holding"]),
                str(t["errors"]),
            ]
        )
    verdict = "guarantee held" if result["ok"] else "GUARANTEE BROKEN"
    note = f"{verdict}; {result['seconds']:.1f} s ({result['cpu_seconds']:.1f} s CPU)"
    lines = _table(rows)
    for ex in result["all"].get("examples", [])[:5]:
        lines.append(f"  {ex['case']}: {ex['id']} {ex['what']} (status {ex['status']})")
    for err in result["all"].get("error_cases", [])[:5]:
        lines.append(f"  error: {err}")
    return "\n".join([*lines, note])


def render_mquake(doc: dict[str, Any]) -> str:
    """A plain-text table of ``--mquake``, one row per system and kind of question."""
    head = ["system", "questions", "n", "recall@10", "all@10", "stale in top 10", "with stale"]
    head += ["time"]
    rows = [head]
    for name, s in doc["systems"].items():
        for kind, f in s["by_kind"].items():
            rows.append(
                [
                    name,
                    kind.replace("_", "-"),
                    str(f["questions"]),
                    f"{f['recall_at_10']:.3f}",
                    f"{f['all_support_at_10']:.3f}",
                    f"{f['stale']} ({100 * f['stale_share']:.1f}%)",
                    str(f["questions_with_stale"]),
                    f"{s['seconds']:.1f} s" if kind == "all" else "",
                ]
            )
    note = (
        f"MQuAKE-hard: {doc['instances']} instances, {doc['memories']} memories, "
        f"{doc['edits']} superseded by edits, {doc['distinct_questions']} distinct questions "
        f"(each asked once); stategraph's load and edits {doc['load_seconds']:.1f} s"
    )
    return "\n".join([*_table(rows), note])
