"""The figures the engine must not fall below on the shipped suite (``baseline.json``).

``python -m stategraph.bench.regression --write`` records the current figures after an
improvement; the regression test compares a fresh run against the recorded ones. Only the
``stategraph`` system is recorded: baselines do not regress, they are what we beat.
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


def current_figures(cases: Sequence[Case] | None = None) -> dict[str, Any]:
    """``stategraph``'s figures on every case (dev included), overall and per track."""
    cs = list(cases) if cases is not None else shipped_cases()
    result = run_bench(cs, ["stategraph"], include_dev=True)
    s = result.scores["stategraph"].to_dict()
    pick = {k: s["overall"][k] for k in _RATIOS}
    return {
        "system": "stategraph",
        "cases": s["cases"],
        "overall": pick,
        "by_track": {t: {k: v[k] for k in _RATIOS} for t, v in s["by_track"].items()},
        "collateral": s["collateral"],
        "errors": s["errors"],
    }


def recorded_figures() -> dict[str, Any]:
    """The figures recorded in the package."""
    data: dict[str, Any] = json.loads(
        files("stategraph.bench").joinpath(BASELINE_NAME).read_text(encoding="utf-8")
    )
    return data


def regressions(current: dict[str, Any], recorded: dict[str, Any]) -> list[str]:
    """Every figure that got worse, as readable lines (empty when nothing did).

    F1 is checked overall and per track; on the declared track, where the engine has every
    edge, precision and recall are checked too. A vacuous precision (nothing predicted) is not
    held fixed elsewhere, so better grounding or judging may trade it for recall.
    """
    out: list[str] = []
    tol = 1e-9
    checks = [("overall", "f1", current["overall"], recorded["overall"])]
    for track, figs in recorded["by_track"].items():
        keys = _RATIOS if track == "declared" else ("f1",)
        now = current["by_track"].get(track, {})
        checks += [(track, k, now, figs) for k in keys]
    for where, k, now, then in checks:
        if now.get(k, 0.0) + tol < then[k]:
            out.append(f"{where} {k}: {now.get(k)} < {then[k]}")
    for k in ("collateral", "errors"):
        if current[k] > recorded[k]:
            out.append(f"{k}: {current[k]} > {recorded[k]}")
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
