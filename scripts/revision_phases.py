"""CPU seconds of each step of K adds on a copy of a stored dense memory (issue 23): where a
dense add's time goes. ``DB`` is a store of the first N memories of the dense workload (make
one with ``--make``); each step is timed with ``time.process_time`` around the function that
does it (a step that another one calls is listed under it, indented).

    PYTHONPATH=<tree> python scripts/revision_phases.py --make N DB
    PYTHONPATH=<tree> python scripts/revision_phases.py N K DB

A step a tree does not have is left out, so that ``main`` before a change is measured too.
The dense generator is read from the tree measured (it is the same stream on every tree that
has it).
"""

from __future__ import annotations

import collections
import functools
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import stategraph.engine.revise as revise
import stategraph.prepare as prepare
import stategraph.store.sqlite as sqlite
from stategraph import Memory
from stategraph.bench.perf.densegen import generate
from stategraph.grounding import ground

SPENT: collections.Counter[str] = collections.Counter()

STEPS = [
    (prepare.Preparer, "prepare", "prepare (link, candidates)"),
    (prepare.Preparer, "_link", "  link"),
    (sqlite.SQLiteStore, "cone", "cone walk"),
    (sqlite.SQLiteStore, "subgraph", "subgraph read"),
    (revise, "_read_lean", "lean read (steady heads)"),
    (revise, "revise", "revise (solve, grade, report)"),
    (revise, "_ConeProgram", "  cone program"),
    (revise, "propagated", "  propagated"),
    (revise, "path_of", "  path_of"),
    (revise, "well_founded", "  clingo"),
    (revise._Grader, "__init__", "  levels"),
    (revise._Grader, "entry", "  entries"),
    (revise, "_open_edges", "  open edges"),
    (sqlite.SQLiteStore, "commit", "commit (write, digest, log)"),
    (sqlite.SQLiteStore, "_touched_rows", "  digest: rows read"),
    (sqlite.SQLiteStore, "_write", "  write"),
    (sqlite._Touched, "moved", "  digest: moved"),
    (sqlite.SQLiteStore, "append", "  log append"),
]


def timed(owner: Any, name: str, label: str) -> None:
    """Replace ``owner.name`` by the same function adding its CPU seconds to ``SPENT``."""
    f = getattr(owner, name, None)
    if f is None:
        return

    @functools.wraps(f)
    def g(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            SPENT[label] += time.process_time() - start

    setattr(owner, name, g)


def make(n: int, out: str) -> None:
    mem = Memory(Path(out), rules="all", grounder="stategraph.rule_grounder.v1")
    with mem.atomic():
        for m in generate(n, 0).memories(0, n):
            mem.add(m.state())
    mem.close()


def main(n: int, k: int, db: str) -> None:
    ground("The user flies to Tokyo on 2026-05-10")  # load the pipelines: not measured
    ground("用户计划 2026-12 从上海搬到深圳")
    try:  # and the Chinese word list of recall's index, where there is one
        from stategraph.text.fulltext import tokens

        tokens("用户计划从上海搬到深圳")
    except ImportError:
        pass
    for owner, name, label in STEPS:
        timed(owner, name, label)
    memories = [m.state() for m in generate(n + k, 0).memories(n, n + k)]
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(db, Path(tmp) / "m.db")
        mem = Memory(Path(tmp) / "m.db", rules="all", grounder="stategraph.rule_grounder.v1")
        SPENT.clear()
        total = 0.0
        for st in memories:
            start = time.process_time()
            mem.add(st)
            total += time.process_time() - start
        mem.close()
    print(f"{k} adds after {n}: {total:.2f} CPU s")
    for _owner, _name, label in STEPS:
        if label in SPENT:
            spent = SPENT[label]
            print(f"  {label:34s} {spent:6.2f} s {100 * spent / total:5.1f}%")


if __name__ == "__main__":
    if sys.argv[1] == "--make":
        make(int(sys.argv[2]), sys.argv[3])
    else:
        main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
