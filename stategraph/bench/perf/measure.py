"""Timing one system over the premise sequence, and checking its answers.

A system is built (``build_s``), then retracts the workload's random premises in order and the
hub last, each retraction timed alone. A slow system stops being *measured* once it has spent
its time budget (after at least :data:`MIN_SAMPLES` retractions): the remaining premises are
applied without timing, and the hub is still measured, so every system ends on the same store.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from stategraph.bench.perf.systems import System
from stategraph.bench.perf.workload import Workload

__all__ = ["MIN_SAMPLES", "Skipped", "measure", "measure_isolated", "percentile", "settle"]

MIN_SAMPLES = 5

Factory = Callable[[Workload], System]


class Skipped(Exception):
    """A system could not be measured at this size; the message says why."""


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of a non-empty sample."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def settle() -> None:
    """Collect, then freeze what survives, so no long GC pause of the built structures lands
    inside a timed retraction (the engine's worker does the same after opening)."""
    gc.collect()
    gc.freeze()


def measure(
    factory: Factory,
    wl: Workload,
    expected: Sequence[set[int]],
    budget_s: float,
    min_samples: int = MIN_SAMPLES,
) -> dict[str, Any]:
    """Build a system, time its retractions, and compare each answer with ``expected``.

    Args:
        factory: builds the system from the workload.
        wl: the workload; its premises are retracted in order, then its hub.
        expected: stategraph's changed set per retraction (premises, then hub).
        budget_s: time after which the remaining random premises are applied untimed.
        min_samples: random premises always measured, whatever the budget.
    """
    t0 = time.perf_counter()
    system = factory(wl)
    build_s = time.perf_counter() - t0
    settle()
    times: list[float] = []
    sizes: list[int] = []
    mismatches: list[int] = []
    spent = 0.0

    def timed(fact: int, want: set[int]) -> float:
        nonlocal spent
        system.prepare()
        t = time.perf_counter()
        got = system.retract(fact)
        dt = time.perf_counter() - t
        spent += dt
        sizes.append(len(got))
        if system.exact and got != want:
            mismatches.append(fact)
        return dt * 1000

    for fact, want in zip(wl.premises, expected, strict=False):
        if len(times) >= min_samples and spent > budget_s:
            system.skip(fact)
        else:
            times.append(timed(fact, want))
    hub_ms = timed(wl.hub, expected[-1])
    result: dict[str, Any] = {
        "p50_ms": percentile(times, 50) if times else None,
        "p95_ms": percentile(times, 95) if times else None,
        "hub_ms": hub_ms,
        "n": len(times),
        "build_s": build_s,
    }
    if system.exact:
        result["agree"] = not mismatches
        if mismatches:
            result["disagree_on"] = [f"s{f}" for f in mismatches]
    else:
        result["answer_mean"] = sum(sizes[:-1]) / max(1, len(sizes) - 1)
        result["answer_hub"] = sizes[-1]
    return result


def _child(
    conn: Connection,
    factory: Factory,
    wl: Workload,
    expected: Sequence[set[int]],
    budget: float,
    min_samples: int,
) -> None:
    try:
        conn.send(("ok", measure(factory, wl, expected, budget, min_samples)))
    except Exception as exc:  # reported to the parent as a skip reason
        conn.send(("error", f"{type(exc).__name__}: {exc}"))


def measure_isolated(
    factory: Factory,
    wl: Workload,
    expected: Sequence[set[int]],
    budget_s: float,
    timeout_s: float,
    min_samples: int = MIN_SAMPLES,
) -> dict[str, Any]:
    """:func:`measure` in a forked child that is stopped after ``timeout_s``.

    For systems that may not finish at all at a size (pyDatalog's resolution blows up on some
    graphs), so that a hang becomes a skip with its reason instead of a stuck benchmark.

    Raises:
        Skipped: on timeout or when the system fails.
    """
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, factory, wl, expected, budget_s, min_samples))
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout_s):
            raise Skipped(f"did not finish within {timeout_s:.0f} s (stopped)")
        status, value = parent.recv()
    except EOFError:
        raise Skipped("the measuring process died") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()
    if status != "ok":
        raise Skipped(str(value))
    result: dict[str, Any] = value
    return result
