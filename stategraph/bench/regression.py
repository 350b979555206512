"""The figures the engine must not fall below on the shipped suite (``baseline.json``).

A baseline that only goes up (issue 22): for each recorded system, each *group* of cases
(``main``, and ``blind``: the cases tagged ``blind``, reported apart because nobody developed
against them) and each track, every metric is recorded: F1, precision and recall (must not
fall), silent misses, collateral and errors (must not grow). The development split
(:func:`~stategraph.bench.similarity.is_dev`) is left out: tuning happens there.

Each cell records the cases it was measured on, and a fresh run is compared cell by cell on
those very cases: what got worse on them is a regression. New cases join a cell when the
figures are next recorded (the tool says how many each cell gained), and the cell's figures
then cover them too; if that lowers them (a batch of hard cases), it is recorded only as a
lowering, like any other, whether or not the cases recorded before got worse: a cell's
figures never fall in the file without a note saying why. One command records them::

    python -m stategraph.bench.regression --write

It refuses (exit 1, naming every figure) to record a figure below the one recorded, on the
cell's recorded cases or on its cases now, or to drop a recorded case, unless forced with
``--force --note "why"``, which keeps the note and the lowered figures in the file
(``lowered``) for everyone to see. Without ``--write`` it prints the current figures and
what got worse, and writes nothing.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from stategraph.bench.cases import Case, shipped_cases
from stategraph.bench.metrics import score
from stategraph.bench.runner import run_bench
from stategraph.bench.similarity import is_dev
from stategraph.bench.systems import Prediction

__all__ = [
    "BASELINE_NAME",
    "DOWN",
    "GROUPS",
    "SYSTEMS",
    "UP",
    "compare",
    "current_figures",
    "group_of",
    "held_out",
    "lowered_by_new_cases",
    "recorded_figures",
    "regressions",
    "write_baseline",
]

BASELINE_NAME = "baseline.json"
VERSION = 2

SYSTEMS = ("stategraph", "stategraph+oracle")
"""Recorded: the engine with logic only, and with the gold oracle as its judge (the ceiling
of the pipeline: how far candidates and logic let a perfect judge go). Baselines such as
``similarity`` are what we beat, not what we keep."""

GROUPS = ("main", "blind")
"""``blind``: cases tagged ``blind`` (written without sight of the grounding); ``main``: the
others."""

UP = ("f1", "precision", "recall")
"""Metrics that must not fall."""
DOWN = ("silent", "collateral", "errors")
"""Metrics (counts) that must not grow."""

_TOL = 1e-9

Cells = dict[str, dict[str, dict[str, dict[str, dict[str, Any]]]]]
"""system -> group -> track -> metric (and ``cases``) -> value."""


def group_of(case: Case) -> str:
    """The group a case is reported in (:data:`GROUPS`)."""
    return "blind" if "blind" in case.tags else "main"


def held_out(cases: Iterable[Case] | None = None) -> list[Case]:
    """The cases the baseline scores: every case but the development split's."""
    return [c for c in (shipped_cases() if cases is None else cases) if not is_dev(c.id)]


def _cell(pairs: list[tuple[Case, Prediction]]) -> dict[str, Any]:
    s = score(pairs).to_dict()
    out: dict[str, Any] = {k: s["overall"][k] for k in UP}
    out.update(silent=s["silent_misses"], collateral=s["collateral"], errors=s["errors"])
    out["cases"] = sorted(c.id for c, _ in pairs)
    return out


Run = list[tuple[str, Case, Prediction]]
"""Each recorded system's prediction on each case."""


def _run(cases: Sequence[Case]) -> Run:
    """Run the recorded systems over ``cases`` once (the dev split already left out)."""
    return run_bench(cases, SYSTEMS, include_dev=True).predictions


def _cells(run: Run, only: set[str] | None = None) -> Cells:
    """Score every system, group and track of a run (on the cases ``only`` names, if given)."""
    by: dict[tuple[str, str, str], list[tuple[Case, Prediction]]] = {}
    for name, case, pred in run:
        if only is None or case.id in only:
            by.setdefault((name, group_of(case), case.track), []).append((case, pred))
    out: Cells = {}
    for (name, group, track), pairs in sorted(by.items()):
        out.setdefault(name, {}).setdefault(group, {})[track] = _cell(pairs)
    return out


def _figures(run: Run) -> dict[str, Any]:
    return {
        "version": VERSION,
        "split": "held out: the development split is not scored",
        "cases": len({case.id for _, case, _ in run}),
        "systems": _cells(run),
    }


def current_figures(cases: Iterable[Case] | None = None) -> dict[str, Any]:
    """The figures of the recorded systems on the held-out cases, by group and track."""
    return _figures(_run(held_out(cases)))


def recorded_figures(path: Path | None = None) -> dict[str, Any]:
    """The figures recorded in the package (or in ``path``)."""
    text = (
        path.read_text(encoding="utf-8")
        if path is not None
        else files("stategraph.bench").joinpath(BASELINE_NAME).read_text(encoding="utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    return data


def regressions(current: Mapping[str, Any], recorded: Mapping[str, Any]) -> list[str]:
    """Every recorded figure ``current`` is worse on, as readable lines (empty: none).

    Both are figures in the shape of :func:`current_figures`; ``current`` should be measured
    on the recorded cells' cases (:func:`compare` does that). A cell or metric missing from
    ``current`` counts as worse, so a track that stopped being scored is noticed.
    """
    out: list[str] = []
    for name, groups in sorted(recorded["systems"].items()):
        for group, tracks in sorted(groups.items()):
            for track, then in sorted(tracks.items()):
                where = f"{name} {group}/{track}"
                now = current.get("systems", {}).get(name, {}).get(group, {}).get(track)
                if now is None:
                    out.append(f"{where}: not measured")
                    continue
                for k in UP:
                    if now.get(k, 0.0) + _TOL < then[k]:
                        out.append(f"{where} {k}: {now.get(k)} < {then[k]}")
                for k in DOWN:
                    if now.get(k, then[k] + 1) > then[k]:
                        out.append(f"{where} {k}: {now.get(k)} > {then[k]}")
    return out


def compare(
    recorded: Mapping[str, Any], cases: Iterable[Case] | None = None, run: Run | None = None
) -> list[str]:
    """What got worse since ``recorded``, each cell measured again on its recorded cases, and
    recorded cases no longer in the suite (or moved to another group, track or the dev split).

    Args:
        recorded: the recorded figures.
        cases: the suite (None: the shipped cases).
        run: predictions already made on the held-out cases (None: run the recorded ones).
    """
    available = {c.id: c for c in held_out(cases)}
    wanted: set[str] = set()
    missing: set[str] = set()
    for groups in recorded["systems"].values():
        for group, tracks in groups.items():
            for track, cell in tracks.items():
                for cid in cell["cases"]:
                    c = available.get(cid)
                    if c is None or group_of(c) != group or c.track != track:
                        missing.add(f"{group}/{track}: recorded case {cid} is no longer there")
                    else:
                        wanted.add(cid)
    if run is None:
        run = _run([available[cid] for cid in sorted(wanted)])
    return sorted(missing) + regressions({"systems": _cells(run, wanted)}, recorded)


def lowered_by_new_cases(figs: Mapping[str, Any], recorded: Mapping[str, Any]) -> list[str]:
    """The recorded figures that ``figs`` (the figures as they would be recorded now, each
    cell over its cases now) would lower, each said with how many cases its cell gained: a
    cell whose new cases pull its F1 down lowers the recorded figure as surely as a
    regression does (:func:`compare` looks only at the cases recorded before)."""
    out = []
    for line in regressions(figs, recorded):
        where, _, rest = line.partition(": ")
        if rest == "not measured":  # a cell no longer scored: compare names its cases
            continue
        name, cell = where.split(" ")[:2]
        group, track = cell.split("/")
        now = figs["systems"][name][group][track]["cases"]
        then = recorded["systems"][name][group][track]["cases"]
        gained = len(set(now) - set(then))
        out.append(f"{line} (over its cases now: {gained} new, {len(now)} in all)")
    return out


def _worse(
    recorded: Mapping[str, Any], figs: Mapping[str, Any], run: Run, cases: Iterable[Case] | None
) -> list[str]:
    """Everything that keeps ``figs`` from being recorded over ``recorded`` without a note:
    :func:`compare`'s lines, then :func:`lowered_by_new_cases`' for the figures it did not
    name."""
    worse = compare(recorded, cases, run)
    named = {line.split(": ")[0] for line in worse}
    grown = lowered_by_new_cases(figs, recorded)
    return worse + [line for line in grown if line.split(": ")[0] not in named]


def write_baseline(
    path: Path, *, force: bool = False, note: str | None = None, cases: Iterable[Case] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Record the current figures in ``path`` unless one is worse than recorded there.

    Returns:
        The figures written (or that would have been), and the figures that got worse (empty
        when none did). With worse figures and no ``force``, nothing is written.

    Raises:
        ValueError: ``force`` without a ``note`` saying why.
    """
    if force and not (note and note.strip()):
        raise ValueError("--force needs --note saying why a recorded figure may go down")
    cs = list(cases) if cases is not None else None
    run = _run(held_out(cs))
    old = recorded_figures(path) if path.exists() else None
    figs = _figures(run)
    worse = _worse(old, figs, run, cs) if old is not None and old.get("version") == VERSION else []
    lowered = list(old.get("lowered", [])) if old is not None else []
    if worse and not force:
        return figs, worse
    if worse:
        today = datetime.datetime.now(datetime.UTC).date().isoformat()
        lowered.append({"on": today, "note": note, "figures": worse})
    if lowered:
        figs["lowered"] = lowered
    path.write_text(json.dumps(figs, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return figs, worse


def _new_cases(figs: Mapping[str, Any], old: Mapping[str, Any]) -> list[str]:
    """A line per cell whose recorded cases grew: its figures now cover new cases too (the
    old ones were compared first), so they may differ from the old figures either way."""
    out = []
    for group, tracks in figs["systems"].get(SYSTEMS[0], {}).items():
        for track, cell in tracks.items():
            was = old.get("systems", {}).get(SYSTEMS[0], {}).get(group, {}).get(track, {})
            added = len(set(cell["cases"]) - set(was.get("cases", [])))
            if added:
                out.append(f"{group}/{track}: {added} new cases recorded, {len(cell['cases'])} now")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the current figures and what got worse; ``--write`` records them."""
    parser = argparse.ArgumentParser(
        prog="python -m stategraph.bench.regression",
        description="The benchmark baseline: figures only go up (see the module docstring).",
    )
    parser.add_argument("--write", action="store_true", help="record the current figures")
    parser.add_argument(
        "--force", action="store_true", help="record even figures worse than recorded"
    )
    parser.add_argument("--note", help="why a figure may go down (needed with --force)")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=Path(__file__).parent / BASELINE_NAME,
        help=argparse.SUPPRESS,
    )
    args = parser.parse_args(argv)
    if args.force and not args.write:
        parser.error("--force goes with --write")
    if args.write:
        old = recorded_figures(args.baseline) if args.baseline.exists() else {"systems": {}}
        try:
            figs, worse = write_baseline(args.baseline, force=args.force, note=args.note)
        except ValueError as exc:
            parser.error(str(exc))
        for line in worse:
            print(f"worse: {line}", file=sys.stderr)
        if worse and not args.force:
            print(
                "nothing written: these figures are below the recorded ones; fix the "
                'regression, or record them with --force --note "why"',
                file=sys.stderr,
            )
            return 1
        for line in _new_cases(figs, old):
            print(line, file=sys.stderr)
        print(f"recorded {args.baseline}", file=sys.stderr)
    else:
        run = _run(held_out())
        figs = _figures(run)
        for line in _worse(recorded_figures(args.baseline), figs, run, None):
            print(f"worse: {line}", file=sys.stderr)
    print(json.dumps(figs, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
