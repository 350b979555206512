"""``stategraph bench perf --asof``: what a read of the past costs, beside the same read now.

A store of ``size`` memories (half facts, half beliefs each resting on two facts, bulk loaded)
goes through ``size / 10`` revisions (retracting a fact, adding one, superseding one, in
turn), so that the past has as many versions as a long-lived memory's. Then the same reads are
timed on the memory now and ``as_of`` revisions drawn at random over the whole log: ``truth``
of a memory, ``why`` of a belief, ``why_not`` of one. Each past read includes resolving the
revision and making the view (:meth:`Memory.as_of <stategraph.memory.Memory.as_of>`), as a
caller pays it. p50 and p99, wall and CPU time (the process's, so a busy machine shows as a
gap between the two), and the ratio past / present, all from one run.

The target (issue 25): a past read's p50 at most 5 ms at 10^5 memories with 10^4 revisions.
"""

from __future__ import annotations

import contextlib
import functools
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stategraph.bench.perf.measure import percentile
from stategraph.errors import StategraphError
from stategraph.memory import Memory

__all__ = ["AsOfOptions", "render_asof", "run_asof"]

TARGET_P50_MS = 5.0
"""The issue's bound on a past read's p50 at 10^5 memories with 10^4 revisions."""


@dataclass
class AsOfOptions:
    """What ``bench perf --asof`` runs.

    Attributes:
        sizes: memories per store.
        revisions: revisions after the load, per size (None: a tenth of the size).
        samples: reads timed per kind of read, now and in the past.
        seed: the random draws (revisions and memories read).
    """

    sizes: list[int] = field(default_factory=lambda: [100_000])
    revisions: int | None = None
    samples: int = 300
    seed: int = 0


def _build(path: Path, size: int, revisions: int, rng: random.Random) -> Memory:
    facts = size // 2
    mem = Memory(path, candidates=None)
    mem.bulk_load(
        [{"id": f"f{i}", "kind": "fact", "text": f"fact number {i}"} for i in range(facts)]
        + [
            {"id": f"b{i}", "kind": "belief", "text": f"belief number {i}"}
            for i in range(size - facts)
        ],
        [
            {"head": f"b{i}", "premises": [f"f{i % facts}", f"f{(i * 7 + 1) % facts}"]}
            for i in range(size - facts)
        ],
    )
    live = list(range(facts))
    added = 0
    for n in range(revisions):
        step = n % 3
        if step == 0 and live:
            mem.retract(f"f{live.pop(rng.randrange(len(live)))}")
        elif step == 1:
            mem.fact(f"n{added}", f"a new fact {added}")
            added += 1
        elif live:
            old = live.pop(rng.randrange(len(live)))
            mem.supersede(f"f{old}", {"id": f"s{n}", "text": f"fact {old}, revised"})
    return mem


def _past(mem: Memory, seq: int, read: str, state_id: str) -> Any:
    return getattr(mem.as_of(seq), read)(state_id)


def _time(calls: Sequence[Callable[[], Any]]) -> dict[str, float]:
    wall: list[float] = []
    cpu: list[float] = []
    for call in calls:
        t, c = time.perf_counter(), time.process_time()
        with contextlib.suppress(StategraphError):  # why of what did not hold: still a read
            call()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return {
        "p50_ms": round(percentile(wall, 50), 3),
        "p99_ms": round(percentile(wall, 99), 3),
        "cpu_p50_ms": round(percentile(cpu, 50), 3),
    }


def _one(size: int, options: AsOfOptions, folder: Path) -> dict[str, Any]:
    rng = random.Random(options.seed)
    revisions = options.revisions if options.revisions is not None else max(1, size // 10)
    t = time.perf_counter()
    mem = _build(folder / f"asof-{size}.db", size, revisions, rng)
    built = time.perf_counter() - t
    try:
        head = mem.head()[0]
        facts, beliefs = size // 2, size - size // 2
        n = options.samples
        ids = [
            f"f{rng.randrange(facts)}" if rng.random() < 0.5 else f"b{rng.randrange(beliefs)}"
            for _ in range(n)
        ]
        heads = [f"b{rng.randrange(beliefs)}" for _ in range(n)]
        seqs = [rng.randint(1, head) for _ in range(n)]
        reads: dict[str, dict[str, Any]] = {}
        timed = [
            (
                read,
                [functools.partial(getattr(mem, read), i) for i in which],
                [
                    functools.partial(_past, mem, s, read, i)
                    for i, s in zip(which, seqs, strict=True)
                ],
            )
            for read, which in (("truth", ids), ("why", heads), ("why_not", heads))
        ]
        for name, now, then in timed:
            present, past = _time(now), _time(then)
            reads[name] = {
                "present": present,
                "as_of": past,
                "ratio_p50": round(past["p50_ms"] / max(present["p50_ms"], 1e-6), 2),
            }
        return {
            "memories": size,
            "revisions": head,
            "build_s": round(built, 1),
            "samples": n,
            "reads": reads,
            "target_p50_ms": TARGET_P50_MS,
            "within_target": all(r["as_of"]["p50_ms"] <= TARGET_P50_MS for r in reads.values()),
        }
    finally:
        mem.close()


def run_asof(options: AsOfOptions) -> dict[str, Any]:
    """Build each size's store in a scratch folder and time its reads, now and as of."""
    with tempfile.TemporaryDirectory(prefix="stategraph-asof-") as folder:
        return {
            "benchmark": "asof",
            "sizes": {str(s): _one(s, options, Path(folder)) for s in options.sizes},
        }


def render_asof(doc: dict[str, Any]) -> str:
    """The run as a table."""
    lines = [
        "as_of reads against the same reads now (ms; p50 / p99, CPU p50)",
        f"{'memories':>9} {'revisions':>9} {'read':<8} {'now p50':>8} {'as_of p50':>9} "
        f"{'as_of p99':>9} {'as_of cpu':>9} {'ratio':>6}",
    ]
    for size in doc["sizes"].values():
        for name, r in size["reads"].items():
            lines.append(
                f"{size['memories']:>9} {size['revisions']:>9} {name:<8} "
                f"{r['present']['p50_ms']:>8.3f} {r['as_of']['p50_ms']:>9.3f} "
                f"{r['as_of']['p99_ms']:>9.3f} {r['as_of']['cpu_p50_ms']:>9.3f} "
                f"{r['ratio_p50']:>6.2f}"
            )
        verdict = "within" if size["within_target"] else "OVER"
        lines.append(f"  {verdict} the target: as_of p50 <= {size['target_p50_ms']} ms")
    return "\n".join(lines)
