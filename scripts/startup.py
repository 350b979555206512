"""Start-up of the commands that read text (``recall``, ``ground``), side by side with an
earlier checkout.

An agent that shells out to ``stategraph recall`` pays the start-up on every call. This runs
each command in a fresh interpreter from this checkout and from another one, alternately (so
that a busy machine shows as spread, not as a difference), and prints the median wall and CPU
time of each and their ratio::

    python scripts/startup.py --old main            # a commit, exported with git archive
    python scripts/startup.py --old /path/to/tree   # or a source tree
    python scripts/startup.py                       # this checkout alone

The rows marked *warm* run this checkout's command while a warm grounder of this checkout runs
(``stategraph grounder start``), and the other tree's as it is: what an agent that shells out
pays per call with one, beside what it pays today.

Both run with this interpreter and its packages; ``PYTHONPATH`` chooses the source tree. The
store is the Chinese demo written as text with the built-in grounder (``stategraph demo
--lang zh --text``); each tree's commands run once before measuring, so bytecode is compiled
and jieba's dictionary cache written (``PYTHONDONTWRITEBYTECODE`` is cleared for the runs).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMANDS: list[tuple[str, list[str], bool]] = [
    ("recall, English query", ["recall", "{store}", "broadband", "--invalidated"], False),
    ("recall, Chinese query", ["recall", "{store}", "宽带", "--invalidated"], False),
    ("ground, English text", ["ground", "The user will move to Shenzhen in December 2026"], False),
    ("ground, Chinese text", ["ground", "用户计划 2026-12 从上海搬到深圳"], False),
    (
        "ground, English, warm",
        ["ground", "The user will move to Shenzhen in December 2026"],
        True,
    ),
    ("ground, Chinese, warm", ["ground", "用户计划 2026-12 从上海搬到深圳"], True),
]
"""Each command, and whether this checkout runs it with a warm grounder running (``stategraph
grounder start``; the other tree runs it as it is, without one: today's start-up)."""


def export(rev: str, into: Path) -> Path:
    """The source tree of a commit (``git archive``), under ``into``."""
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def environment(tree: Path, socket: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    env["STATEGRAPH_GROUNDER_SOCKET"] = str(socket)
    return env


def run(tree: Path, argv: list[str], cwd: Path, socket: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user and system, of the child) of one command, run in ``cwd``
    (``python -m`` puts the working directory first on the path: never a source tree), with
    the warm grounder at ``socket`` if one runs there."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "stategraph", *argv],
        cwd=cwd,
        env=environment(tree, socket),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", help="a commit (git archive) or a source tree to compare with")
    parser.add_argument("--runs", type=int, default=5, help="runs of each command per tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        trees = {"new": ROOT}
        if args.old:
            old = Path(args.old)
            trees["old"] = old if old.is_dir() else export(args.old, folder / "old")
        store = folder / "store.db"
        (folder / "warm").mkdir(mode=0o700)
        warm, cold = folder / "warm" / "grounder.sock", folder / "none" / "grounder.sock"
        run(ROOT, ["demo", "--lang", "zh", "--text", "--store", str(store)], folder, cold)
        run(ROOT, ["grounder", "start", "--idle", "3600"], folder, warm)
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
        head = ["command", *(f"{t} wall" for t in trees), *(f"{t} CPU" for t in trees)]
        if "old" in trees:
            head += ["wall old/new", "CPU old/new"]
        rows = [head]
        for name, template, warmed in COMMANDS:
            argv = [a.replace("{store}", str(store)) for a in template]
            socket = {t: warm if warmed and t == "new" else cold for t in trees}
            for t, tree in trees.items():
                run(tree, argv, folder, socket[t])  # compiles the bytecode, writes jieba's cache
            walls: dict[str, list[float]] = {t: [] for t in trees}
            cpus: dict[str, list[float]] = {t: [] for t in trees}
            for _ in range(args.runs):
                for t, tree in trees.items():
                    wall, cpu = run(tree, argv, folder, socket[t])
                    walls[t].append(wall)
                    cpus[t].append(cpu)
            wall = {t: statistics.median(v) for t, v in walls.items()}
            cpu = {t: statistics.median(v) for t, v in cpus.items()}
            row = [name, *(f"{wall[t]:.2f} s" for t in trees), *(f"{cpu[t]:.2f} s" for t in trees)]
            if "old" in trees:
                row += [f"{wall['old'] / wall['new']:.1f}x", f"{cpu['old'] / cpu['new']:.1f}x"]
            rows.append(row)
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
        run(ROOT, ["grounder", "stop"], folder, warm)
        load = os.getloadavg()[0]
        print(f"medians of {args.runs} runs each, alternating; load average {load:.1f}")
        print("'warm': this checkout with a warm grounder running (its CPU is not counted);")
        print("the other tree as it is, without one")


if __name__ == "__main__":
    main()
