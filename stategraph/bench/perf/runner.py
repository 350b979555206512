"""One ``bench perf`` run: per size, generate, load and revise in stategraph, then every
alternative on the same premises, with their answers checked against stategraph's."""

from __future__ import annotations

import gc
import importlib.util
import pickle
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stategraph.bench.perf.clingo_systems import ClingoFull, ClingoMultishot
from stategraph.bench.perf.datalog import PyDatalog
from stategraph.bench.perf.engine import run_worker
from stategraph.bench.perf.measure import (
    Factory,
    Skipped,
    measure,
    measure_isolated,
    percentile,
)
from stategraph.bench.perf.report import machine, ratios
from stategraph.bench.perf.systems import JTMS, Descendants, DurableJTMS, PythonLFP
from stategraph.bench.perf.workload import Workload, generate

__all__ = ["ALTERNATIVES", "PerfOptions", "run_perf"]

ALTERNATIVES: dict[str, Factory] = {
    "clingo-full": ClingoFull,
    "clingo-multishot": ClingoMultishot,
    "python-lfp": PythonLFP,
    "jtms": JTMS,
    "jtms-durable": DurableJTMS,
    "networkx": Descendants,
    "pydatalog": PyDatalog,
}
"""Every alternative, in report order."""

_OPTIONAL = {"networkx": "networkx", "pydatalog": "pyDatalog"}


@dataclass
class PerfOptions:
    """What one run measures.

    Attributes:
        sizes: store sizes (number of states).
        premises: random premises retracted per size (then the hub).
        seed: workload seed.
        budget_s: per system and size, measuring time after which the remaining random
            premises are applied untimed.
        min_samples: random premises every system measures, whatever the budget.
        pydatalog_max: largest size pyDatalog is attempted at.
        pydatalog_timeout_s: pyDatalog runs in a child process stopped after this long.
        systems: alternatives to run (default: all).
        workdir: where stores are written (default: a temporary folder, removed after).
    """

    sizes: list[int] = field(default_factory=lambda: [1000, 10000])
    premises: int = 50
    seed: int = 0
    budget_s: float = 60.0
    min_samples: int = 5
    pydatalog_max: int = 10_000
    pydatalog_timeout_s: float = 120.0
    systems: list[str] = field(default_factory=lambda: list(ALTERNATIVES))
    workdir: Path | None = None
    profile: Path | None = None
    """A folder to write cProfile stats of the engine's steps to (``load-N.prof``,
    ``revise-N.prof``); timings of a profiled run are inflated."""


Progress = Callable[[str], None]


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run_perf(options: PerfOptions, progress: Progress = _stderr) -> dict[str, Any]:
    """Run every size; returns the ``--json`` document (skips are reported via ``progress``)."""
    doc: dict[str, Any] = {"machine": machine(), "seed": options.seed, "sizes": {}}
    gave_up: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="stategraph-perf-", dir=options.workdir) as tmp:
        for n in sorted(options.sizes):
            doc["sizes"][str(n)] = _run_size(n, options, Path(tmp), progress, gave_up)
    return doc


def _run_size(
    n: int, options: PerfOptions, tmp: Path, progress: Progress, gave_up: dict[str, str]
) -> dict[str, Any]:
    """Measure one size; a system that failed at a smaller size is not retried (``gave_up``)."""
    progress(f"perf: {n} states: generating (seed {options.seed})")
    wl = generate(n, options.seed, options.premises)
    pickled = tmp / f"workload-{n}.pickle"
    with open(pickled, "wb") as f:
        pickle.dump(wl, f, protocol=pickle.HIGHEST_PROTOCOL)
    db = tmp / f"store-{n}.db"
    progress(f"perf: {n} states, {len(wl.justs)} justifications: loading into {db.name}")
    prof = options.profile
    load = run_worker("load", pickled, db, prof / f"load-{n}.prof" if prof else None)
    progress(f"perf: loaded in {load['load_s']:.2f} s ({load['load_path']}); opening, revising")
    rev = run_worker("revise", pickled, db, prof / f"revise-{n}.prof" if prof else None)
    runs = rev["runs"]
    times = [r["ms"] for r in runs[:-1]]
    result: dict[str, Any] = {
        "states": n,
        "justifications": len(wl.justs),
        "load_s": load["load_s"],
        "load_path": load["load_path"],
        "open_s": rev["open_s"],
        "peak_rss_mb": load["peak_rss_mb"],
        "input_rss_mb": load["input_rss_mb"],
        "inputs_s": load["inputs_s"],
        "open_rss_mb": rev["open_rss_mb"],
        "db_mb": load["db_mb"],
        "hub_cone": runs[-1]["cone"],
        "hub_solved": runs[-1]["solved"],
        "hub_changed": len(runs[-1]["changed"]),
        "cone_mean": sum(r["cone"] for r in runs[:-1]) / max(1, len(runs) - 1),
        "solved_mean": sum(r["solved"] for r in runs[:-1]) / max(1, len(runs) - 1),
        "changed_mean": sum(len(r["changed"]) for r in runs[:-1]) / max(1, len(runs) - 1),
        "methods": sorted({str(r["method"]) for r in runs}),
        "systems": {
            "stategraph": {
                "p50_ms": percentile(times, 50) if times else None,
                "p95_ms": percentile(times, 95) if times else None,
                "hub_ms": runs[-1]["ms"],
                "n": len(times),
            }
        },
    }
    expected = [set(r["changed"]) for r in runs]
    for name in options.systems:
        why = gave_up.get(name) or _why_skip(name, n, options)
        if why:
            progress(f"perf: {name} skipped at {n}: {why}")
            continue
        progress(f"perf: {n} states: {name}")
        try:
            result["systems"][name] = _measure(name, wl, expected, options)
        except Skipped as exc:
            progress(f"perf: {name} skipped at {n}: {exc}")
            gave_up[name] = f"gave up at {n} states ({exc})"
        gc.collect()
        got = result["systems"].get(name, {})
        if got.get("agree") is False:
            progress(f"perf: {name} DISAGREES with stategraph on {got['disagree_on']}")
    result["ratios"] = ratios(result["systems"])
    return result


def _why_skip(name: str, n: int, options: PerfOptions) -> str | None:
    module = _OPTIONAL.get(name)
    if module and importlib.util.find_spec(module) is None:
        return f"{module} is not installed"
    if name == "pydatalog" and n > options.pydatalog_max:
        return f"not attempted above {options.pydatalog_max} states (its resolution is superlinear)"
    return None


def _measure(
    name: str, wl: Workload, expected: list[set[int]], options: PerfOptions
) -> dict[str, Any]:
    factory = ALTERNATIVES[name]
    if name == "pydatalog":
        return measure_isolated(
            factory,
            wl,
            expected,
            options.budget_s,
            options.pydatalog_timeout_s,
            options.min_samples,
        )
    return measure(factory, wl, expected, options.budget_s, options.min_samples)
