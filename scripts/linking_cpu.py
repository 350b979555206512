"""CPU seconds of writing text memories (issue 23): import N memories in one transaction, then
K adds one at a time, on the dense or sparse workload; ``time.process_time``, which a machine
shared with other work disturbs far less than wall time. The import's CPU seconds are also
given after its first 10^3, 10^4, ... memories (``import_cpu_s_at``): how the cost of N adds
grows with N, measured within one run (two runs on a shared machine can differ by 2x).

    PYTHONPATH=<tree> python scripts/linking_cpu.py N K dense|sparse

The dense generator is read from this checkout's ``stategraph/bench/perf/densegen.py`` (so
that a tree without it, ``main`` before issue 23, is measured on the same stream).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

from stategraph import Memory
from stategraph.grounding import ground


def _generator(kind: str):  # type: ignore[no-untyped-def]
    if kind == "sparse":
        from stategraph.bench.perf.textgen import generate

        return generate
    path = Path(__file__).resolve().parent.parent / "stategraph" / "bench" / "perf" / "densegen.py"
    spec = importlib.util.spec_from_file_location("densegen_here", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["densegen_here"] = module
    spec.loader.exec_module(module)
    return module.generate


def main(n: int, k: int, kind: str) -> dict[str, object]:
    ground("The user flies to Tokyo on 2026-05-10")  # load the pipelines: not measured
    ground("用户计划 2026-12 从上海搬到深圳")
    workload = _generator(kind)(n + k, 0)
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(Path(tmp) / "m.db", rules="all", grounder="stategraph.rule_grounder.v1")
        start = time.process_time()
        at: dict[int, float] = {}  # CPU seconds of the first 10^k memories, in this same run
        with mem.atomic():
            for i, m in enumerate(workload.memories(0, n), 1):
                mem.add(m.state())
                if i >= 1000 and str(i).rstrip("0") == "1":
                    at[i] = round(time.process_time() - start, 1)
        imported = time.process_time() - start
        cpu: list[float] = []
        links: list[int] = []
        for m in workload.memories(n, n + k):
            t = time.process_time()
            report = mem.add(m.state())
            cpu.append(time.process_time() - t)
            change = report.change
            both = (*change.add_justifications, *change.remove_justifications)
            links.append(sum(j.origin.value == "rule" for j in both))
        mem.close()
    ordered = sorted(cpu)

    def ms(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3, 1)

    return {
        "workload": kind,
        "n": n,
        "adds": k,
        "import_cpu_s": round(imported, 1),
        "import_per_cpu_s": round(n / imported, 1),
        "import_cpu_s_at": at,
        "add_cpu_p50_ms": ms(0.5),
        "add_cpu_p99_ms": ms(0.99),
        "add_cpu_mean_ms": round(sum(cpu) / len(cpu) * 1e3, 1),
        "links_per_add": round(sum(links) / len(links), 1),
        "links_max": max(links),
    }


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])))
