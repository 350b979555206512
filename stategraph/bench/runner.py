"""Run systems over cases on identical inputs and pool their scores.

The similarity baseline is tuned on the development split (:func:`~.similarity.is_dev`) and,
to keep comparisons fair, *every* system is then scored on the remaining cases only. When all
the given cases are development cases there is nothing held out: the run scores them all, the
threshold stays at its recorded default, and the result says so.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from stategraph.bench.cases import Case
from stategraph.bench.engine import (
    JudgeSystem,
    OracleCheckSystem,
    OracleSystem,
    StategraphSystem,
    SystemUnavailable,
)
from stategraph.bench.metrics import SystemScore, score
from stategraph.bench.similarity import SimilaritySystem, is_dev
from stategraph.bench.stores import scratch_memories
from stategraph.bench.systems import (
    DescendantsSystem,
    DirectSystem,
    NoneSystem,
    Prediction,
    System,
)
from stategraph.errors import StategraphError
from stategraph.memory import Memory

__all__ = ["SYSTEM_NAMES", "BenchResult", "Progress", "make_system", "run_bench"]

_FACTORIES: dict[str, Callable[[], System]] = {
    "none": NoneSystem,
    "similarity": SimilaritySystem,
    "descendants": DescendantsSystem,
    "direct": DirectSystem,
    "stategraph": StategraphSystem,
    "stategraph+judge": JudgeSystem,
    "stategraph+oracle": OracleSystem,
    "stategraph+oracle+check": OracleCheckSystem,
}
SYSTEM_NAMES = tuple(_FACTORIES)
"""Every system the harness knows, in report order."""

Progress = Callable[[str, int, int], None]
"""Called as ``progress(system, done, total)`` after each case."""


_ENGINES: dict[str, Callable[[Callable[..., Memory]], System]] = {
    "stategraph": StategraphSystem,
    "stategraph+judge": JudgeSystem,
    "stategraph+oracle": OracleSystem,
    "stategraph+oracle+check": OracleCheckSystem,
}
"""The systems that run the engine, by name: built with the memories they run on."""


def make_system(name: str, store: str | None = None) -> System:
    """Build a system by name; with ``store`` (a store URL), stategraph's systems run each
    case on a scratch store of that backend (:mod:`stategraph.bench.stores`), not in memory.

    Raises:
        SystemUnavailable: when the system cannot run here (e.g. no judge configured).
        KeyError: for an unknown name.
    """
    if store is not None and name in _ENGINES:
        return _ENGINES[name](scratch_memories(store))
    return _FACTORIES[name]()


@dataclass
class BenchResult:
    """The outcome of one run."""

    scores: dict[str, SystemScore] = field(default_factory=dict)
    predictions: list[tuple[str, Case, Prediction]] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    """Systems that could not run, with the reason."""
    scored_cases: list[str] = field(default_factory=list)
    dev_cases: list[str] = field(default_factory=list)
    """Cases held out for tuning (not scored unless ``include_dev``)."""
    threshold: float | None = None
    """The similarity threshold used, when that system ran."""


def _safe_run(system: System, case: Case) -> Prediction:
    try:
        return system.run(case)
    except StategraphError as exc:
        return Prediction(error=f"{type(exc).__name__}: {exc}")


def run_bench(
    cases: Sequence[Case],
    names: Iterable[str] = SYSTEM_NAMES,
    *,
    include_dev: bool = False,
    progress: Progress | None = None,
    store: str | None = None,
) -> BenchResult:
    """Run the named systems over the cases and score them.

    Args:
        cases: the cases (already filtered by track or anything else).
        names: systems to run; unavailable ones are recorded in ``skipped``.
        include_dev: also score the development cases.
        progress: optional callback after each case.
        store: run stategraph's systems on scratch stores of this URL (None: in memory).
    """
    dev = [c for c in cases if is_dev(c.id)]
    held_out = [c for c in cases if not is_dev(c.id)]
    scored = list(cases) if include_dev or not held_out else held_out
    out = BenchResult(scored_cases=[c.id for c in scored], dev_cases=[c.id for c in dev])
    for name in names:
        try:
            system = make_system(name, store)
        except SystemUnavailable as exc:
            out.skipped[name] = str(exc)
            continue
        if isinstance(system, SimilaritySystem):
            system.fit(dev if held_out else [])
            out.threshold = system.threshold
        pairs: list[tuple[Case, Prediction]] = []
        for i, case in enumerate(scored, 1):
            pred = _safe_run(system, case)
            pairs.append((case, pred))
            out.predictions.append((name, case, pred))
            if progress is not None:
                progress(name, i, len(scored))
        out.scores[name] = score(pairs)
    return out


def stderr_progress(stream: TextIO = sys.stderr) -> Progress:
    """A progress line on stderr: rewritten in place on a terminal, else one per system."""
    tty = stream.isatty()

    def report(system: str, done: int, total: int) -> None:
        if tty:
            stream.write(f"\rbench {system}: {done}/{total} cases")
            if done == total:
                stream.write("\n")
        elif done == total:
            stream.write(f"bench {system}: {total} cases\n")
        stream.flush()

    return report
