"""``stategraph bench perf --recall``: what recall costs, and what indexing for it costs a write.

At each size, in its own process, a store of the seeded household stream of
:mod:`stategraph.bench.perf.textgen` (English and Chinese) is bulk-loaded (each derived
memory resting on its episode's fact, each unrelated belief, plan or action on the stream's
first fact), then ``revisions`` of its facts are superseded or retracted, so that memories
that no longer hold sit among the matches and recall's status filter has work to do. Then:

- **the query mix** (seeded, ``queries`` of them, drawn from the store's own vocabulary):
  ``dense`` a word in at least 20% of the memories (``the``, ``user``, ``用户``), ``mid`` a
  word in 0.1-20%, ``rare`` a word in at most 5 memories, ``en`` and ``zh`` the first words
  of a random English or Chinese memory (multi-word, dense and rare words mixed), ``absent``
  a word no memory has;
- ``recall_p50_ms`` / ``recall_p99_ms`` (and ``recall_cpu_*``, the process's CPU time):
  :meth:`Memory.recall <stategraph.memory.Memory.recall>` of each query, k=10, the whole
  call (grounding the query, ranking, statuses, ``ask_first``);
- ``search`` / ``exhaustive``: the ranking alone, side by side on the same tokens, query by
  query: :func:`~stategraph.text.fulltext.search` (the engine's top-N, then the statuses of
  those few, deepening when too many are dropped) and
  :func:`~stategraph.text.fulltext.search_exhaustive` (every match joined to its state and
  filtered, then ranked: recall before bounded ranking); ``agree`` counts the queries where
  both returned the same ids in the same order (it must be all of them), ``ratio`` is
  exhaustive over bounded p50; per kind of query too (``by_kind``);
- ``add_p50_ms`` / ``add_no_index_p50_ms``: ``adds`` more memories of the stream, one
  :meth:`Memory.add` each, alternately into the store and into a copy of it whose writes
  skip the full-text index; ``add_index_cost_ms`` is the difference of the p50s.

Times are wall-clock (``perf_counter``) and CPU (``process_time``) milliseconds.
"""

from __future__ import annotations

import json
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

__all__ = ["RecallPerfOptions", "measure_size", "render_recall", "run_recall"]

KINDS = ("dense", "mid", "rare", "en", "zh", "absent")
"""The kinds of query in the mix, in the order they are drawn."""


@dataclass
class RecallPerfOptions:
    """What ``bench perf --recall`` measures."""

    sizes: list[int] = field(default_factory=lambda: [10_000, 100_000])
    seed: int = 0
    queries: int = 120
    adds: int = 1000
    """Memories added after the build, each to the indexed store and to a copy without the
    index: indexing's cost is the difference of two medians of noisy times, which moved by
    half a millisecond between runs of 100."""
    revisions: int = 20
    k: int = 10
    postgres: str | None = None
    """A ``postgresql://`` URL: measure recall there too, in a scratch tenant (deleted after)
    holding the SQLite store's memories and statuses (``postgres`` in the figures)."""


def _ms(seconds: list[float], q: float) -> float:
    if not seconds:
        return 0.0
    ordered = sorted(seconds)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3, 3)


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def build(path: Path, size: int, options: RecallPerfOptions) -> Any:
    """Bulk-load the first ``size`` memories of the stream at ``path``, then revise some of
    its facts; the workload (for the adds that follow)."""
    from stategraph import Memory
    from stategraph.bench.perf.textgen import generate

    workload = generate(size + options.adds, options.seed)
    first = workload.memory(0).id

    def justifications() -> Iterator[dict[str, Any]]:
        for m in workload.memories(0, size):
            if m.kind == "fact":
                continue
            yield {"head": m.id, "premises": [m.episode or first]}

    with Memory(path) as mem:
        mem.bulk_load((m.state() for m in workload.memories(0, size)), justifications())
        for change in workload.changes(options.revisions):
            if all(mem.store.state(i) is not None for i in _targets(change)):
                mem.revise(change)
    return workload


def _targets(change: dict[str, Any]) -> set[str]:
    if "retract" in change:
        gone = change["retract"]
        return {gone} if isinstance(gone, str) else set(gone)
    return {change["supersede"]["id"]}


def queries(path: Path, options: RecallPerfOptions) -> list[tuple[str, str]]:
    """The seeded query mix, as (kind, query), drawn from the store's vocabulary."""
    rng = random.Random(f"recall-queries:{options.seed}")
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, recall_fts, row)")
        df = dict(conn.execute("SELECT term, doc FROM temp.vocab"))
        (n,) = conn.execute("SELECT count(*) FROM recall_fts").fetchone()
        texts = [str(t) for (t,) in conn.execute("SELECT body FROM states ORDER BY id")]
    finally:
        conn.close()
    bands = {
        "dense": sorted(t for t, d in df.items() if d >= 0.2 * n),
        "mid": sorted(t for t, d in df.items() if 0.001 * n <= d < 0.2 * n),
        "rare": sorted(t for t, d in df.items() if d <= 5 and not t.isdigit()),
    }
    bodies = [json.loads(t)["text"] for t in texts]
    zh = [t for t in bodies if any("\u4e00" <= ch <= "\u9fff" for ch in t)]
    chinese = set(zh)
    en = [t for t in bodies if t not in chinese]
    out: list[tuple[str, str]] = []
    for i in range(options.queries):
        kind = KINDS[i % len(KINDS)]
        if bands.get(kind):
            out.append((kind, rng.choice(bands[kind])))
        elif kind == "en" and en:
            out.append((kind, " ".join(rng.choice(en).split()[: rng.randint(2, 5)])))
        elif kind == "zh" and zh:
            text = rng.choice(zh)
            out.append((kind, text[: rng.randint(4, 10)]))
        else:
            out.append(("absent", f"zq{rng.randrange(10**9)}x"))
    return out


@contextmanager
def _no_fulltext() -> Iterator[None]:
    """Writes inside skip recall's full-text index (the reference for what indexing costs)."""
    from stategraph.text import fulltext

    index = fulltext.index
    fulltext.index = lambda store, states: None
    try:
        yield
    finally:
        fulltext.index = index


def measure_size(size: int, options: RecallPerfOptions) -> dict[str, Any]:
    """Everything measured at one size, in this process."""
    from stategraph import Memory

    with tempfile.TemporaryDirectory(prefix="stategraph-recall-") as tmp:
        path = Path(tmp) / "memory.db"
        workload, build_s, _ = _timed(lambda: build(path, size, options))
        mix = queries(path, options)
        shutil.copy(path, Path(tmp) / "no-index.db")
        mem = Memory(path)
        mem.recall("warm up")  # load the grounder and jieba: not timed
        mem.recall("用户")
        rows = _queries_timed(mem, mix, options)
        pg = _postgres(path, mix, options) if options.postgres else None
        bare = Memory(Path(tmp) / "no-index.db")
        first = workload.memory(0).id
        added, bare_added = [], []
        for m in workload.memories(size, size + options.adds):
            because = None if m.kind == "fact" else [m.episode or first]
            _, wall, _ = _timed(partial(mem.add, m.state(), because=because))
            added.append(wall)
            with _no_fulltext():
                _, wall, _ = _timed(partial(bare.add, m.state(), because=because))
            bare_added.append(wall)
        mem.close()
        bare.close()
    out: dict[str, Any] = {"memories": size, "build_s": round(build_s, 1)}
    out.update(_summary(rows))
    out["by_kind"] = {k: _summary([r for r in rows if r["kind"] == k]) for k in KINDS}
    out["slowest"] = sorted(rows, key=lambda r: -r["search"])[:3]
    for r in out["slowest"]:
        for key in ("recall", "recall_cpu", "search", "search_cpu", "exhaustive", "exhaustive_cpu"):
            r[key] = round(r[key] * 1e3, 3)
    out["add_p50_ms"] = _ms(added, 0.5)
    out["add_no_index_p50_ms"] = _ms(bare_added, 0.5)
    out["add_index_cost_ms"] = round(out["add_p50_ms"] - out["add_no_index_p50_ms"], 3)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if pg is not None:
        out["postgres"] = pg
    return out


def _postgres(path: Path, mix: list[tuple[str, str]], options: RecallPerfOptions) -> dict[str, Any]:
    """The same queries on PostgreSQL: a scratch tenant holding the SQLite store's states
    (with their statuses; not its log), indexed the way a first recall indexes an older
    store (:func:`~stategraph.text.fulltext.backfill`)."""
    import os

    from stategraph import Memory
    from stategraph.store.open import open_store
    from stategraph.text import fulltext

    assert options.postgres is not None
    store = open_store(options.postgres, tenant=f"bench-recall-{os.getpid()}")
    try:
        conn = sqlite3.connect(path)
        cols = "id, kind, status, active, superseded_by, truth, has_atoms, body"
        rows = conn.execute(f"SELECT {cols} FROM states").fetchall()
        conn.close()
        tc: Any = store.conn
        sql = f"COPY states (tenant, {cols}) FROM STDIN"
        with store.transaction(), tc.errors(), tc.pg.cursor().copy(sql) as copy:
            for row in rows:
                copy.write_row((tc.tenant, *row))
        _, index_s, _ = _timed(partial(fulltext.backfill, store))
        with tc.errors():  # the planner's statistics of the rows just copied in
            tc.pg.execute("ANALYZE states")
            tc.pg.execute("ANALYZE recall_docs")
        mem = Memory(store=store)
        mem.recall("warm up")
        mem.recall("用户")
        out = _queries_timed(mem, mix, options)
        figures = _summary(out)
        figures["index_s"] = round(index_s, 1)
        figures["by_kind"] = {k: _summary([r for r in out if r["kind"] == k]) for k in KINDS}
        return figures
    finally:
        store.purge()  # type: ignore[attr-defined]
        store.close()


def _queries_timed(
    mem: Any, mix: list[tuple[str, str]], options: RecallPerfOptions
) -> list[dict[str, Any]]:
    """Each query of the mix: recall's time, then the bounded and the exhaustive ranking's
    side by side on its tokens, and whether they agree."""
    from stategraph.recall import query_tokens
    from stategraph.text import fulltext

    args: dict[str, Any] = {"limit": options.k, "kinds": None, "doubtful": True}
    args["invalidated"] = False
    rows: list[dict[str, Any]] = []
    for kind, q in mix:
        _, wall, cpu = _timed(partial(mem.recall, q, options.k))
        toks = query_tokens(mem, q)
        new, new_wall, new_cpu = _timed(partial(fulltext.search, mem.store, toks, **args))
        old, old_wall, old_cpu = _timed(
            partial(fulltext.search_exhaustive, mem.store, toks, **args)
        )
        rows.append(
            {
                "kind": kind,
                "query": q,
                "recall": wall,
                "recall_cpu": cpu,
                "search": new_wall,
                "search_cpu": new_cpu,
                "exhaustive": old_wall,
                "exhaustive_cpu": old_cpu,
                "agree": [i for i, _ in new] == [i for i, _ in old],
            }
        )
    return rows


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"queries": len(rows), "agree": sum(r["agree"] for r in rows)}
    for key in ("recall", "recall_cpu", "search", "search_cpu", "exhaustive", "exhaustive_cpu"):
        values = [r[key] for r in rows]
        out[f"{key}_p50_ms"] = _ms(values, 0.5)
        out[f"{key}_p99_ms"] = _ms(values, 0.99)
    out["ratio"] = round(out["exhaustive_p50_ms"] / max(out["search_p50_ms"], 1e-3), 2)
    return out


def run_recall(options: RecallPerfOptions) -> dict[str, Any]:
    """Every size, each in a fresh process: ``{"recall": {SIZE: figures}}``."""
    from stategraph.bench.perf.text import _machine

    out: dict[str, Any] = {"options": asdict(options), "machine": _machine(), "recall": {}}
    for size in options.sizes:
        done = subprocess.run(
            [sys.executable, "-m", __name__, str(size), json.dumps(asdict(options))],
            check=True,
            capture_output=True,
            text=True,
        )
        out["recall"][str(size)] = json.loads(done.stdout)
    return out


def render_recall(doc: dict[str, Any]) -> str:
    """A plain table, one row per size."""
    head = ["memories", "recall p50", "recall p99", "search p50", "search p99"]
    head += ["exhaustive p50", "exhaustive p99", "ratio", "agree", "add p50", "no index", "cost"]
    head.insert(1, "backend")
    rows = [head]
    for size, r in doc["recall"].items():
        for backend, f in (("sqlite", r), ("postgres", r.get("postgres"))):
            if f is None:
                continue
            rows.append(
                [
                    f"{int(size):,}",
                    backend,
                    f"{f['recall_p50_ms']:.1f} ms",
                    f"{f['recall_p99_ms']:.1f} ms",
                    f"{f['search_p50_ms']:.1f} ms",
                    f"{f['search_p99_ms']:.1f} ms",
                    f"{f['exhaustive_p50_ms']:.1f} ms",
                    f"{f['exhaustive_p99_ms']:.1f} ms",
                    f"{f['ratio']:.1f}x",
                    f"{f['agree']}/{f['queries']}",
                    f"{f['add_p50_ms']:.1f} ms" if "add_p50_ms" in f else "-",
                    f"{f['add_no_index_p50_ms']:.1f} ms" if "add_p50_ms" in f else "-",
                    f"{f['add_index_cost_ms']:+.2f} ms" if "add_p50_ms" in f else "-",
                ]
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    m = doc["machine"]
    lines.append(
        "recall: Memory.recall, k=10, over the query mix (dense, mid, rare, English and Chinese "
        "phrases, absent words); search: the bounded ranking; exhaustive: every match "
        "filtered then ranked (ratio: exhaustive p50 / search p50); add: Memory.add with and "
        f"without the full-text index; wall-clock; Python {m['python']}, {m['cores']} cores"
    )
    return "\n".join(lines)


def _main(argv: list[str]) -> int:
    options = RecallPerfOptions(**json.loads(argv[1]))
    print(json.dumps(measure_size(int(argv[0]), options)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
