"""Revision p50 on a copy of a loaded store, and where a commit's time goes.

Compare two checkouts side by side on the same store (one after the other, repeated, so that a
busy machine shows as spread rather than as a difference)::

    python -c "import pickle; from stategraph.bench.perf.workload import generate; \
        pickle.dump(generate(1_000_000, seed=0), open('wl.pickle', 'wb'))"
    python -m stategraph.bench.perf.worker load wl.pickle base.db      # once: the bulk load
    PYTHONPATH=/path/to/old python scripts/revision_p50.py base.db wl.pickle old
    PYTHONPATH=/path/to/new python scripts/revision_p50.py base.db wl.pickle new

Each run copies base.db, retracts the workload's first 40 premises one by one (as ``stategraph
bench perf`` does) and prints the p50 with the mean time per revision of the store's commit
steps that exist in that checkout.
"""

from __future__ import annotations

import pickle
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stategraph import Memory
from stategraph.model import Change
from stategraph.store.sqlite import SQLiteStore

STEPS = ("commit", "_tables_base", "_rows_sums", "_touched_rows", "keep_sums", "append", "_write")


def _timed(acc: dict[str, float], name: str, f: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return f(*args, **kwargs)
        finally:
            acc[name] = acc.get(name, 0.0) + time.perf_counter() - t

    return run


def main(argv: list[str]) -> int:
    base, workload, tag = Path(argv[0]), Path(argv[1]), argv[2]
    with open(workload, "rb") as f:
        wl = pickle.load(f)
    acc: dict[str, float] = {}
    for name in STEPS:
        if hasattr(SQLiteStore, name):
            setattr(SQLiteStore, name, _timed(acc, name, getattr(SQLiteStore, name)))
    db = base.with_name(f"revision-p50-{tag}.db")
    shutil.copy(base, db)
    ms, cpu = [], []
    try:
        with Memory.open(db) as mem:
            for fact in wl.premises[:40]:
                t, c = time.perf_counter(), time.process_time()
                mem.revise(Change(retract=(wl.sid(fact),)))
                ms.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
    finally:
        db.unlink()
    steps = {k: round(v / len(ms) * 1000, 3) for k, v in acc.items()}
    print(
        f"{tag}: revision p50 {statistics.median(ms):.3f} ms (CPU {statistics.median(cpu):.3f}); "
        f"mean ms per revision {steps}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
