"""CPU seconds of writing text memories (issue 23): import N memories in one transaction, then
K adds one at a time, on the dense or sparse workload; ``time.process_time``, which a machine
shared with other work disturbs far less than wall time. The import's CPU seconds are also
given after its first 10^3, 10^4, ... memories (``import_cpu_s_at``): how the cost of N adds
grows with N, measured within one run (two runs on a shared machine can differ by 2x).

    PYTHONPATH=<tree> python scripts/linking_cpu.py N K dense|sparse [D [CAP]]

The K adds are also given by class (``adds_by_class``): the state's kind, and whether the
rules linked it, changed justifications of states already stored (``relinked``: on a tree
with atom nodes, a new carrier or firing of a stored atom's node; before them, a fact entering
the derivations a cap kept, displacing one in every memory it capped), or neither; with each
class's share of the adds' CPU time.

With ``D``, D facts picked at random (seeded) are then retracted and D others superseded by a
fact with the same text, one at a time, and this measures what a death costs.

``CAP`` is for trees before atom nodes (issue 40), whose stores kept at most CAP rule
derivations a memory (``max_alternatives``; without it, a new store's: 16, or 64 on a tree
before stores kept a cap). A tree with atom nodes has no cap and takes no ``CAP``.

The dense generator is read from this checkout's ``stategraph/bench/perf/densegen.py`` (so
that a tree without it, ``main`` before issue 23, is measured on the same stream).
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from stategraph import Memory
from stategraph.grounding import ground
from stategraph.model import Justification


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


def _quantiles(cpu: list[float]) -> dict[str, float]:
    ordered = sorted(cpu)

    def ms(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3, 1)

    return {"p50_ms": ms(0.5), "p99_ms": ms(0.99), "mean_ms": round(sum(cpu) / len(cpu) * 1e3, 1)}


def _class(state: dict[str, object], justs: tuple[Justification, ...]) -> str:
    """What an add is: its kind, and whether the rules linked it (``linked``) or changed
    justifications of memories already stored (``relinked``: what the cap's order moves)."""
    others = any(j.head != state["id"] for j in justs if j.origin.value == "rule")
    own = any(j.head == state["id"] for j in justs if j.origin.value == "rule")
    return f"{state['kind']}:{'relinked' if others else 'linked' if own else 'unlinked'}"


def _deaths(mem: Memory, d: int) -> dict[str, object]:
    """CPU ms of ``d`` retractions and ``d`` supersessions of random facts, one at a time."""
    facts = sorted(s.id for s in mem.states() if s.kind == "fact" and mem.is_active(s.id))
    picks = random.Random(f"deaths:{d}").sample(facts, min(2 * d, len(facts)))
    cpu: dict[str, list[float]] = {"retract": [], "supersede": []}
    links: list[int] = []
    for i, sid in enumerate(picks):
        t = time.process_time()
        if i % 2:
            report = mem.retract(sid)
            cpu["retract"].append(time.process_time() - t)
        else:
            new = {"id": f"{sid}-again", "kind": "fact", "text": mem.state(sid).text}
            report = mem.supersede(sid, new)
            cpu["supersede"].append(time.process_time() - t)
        change = report.change
        links.append(len(change.add_justifications) + len(change.remove_justifications))
    out: dict[str, object] = {f"{k}_cpu": _quantiles(v) for k, v in cpu.items() if v}
    out["links_per_death"] = round(sum(links) / max(1, len(links)), 1)
    return out


def main(n: int, k: int, kind: str, deaths: int = 0, cap: int | None = None) -> dict[str, object]:
    ground("The user flies to Tokyo on 2026-05-10")  # load the pipelines: not measured
    ground("用户计划 2026-12 从上海搬到深圳")
    workload = _generator(kind)(n + k, 0)
    with tempfile.TemporaryDirectory() as tmp:
        options = {} if cap is None else {"max_alternatives": cap}  # trees before it: none
        mem = Memory(
            Path(tmp) / "m.db", rules="all", grounder="stategraph.rule_grounder.v1", **options
        )
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
        classes: dict[str, list[float]] = {}
        for m in workload.memories(n, n + k):
            state = m.state()
            t = time.process_time()
            report = mem.add(state)
            cpu.append(time.process_time() - t)
            change = report.change
            both = (*change.add_justifications, *change.remove_justifications)
            links.append(sum(j.origin.value == "rule" for j in both))
            classes.setdefault(_class(state, both), []).append(cpu[-1])
        died = _deaths(mem, deaths) if deaths else {}
        mem.close()
    added = _quantiles(cpu)
    return {
        "workload": kind,
        "n": n,
        "adds": k,
        "max_alternatives": cap,
        "import_cpu_s": round(imported, 1),
        "import_per_cpu_s": round(n / imported, 1),
        "import_cpu_s_at": at,
        "add_cpu_p50_ms": added["p50_ms"],
        "add_cpu_p99_ms": added["p99_ms"],
        "add_cpu_mean_ms": added["mean_ms"],
        "links_per_add": round(sum(links) / len(links), 1),
        "links_max": max(links),
        "adds_by_class": {
            c: {"n": len(v), **_quantiles(v), "cpu_share": round(sum(v) / sum(cpu), 3)}
            for c, v in sorted(classes.items())
        },
        **died,
    }


if __name__ == "__main__":
    extra = [int(a) for a in sys.argv[4:6]]
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], *extra)))
