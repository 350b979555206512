"""stategraph itself, measured in fresh subprocesses: bulk load, open, then revisions.

Loading runs in one process and opening plus revising in another, so the peak RSS of the load
and the open time are the engine's own (no state cached from an earlier step), as an agent
process that restarts would see them. The workload reaches the child as a pickle.

The load streams its input: the :class:`~stategraph.State` and
:class:`~stategraph.Justification` objects are built from the workload one at a time while
``bulk_load`` reads them, as an import from a file would, so the peak RSS is the engine's plus
the compact workload's, not that of two million input objects. Building them is timed apart
(``inputs_s``) and left out of the load time.

Revisions are cumulative: the random premises are retracted one after another on the same
store, then the hub. Retracting 50 facts out of thousands barely changes the store, every system
follows the same sequence, and nothing has to be restored between measurements (a restore would
either be timed by mistake or need a copy of the store per premise).
"""

from __future__ import annotations

import json
import pickle
import resource
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from stategraph import Change, Justification, Memory, State
from stategraph.bench.perf.measure import settle
from stategraph.bench.perf.workload import KIND_NAMES, Workload

__all__ = [
    "engine_justifications",
    "engine_states",
    "load_store",
    "open_and_revise",
    "run_worker",
    "worker_main",
]

T = TypeVar("T")

_MB = 1024.0
_WORKER = "stategraph.bench.perf.worker"


def _rss_mb() -> float:
    """Current resident set size of this process, from ``/proc`` (0 where unavailable)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[1])
    except OSError:
        return 0.0
    return pages * resource.getpagesize() / _MB / _MB


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / _MB


def engine_states(wl: Workload) -> Iterator[State]:
    """The workload's states as the engine's input objects, one at a time."""
    for i, k in enumerate(wl.kind):
        yield State(id=wl.sid(i), kind=KIND_NAMES[k])


def engine_justifications(wl: Workload) -> Iterator[Justification]:
    """The workload's justifications as the engine's input objects, one at a time."""
    for h, ps, us in wl.justs:
        yield Justification(
            head=wl.sid(h),
            premises=tuple(wl.sid(p) for p in ps),
            unless=tuple(wl.sid(u) for u in us),
        )


class _Stopwatch:
    """Time spent inside the iterators it wraps (the caller's share of a streamed load)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, items: Iterable[T]) -> Iterator[T]:
        it = iter(items)
        while True:
            t = time.perf_counter()
            try:
                item = next(it)
            except StopIteration:
                self.seconds += time.perf_counter() - t
                return
            self.seconds += time.perf_counter() - t
            yield item


def load_store(path: Path, states: Iterable[State], justs: Iterable[Justification]) -> str:
    """Load everything into a new store in one go; returns which API did it."""
    with Memory.open(path) as mem:
        bulk = getattr(mem, "bulk_load", None)
        if bulk is not None:
            bulk(states, justs)
            return "bulk_load"
        mem.revise(Change(assert_=tuple(states), add_justifications=tuple(justs)))
        return "revise"


def _load(wl: Workload, db: Path) -> dict[str, Any]:
    input_rss = _rss_mb()
    inputs = _Stopwatch()
    t0 = time.perf_counter()
    path = load_store(db, inputs.wrap(engine_states(wl)), inputs.wrap(engine_justifications(wl)))
    load_s = time.perf_counter() - t0 - inputs.seconds
    return {
        "load_s": load_s,
        "inputs_s": inputs.seconds,
        "load_path": path,
        "input_rss_mb": input_rss,
        "peak_rss_mb": _peak_rss_mb(),
        "db_mb": db.stat().st_size / _MB / _MB,
    }


def open_and_revise(wl: Workload, db: Path) -> dict[str, Any]:
    """Open the store, then retract the premises and the hub in turn, timing each revision."""
    t0 = time.perf_counter()
    mem = Memory.open(db)
    open_s = time.perf_counter() - t0
    open_rss = _rss_mb()
    settle()
    runs = []
    with mem:
        for fact in [*wl.premises, wl.hub]:
            t0 = time.perf_counter()
            report = mem.revise(Change(retract=(wl.sid(fact),)))
            ms = (time.perf_counter() - t0) * 1000
            changed = sorted(wl.num(e.id) for e in report.entries if e.old is not e.new)
            runs.append(
                {
                    "fact": fact,
                    "ms": ms,
                    "changed": changed,
                    "cone": report.cone_size,
                    "solved": report.solved,
                    "method": getattr(report, "method", None),
                }
            )
            print(f"  stategraph: retract s{fact}: {ms:.2f} ms", file=sys.stderr)
    return {"open_s": open_s, "open_rss_mb": open_rss, "runs": runs}


def run_worker(step: str, workload: Path, db: Path, profile: Path | None = None) -> dict[str, Any]:
    """Run one step (``load`` or ``revise``) in a fresh Python process; returns its result.

    With ``profile``, the child runs under cProfile and writes its stats there (the profiler
    slows the step down, so its timings are not comparable with an unprofiled run).
    """
    prof = ["-m", "cProfile", "-o", str(profile)] if profile else []
    cmd = [
        sys.executable,
        *prof,
        "-m",
        "stategraph.bench.perf.worker",
        step,
        str(workload),
        str(db),
    ]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def worker_main(argv: list[str]) -> int:
    """Entry point of the child process: ``worker load|revise WORKLOAD.pickle STORE.db``."""
    step, workload, db = argv
    with open(workload, "rb") as f:
        wl = pickle.load(f)
    if not isinstance(wl, Workload):
        raise TypeError(f"{workload} does not hold a Workload")
    result = _load(wl, Path(db)) if step == "load" else open_and_revise(wl, Path(db))
    print(json.dumps(result))
    return 0
