"""The figures the engine must not fall below on the shipped suite (``baseline.json``).

``python -m stategraph.bench.regression --write`` records the current figures after an
improvement; the regression test compares a fresh run against the recorded ones. Only
``stategraph`` and ``stategraph+oracle`` are recorded: baselines do not regress, they are what
we beat.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from stategraph.bench.cases import Case, shipped_cases
from stategraph.bench.runner import run_bench

__all__ = ["BASELINE_NAME", "current_figures", "recorded_figures", "regressions"]

BASELINE_NAME = "baseline.json"
_RATIOS = ("precision", "recall", "f1")


SYSTEMS = ("stategraph", "stategraph+oracle")
"""Recorded: the engine with logic only, and with the gold oracle as its judge (the ceiling
of the pipeline: how far candidates and logic let a perfect judge go)."""


def current_figures(cases: Sequence[Case] | None = None) -> dict[str, Any]:
    """Each recorded system's figures on every case (dev included), overall and per track."""
    cs = list(cases) if cases is not None else shipped_cases()
    result = run_bench(cs, SYSTEMS, include_dev=True)
    out: dict[str, Any] = {"cases": len(result.scored_cases), "systems": {}}
    for name in SYSTEMS:
        s = result.scores[name].to_dict()
        out["systems"][name] = {
            "overall": {k: s["overall"][k] for k in _RATIOS},
            "by_track": {t: {k: v[k] for k in _RATIOS} for t, v in s["by_track"].items()},
            "silent_by_track": s["silent_by_track"],
            "collateral": s["collateral"],
            "errors": s["errors"],
        }
    return out


def recorded_figures() -> dict[str, Any]:
    """The figures recorded in the package."""
    data: dict[str, Any] = json.loads(
        files("stategraph.bench").joinpath(BASELINE_NAME).read_text(encoding="utf-8")
    )
    return data


def regressions(current: dict[str, Any], recorded: dict[str, Any]) -> list[str]:
    """Every figure that got worse, as readable lines (empty when nothing did).

    Per system: F1 overall and per track (on the declared track, where the engine has every
    edge, precision and recall too); silent misses per track, collateral and errors must not
    grow. A vacuous precision (nothing predicted) is not held fixed elsewhere, so better
    candidates or judging may trade it for recall.
    """
    out: list[str] = []
    tol = 1e-9
    for name, then_sys in recorded["systems"].items():
        now_sys = current["systems"].get(name, {})
        checks = [("overall", "f1", now_sys.get("overall", {}), then_sys["overall"])]
        for track, figs in then_sys["by_track"].items():
            keys = _RATIOS if track == "declared" else ("f1",)
            now = now_sys.get("by_track", {}).get(track, {})
            checks += [(track, k, now, figs) for k in keys]
        for where, k, now, then in checks:
            if now.get(k, 0.0) + tol < then[k]:
                out.append(f"{name} {where} {k}: {now.get(k)} < {then[k]}")
        for track, n in then_sys["silent_by_track"].items():
            got = now_sys.get("silent_by_track", {}).get(track, 0)
            if got > n:
                out.append(f"{name} {track} silent misses: {got} > {n}")
        for k in ("collateral", "errors"):
            if now_sys.get(k, 0) > then_sys[k]:
                out.append(f"{name} {k}: {now_sys.get(k)} > {then_sys[k]}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the current figures, or write them over the recorded ones with ``--write``."""
    parser = argparse.ArgumentParser(prog="python -m stategraph.bench.regression")
    parser.add_argument("--write", action="store_true", help="record the current figures")
    args = parser.parse_args(argv)
    figs = current_figures()
    text = json.dumps(figs, indent=2, sort_keys=True) + "\n"
    if args.write:
        (Path(__file__).parent / BASELINE_NAME).write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
