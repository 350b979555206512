"""Wall seconds of importing the first N memories of a text workload, and nothing else.

    PYTHONPATH=<tree> python scripts/import_seconds.py N [sparse|dense]

Run it with one tree, then another, on the same machine: ``stategraph bench perf --text``
also times adds, revisions and a relink from scratch, which takes minutes at 10^4 where an
import alone is what a change to the write path (reading new facts for reversals, say) moves.
Prints one JSON line: the tree, the workload, N, the seconds, and how many revisions reported
reversals (0 on a tree before them).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import stategraph
from stategraph import Memory
from stategraph.importing import import_memories


def main(n: int, workload: str) -> dict[str, object]:
    if workload == "dense":
        from stategraph.bench.perf.densegen import generate
    else:
        from stategraph.bench.perf.textgen import generate
    stream = generate(n, 0)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "memory.db"
        with Memory(path, rules="all", grounder="stategraph.rule_grounder.v1") as mem:
            start = time.perf_counter()
            import_memories(mem, ((m.id, m.state()) for m in stream.memories(0, n)))
            seconds = time.perf_counter() - start
            reversals = sum(1 for e in mem.history() if getattr(e.report, "reversals", ()))
    return {
        "tree": str(Path(stategraph.__file__).parent.parent),
        "workload": workload,
        "memories": n,
        "seconds": round(seconds, 1),
        "revisions_with_reversals": reversals,
    }


if __name__ == "__main__":
    size = int(sys.argv[1])
    kind = sys.argv[2] if len(sys.argv) > 2 else "sparse"
    print(json.dumps(main(size, kind)))
