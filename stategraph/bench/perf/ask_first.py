"""What one recall costs when a large revision put its results in doubt (issue 42, finding 1).

One tenant writes ``n`` facts of about 900 characters and ``n`` beliefs resting on them as
candidates, retracts every fact in one revision, then recalls ``k = n``. Each belief's
question once named every change of the revision that flagged it, reading that log entry and
every changed text again for each result: a recall cost what the revision did, ``n`` times
over (at ``n = 600``: 101 s, a 337 MB answer). Now a question names only the memory's own
basis, bounded, and reads a few rows, never the log.

This prints both side by side on the same store: the recall as it is, and the questions
built the way they were (:func:`_as_before`, kept here only to measure against), each with
its time, the peak of Python's allocations (``tracemalloc``) and the size of the questions::

    python -m stategraph.bench.perf.ask_first --n 600
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory

from stategraph import Memory, State
from stategraph.model import Truth
from stategraph.store import review_queue

__all__ = ["main", "measure"]


def _text(i: int) -> str:
    words = " ".join(f"w{i}x{j}" for j in range(110))
    return f"Fact {i}: {words}"[:900]


def _as_before(mem: Memory, st: State, seq: int | None) -> str:
    """The question as it was built before: every change of the flagging revision, read
    from its log entry, with every changed memory's text (for one result)."""
    entry = next(iter(mem.store.iter_history(since=seq - 1)), None) if seq else None
    if entry is None or entry.report is None:
        return ""
    said = []
    for c in entry.report.changed:
        found = mem.store.state(c.id)
        said.append(f'"{found[0].text if found else c.id}" was withdrawn')
    return f'Since then {"; ".join(said)}. Does "{st.text}" still hold?'


def _timed(run: Callable[[], list[str]]) -> tuple[float, int, int]:
    tracemalloc.start()
    start = time.perf_counter()
    questions = run()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, sum(len(q.encode()) for q in questions)


def measure(n: int, folder: Path) -> dict[str, tuple[float, int, int]]:
    """Build the store of ``n`` facts and beliefs, retract the facts in one revision, and
    measure a recall of ``k = n`` both ways: ``{"now": ..., "before": ...}``, each
    ``(seconds, peak bytes, bytes of questions)``."""
    mem = Memory(folder / "m.db", candidates=None)
    with mem.atomic():
        for i in range(n):
            mem.fact(f"f{i}", _text(i))
            mem.belief(f"b{i}", f"Belief {i} about w{i}x0", context=[f"f{i}"])
    mem.retract(*(f"f{i}" for i in range(n)))

    def now() -> list[str]:
        return [r.ask_first or "" for r in mem.recall("Belief about", k=n)]

    def before() -> list[str]:
        out = []
        for r in mem.recall("Belief about", k=n):
            flag = review_queue.flag(mem.store.conn, r.id)  # type: ignore[attr-defined]
            st = mem.state(r.id)
            out.append(_as_before(mem, st, flag[1] if flag else None))
        return out

    assert all(mem.truth(f"b{i}") is Truth.undefined for i in range(n))
    mem.recall("Belief about", k=1)  # loads the grounder the query is read with, once
    return {"now": _timed(now), "before": _timed(before)}


def main(argv: list[str] | None = None) -> int:
    """Print the two recalls side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="facts and beliefs (default 200)")
    args = parser.parse_args(argv)
    with TemporaryDirectory() as tmp:
        found = measure(args.n, Path(tmp))
    print(f"recall k={args.n} after retracting {args.n} facts of ~900 characters in one revision")
    print(f"{'':8}{'seconds':>10}{'peak MB':>10}{'questions MB':>14}")
    for name in ("before", "now"):
        seconds, peak, size = found[name]
        print(f"{name:8}{seconds:10.2f}{peak / 1e6:10.1f}{size / 1e6:14.2f}")
    b, n = found["before"], found["now"]
    print(f"{'ratio':8}{b[0] / n[0]:10.1f}{b[1] / max(n[1], 1):10.1f}{b[2] / max(n[2], 1):14.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
