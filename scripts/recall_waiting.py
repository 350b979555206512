"""What grading ``rests_on_doubt`` costs a recall: the walk on and off, side by side.

Builds the store of ``stategraph bench perf --recall`` at one size (the same seeded stream,
its revisions applied), then runs the same query mix three times each way, alternating, in
one process: with the walk of :class:`stategraph.review.waiting.Doubts`, and with it
answering "nothing waits". Prints the p50 and p99 CPU time of a recall (k=10) each way::

    python scripts/recall_waiting.py 1e4
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from stategraph import Memory
from stategraph.bench.perf.recall import RecallPerfOptions, build, queries
from stategraph.review import waiting


def main(argv: list[str]) -> int:
    size = int(float(argv[0]))
    options = RecallPerfOptions(sizes=[size])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "recall.db"
        build(path, size, options)
        mix = [q for _, q in queries(path, options)]
        real = waiting.Doubts.waits_on
        ways = {"walk": real, "no walk": lambda self, state_id: []}
        times: dict[str, list[float]] = {name: [] for name in ways}
        statuses: dict[str, int] = {}
        with Memory(path) as mem:
            for q in mix[:10]:
                mem.recall(q, 10)  # warm the caches
            for round_ in range(3):
                order = list(ways) if round_ % 2 == 0 else list(reversed(ways))
                for name in order:
                    waiting.Doubts.waits_on = ways[name]  # type: ignore[method-assign]
                    for q in mix:
                        t = time.process_time()
                        found = mem.recall(q, 10)
                        times[name].append(time.process_time() - t)
                        if name == "walk":
                            for r in found:
                                statuses[r.status] = statuses.get(r.status, 0) + 1
        waiting.Doubts.waits_on = real  # type: ignore[method-assign]
    for name, spent in times.items():
        spent.sort()
        p99 = spent[max(0, int(0.99 * len(spent)) - 1)]
        print(
            f"{size:,} {name}: recall p50 {1000 * statistics.median(spent):.2f} ms, "
            f"p99 {1000 * p99:.2f} ms ({len(spent)} recalls)"
        )
    print("statuses returned with the walk:", dict(sorted(statuses.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
