"""``stategraph bench perf --text``: the cost of writing text memories, against store size.

An agent writes memories all day; revising is rarer. This measures the write path with the
rule packs and the grounder on, on a seeded workload, at each size: the *sparse* one of
:mod:`stategraph.bench.perf.textgen` (the four pack domains in English and Chinese among
unrelated memories, a new memory meeting few others) and, with ``--workload dense`` or
``both``, the *dense* one of :mod:`stategraph.bench.perf.densegen` (moves between six cities,
one drug, and the thousands of memories resting on them: issue 23):

- ``import_per_s``: :func:`~stategraph.importing.import_memories` of the first ``SIZE``
  memories into a new SQLite file (one transaction, every memory written as ``add`` would),
  grounding ahead in a worker process past the first 2,000 as it does by default; and
  ``import_one_process_per_s``: the same import grounding every text itself (run first);
- ``add_p50_ms`` / ``add_p99_ms``: then ``adds`` more memories, one ``Memory.add`` each, as
  an agent calls it;
- ``justifications_per_add`` / ``justifications_per_add_max``: the rule justifications those
  adds added or removed, on average and at most (what delta linking writes);
- ``import_s``: the import's seconds (its ratio between sizes is the growth of N adds);
- ``revise_p50_ms``: then ``revisions`` changes (a fact superseded or retracted), each alone;
- ``peak_rss_mb``: the peak resident memory of the process that did all that (and
  ``relink_peak_rss_mb``: after the from-scratch reference below, which loads every memory);
  ``worker_peak_rss_mb``: that of the import's grounding worker, which runs beside it
  (:mod:`stategraph.grounding.ahead`; ``None`` without one), and ``grounded_ahead``: the
  texts whose atoms the import took from it;
- ``linked_add_p50_ms``: the p50 of those adds whose memory grounds to atoms (the ones the rule
  packs link; most memories, unrelated to any pack, never link);
- ``relink_add_p50_ms``: the same linked adds on a copy of the store with every memory
  relinked from scratch at each add (the linker before incremental linking, kept as the
  reference), as many as fit in ``relink_budget_s``; None when not even one did.

Each size runs in its own process (so the peak memory is that size's), with the grounding
pipelines loaded before anything is timed.
"""

from __future__ import annotations

import json
import logging
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TextPerfOptions", "measure_size", "render_text", "run_text"]


@dataclass
class TextPerfOptions:
    """What ``bench perf --text`` measures."""

    sizes: list[int] = field(default_factory=lambda: [1_000, 10_000, 100_000])
    seed: int = 0
    adds: int = 200
    revisions: int = 30
    relink_budget_s: float = 60.0
    relink_adds: int = 20
    workloads: list[str] = field(default_factory=lambda: ["sparse"])
    workload: str = "sparse"
    """The workload :func:`measure_size` measures (``run_text`` sets it for each process)."""


def _generate(options: TextPerfOptions, n: int) -> Any:
    if options.workload == "dense":
        from stategraph.bench.perf.densegen import generate as dense

        return dense(n, options.seed)
    from stategraph.bench.perf.textgen import generate

    return generate(n, options.seed)


def _ms(seconds: list[float], q: float) -> float:
    ordered = sorted(seconds)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3, 3)


def measure_size(size: int, options: TextPerfOptions) -> dict[str, Any]:
    """Everything measured at one size, in this process."""
    from stategraph import Memory
    from stategraph.grounding import ground
    from stategraph.importing import GROUND_AHEAD_AFTER, import_memories

    ground("The user flies to Tokyo on 2026-05-10")  # load the pipelines: not timed
    ground("用户计划 2026-12 从上海搬到深圳")
    workload = _generate(options, size + options.adds)
    settings = {
        "rules": "all",
        "grounder": "stategraph.rule_grounder.v1",
    }
    with tempfile.TemporaryDirectory(prefix="stategraph-text-") as tmp:
        path = Path(tmp) / "memory.db"

        def import_s(path: Path, ground_ahead_after: int | None) -> float:
            with Memory(path, **settings) as mem:  # type: ignore[arg-type]
                rows = ((m.id, m.state()) for m in workload.memories(0, size))
                start = time.perf_counter()
                import_memories(mem, rows, ground_ahead_after=ground_ahead_after)
                return time.perf_counter() - start

        one_process_s = import_s(Path(tmp) / "one-process.db", None)
        (Path(tmp) / "one-process.db").unlink()
        with _worker_reports() as workers:
            default_s = import_s(path, GROUND_AHEAD_AFTER)
        shutil.copy(path, Path(tmp) / "scratch.db")

        mem = Memory(path, **settings)  # type: ignore[arg-type]
        memories = list(workload.memories(size, size + options.adds))
        adds, linked, written = [], [], []
        for m in memories:
            t = time.perf_counter()
            report = mem.add(m.state())
            adds.append(time.perf_counter() - t)
            if m.atoms:
                linked.append(adds[-1])
            written.append(_rule_links(report))
        revises = []
        for change in workload.changes(options.revisions):
            t = time.perf_counter()
            mem.revise(change)
            revises.append(time.perf_counter() - t)
        mem.close()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        relink = _relink_adds(Path(tmp) / "scratch.db", memories, options)
    return {
        "memories": size,
        "import_per_s": round(size / default_s, 1),
        "import_one_process_per_s": round(size / one_process_s, 1),
        "add_p50_ms": _ms(adds, 0.5),
        "add_p99_ms": _ms(adds, 0.99),
        "linked_add_p50_ms": _ms(linked, 0.5) if linked else 0.0,
        "justifications_per_add": round(sum(written) / max(len(written), 1), 1),
        "justifications_per_add_max": max(written, default=0),
        "import_s": round(default_s, 2),
        "revise_p50_ms": _ms(revises, 0.5),
        "peak_rss_mb": round(peak, 1),
        "relink_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "worker_peak_rss_mb": _mb(workers[-1].peak_rss_kb) if workers else None,
        "grounded_ahead": workers[-1].grounded if workers else 0,
        "relink_add_p50_ms": _ms(relink, 0.5) if relink else None,
        "relink_adds": len(relink),
    }


def _rule_links(report: Any) -> int:
    """The rule justifications a revision added or removed."""
    from stategraph.model import Origin

    change = report.change
    return sum(
        j.origin is Origin.rule for j in (*change.add_justifications, *change.remove_justifications)
    )


class _Records(logging.Handler):
    """Keeps the records it is given."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def _worker_reports() -> Iterator[list[Any]]:
    """The log records of the grounding workers stopped inside the block
    (:meth:`~stategraph.grounding.ahead.GroundingAhead.close`)."""
    handler = _Records(logging.INFO)
    log = logging.getLogger("stategraph.grounding.ahead")
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield handler.records
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def _mb(kb: int | None) -> float | None:
    return None if kb is None else round(kb / 1024, 1)


def _relink_adds(path: Path, memories: list[Any], options: TextPerfOptions) -> list[float]:
    """The same adds, each relinking every memory from scratch, within the budget: the times
    of those whose memory links (the others do not relink, either way)."""
    from stategraph import Memory

    mem = Memory(path, linker="scratch")  # the rules, grounder and cap the store keeps
    times: list[float] = []
    deadline = time.perf_counter() + options.relink_budget_s
    for m in memories:
        t = time.perf_counter()
        mem.add(m.state())
        if m.atoms:
            times.append(time.perf_counter() - t)
        if len(times) >= options.relink_adds or time.perf_counter() > deadline:
            break
    mem.close()
    if times and times[0] > options.relink_budget_s:
        return []  # not even one add within the budget
    return times


def run_text(options: TextPerfOptions) -> dict[str, Any]:
    """Every workload and size, each in a fresh process: ``{"text": {SIZE: figures}}`` for the
    sparse workload, ``{"dense": {SIZE: figures}}`` for the dense one."""
    out: dict[str, Any] = {"options": asdict(options), "machine": _machine()}
    for workload in options.workloads:
        table = out["text" if workload == "sparse" else workload] = {}
        for size in options.sizes:
            args = {**asdict(options), "workload": workload}
            done = subprocess.run(
                [sys.executable, "-m", "stategraph.bench.perf.text", str(size), json.dumps(args)],
                check=True,
                capture_output=True,
                text=True,
            )
            table[str(size)] = json.loads(done.stdout)
    return out


def _machine() -> dict[str, Any]:
    import os
    import platform

    import clingo

    return {
        "python": platform.python_version(),
        "clingo": clingo.__version__,
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
    }


def render_text(doc: dict[str, Any]) -> str:
    """A plain table, one row per workload and size."""
    head = ["workload", "memories", "import/s", "one process", "add p50", "add p99"]
    head += ["linked add p50", "links/add", "revise p50", "peak RSS", "worker RSS", "from scratch"]
    rows = [head]
    for workload, key in (("sparse", "text"), ("dense", "dense")):
        for size, r in doc.get(key, {}).items():
            scratch, linked = r["relink_add_p50_ms"], max(r["linked_add_p50_ms"], 1e-3)
            rows.append(
                [
                    workload,
                    f"{int(size):,}",
                    f"{r['import_per_s']:.0f}",
                    f"{r['import_one_process_per_s']:.0f}",
                    f"{r['add_p50_ms']:.1f} ms",
                    f"{r['add_p99_ms']:.1f} ms",
                    f"{r['linked_add_p50_ms']:.1f} ms",
                    "-"
                    if "justifications_per_add" not in r
                    else f"{r['justifications_per_add']:.1f}",
                    f"{r['revise_p50_ms']:.1f} ms",
                    f"{r['peak_rss_mb']:.0f} MB",
                    "-"
                    if r.get("worker_peak_rss_mb") is None
                    else f"{r['worker_peak_rss_mb']:.0f} MB",
                    "-" if scratch is None else f"{scratch:.0f} ms ({scratch / linked:.0f}x)",
                ]
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    m = doc["machine"]
    lines.append(
        f"text memories, one add at a time after an import; one process: the import grounding "
        f"every text itself, worker: the process grounding ahead beside it otherwise; "
        f"linked: adds of memories with atoms; links/add: rule justifications an add wrote "
        f"(added or removed); "
        f"from scratch: their p50 relinking every memory (and its ratio to incremental); "
        f"rule links through atom nodes, uncapped; Python {m['python']}, clingo "
        f"{m['clingo']}, {m['cores']} cores"
    )
    return "\n".join(lines)


def _main(argv: list[str]) -> int:
    options = TextPerfOptions(**json.loads(argv[1]))
    print(json.dumps(measure_size(int(argv[0]), options)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
