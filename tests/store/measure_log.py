"""Measure what a hub revision costs the store, side by side for two versions of stategraph.

Not a test (nothing here is timed in CI): the figures behind issue 13 item 5 and issue 14
item 1. Each version runs in fresh subprocesses, one after the other on the same machine::

    python tests/store/measure_log.py --before /tmp/sg_before --after . --beliefs 50000

``--before`` and ``--after`` are source trees (folders holding ``stategraph/``, ``rules/`` and
``grounding/``), e.g. ``git archive <commit> stategraph rules grounding | tar -x -C DIR``.

The store: a ``hub`` fact, 50 other facts, ``n`` beliefs on the hub and one other fact (a third
also on a second fact: they stay), and a plan on each belief, loaded with ``bulk_load``; then
the hub is retracted, which reports about ``2n`` states. Measured: the bulk load, opening the
store (median of 5, and with another process holding the write lock), the revision and its
commit, the hub's log row against its JSON report, the write-ahead log the revision wrote,
reading the log back (time and peak RSS of a fresh process) and verifying it; and the commit
time of small revisions on a small store of their own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FACTS = 50


def states(n: int) -> Iterator[dict[str, Any]]:
    yield {"id": "hub", "kind": "fact", "text": "the hub fact"}
    for k in range(FACTS):
        yield {"id": f"f{k}", "kind": "fact", "text": f"fact {k}"}
    for i in range(n):
        yield {"id": f"b{i}", "kind": "belief", "text": f"belief {i}"}
        yield {"id": f"c{i}", "kind": "plan", "text": f"plan {i}"}


def justifications(n: int) -> Iterator[dict[str, Any]]:
    for i in range(n):
        yield {"head": f"b{i}", "premises": ["hub", f"f{i % FACTS}"]}
        if i % 3 == 0:
            yield {"head": f"b{i}", "premises": [f"f{(i + 7) % FACTS}"]}
        yield {"head": f"c{i}", "premises": [f"b{i}"]}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_build(path: str, n: int) -> dict[str, Any]:
    from stategraph import Memory

    started = time.perf_counter()
    with Memory.open(path) as mem:
        mem.bulk_load(states(n), justifications(n))
    return {"bulk_load_s": time.perf_counter() - started, "file_mb": os.path.getsize(path) / 1e6}


def child_open(path: str) -> dict[str, Any]:
    from stategraph import Memory

    times = []
    for _ in range(5):
        started = time.perf_counter()
        mem = Memory.open(path)
        times.append(time.perf_counter() - started)
        mem.close()
    return {"open_ms_median": statistics.median(times) * 1e3}


def child_open_busy(path: str) -> dict[str, Any]:
    """Open and read while another process holds the write lock."""
    from stategraph import Memory

    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    started = time.perf_counter()
    try:
        with Memory.open(path) as mem:
            n = len(mem.holding())
        outcome = f"opened, {n} holding"
    except Exception as exc:  # the figure is what happens, whatever it is
        outcome = f"{type(exc).__name__}: {str(exc).split(': ', 1)[-1][:60]}"
    elapsed = time.perf_counter() - started
    holder.execute("ROLLBACK")
    holder.close()
    return {"open_busy_ms": elapsed * 1e3, "open_busy": outcome}


def _time_commits(mem: Any) -> list[float]:
    """Wrap the store's commit: the list fills with the seconds each commit took."""
    commit, spent = mem.store.commit, []

    def timed_commit(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            return commit(*args)
        finally:
            spent.append(time.perf_counter() - started)

    mem.store.commit = timed_commit
    return spent


def child_revise(path: str) -> dict[str, Any]:
    from stategraph import Memory

    mem = Memory.open(path)
    spent = _time_commits(mem)
    conn = mem.store.conn  # type: ignore[attr-defined]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wal = Path(f"{path}-wal")
    wal_before = wal.stat().st_size if wal.exists() else 0
    started = time.perf_counter()
    report = mem.retract("hub")
    revise_s = time.perf_counter() - started
    wal_after = wal.stat().st_size
    text = report.model_dump_json(by_alias=True).encode()
    seq = conn.execute("SELECT max(seq) FROM revisions").fetchone()[0]
    row = conn.execute(
        "SELECT length(CAST(change AS BLOB)), length(CAST(report AS BLOB)), "
        "length(CAST(calls AS BLOB)), length(config), typeof(report) FROM revisions WHERE seq=?",
        (seq,),
    ).fetchone()
    mem.close()
    return {
        "report_entries": len(report.entries),
        "revise_s": revise_s,
        "commit_s": spent[0],
        "report_json_mb": len(text) / 1e6,
        "row_report_mb": row[1] / 1e6,
        "row_type": row[4],
        "row_total_mb": (row[0] + row[1] + row[2] + row[3] + 2 * 64 + 32) / 1e6,
        "wal_growth_mb": (wal_after - wal_before) / 1e6,
        "file_mb_after": os.path.getsize(path) / 1e6,
    }


def child_history(path: str) -> dict[str, Any]:
    from stategraph import Memory

    with Memory.open(path) as mem:
        rss = _rss_mb()
        started = time.perf_counter()
        entries = mem.history()
        elapsed = time.perf_counter() - started
        assert entries[-1].report is not None
        return {"history_s": elapsed, "history_peak_rss_mb": _rss_mb() - rss}


def child_iter_history(path: str) -> dict[str, Any]:
    from stategraph.store import SQLiteStore

    store = SQLiteStore(path)
    if not hasattr(store, "iter_history"):
        return {}
    rss = _rss_mb()
    started = time.perf_counter()
    count = sum(1 for _ in store.iter_history(limit=1))
    elapsed = time.perf_counter() - started
    store.close()
    return {"last_entry_s": elapsed, "last_entry_peak_rss_mb": _rss_mb() - rss, "n": count}


def child_verify(path: str) -> dict[str, Any]:
    from stategraph import Memory

    with Memory.open(path) as mem:
        started = time.perf_counter()
        n = mem.verify_log()
        return {"verify_s": time.perf_counter() - started, "entries": n}


def child_small(path: str) -> dict[str, Any]:
    """Small revisions on a small store of its own: the cost a typical commit pays."""
    from stategraph import Memory

    with Memory.open(f"{path}.small") as mem:
        spent = _time_commits(mem)
        mem.fact("f0")
        for i in range(1, 300):
            mem.belief(f"s{i}", because=[f"f{i - 1}" if i % 2 else "f0"])
            mem.fact(f"f{i}")
    spent.sort()
    return {
        "small_commit_ms_p50": spent[len(spent) // 2] * 1e3,
        "small_commit_ms_p90": spent[len(spent) * 9 // 10] * 1e3,
    }


STEPS = {
    "build": child_build,
    "open": child_open,
    "open_busy": child_open_busy,
    "revise": child_revise,
    "history": child_history,
    "iter_history": child_iter_history,
    "verify": child_verify,
    "small": child_small,
}


def run_child(tree: Path, step: str, path: Path, n: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    args = [sys.executable, __file__, "--child", step, str(path), str(n)]
    out = subprocess.run(args, env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    if out.returncode:
        raise SystemExit(f"{tree} {step}: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    return result


def measure(tree: Path, folder: Path, n: int) -> dict[str, Any]:
    path = folder / "hub.db"
    figures: dict[str, Any] = {}
    for step in STEPS:
        figures.update(run_child(tree, step, path, n))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--beliefs", type=int, default=50_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    for name, tree in (("before", args.before), ("after", args.after)):
        with tempfile.TemporaryDirectory() as folder:
            results[name] = measure(tree, Path(folder), args.beliefs)
    if args.json:
        print(json.dumps(results, indent=1))
        return
    keys = list(dict.fromkeys(k for r in results.values() for k in r))
    print(f"{'':28} {'before':>28} {'after':>28}")
    for key in keys:
        cells = [results[name].get(key, "") for name in ("before", "after")]
        shown = [f"{c:.4g}" if isinstance(c, float) else str(c) for c in cells]
        print(f"{key:28} {shown[0]:>28} {shown[1]:>28}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        step, path, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
        if step == "build":
            print(json.dumps(child_build(path, n)))
        else:
            print(json.dumps(STEPS[step](path)))  # type: ignore[operator]
    else:
        main()
