"""The engine must not fall below the figures recorded in ``stategraph/bench/baseline.json``."""

from __future__ import annotations

import importlib.util

import pytest

from stategraph.bench.cases import shipped_cases
from stategraph.bench.regression import current_figures, recorded_figures, regressions

from .tiny import make_case

if importlib.util.find_spec("stategraph.memory") is None:  # pragma: no cover
    pytest.skip("the stategraph engine API is not there yet", allow_module_level=True)


def test_stategraph_does_not_regress_on_the_suite() -> None:
    problems = regressions(current_figures(), recorded_figures())
    assert not problems, "; ".join(problems)


def test_regressions_are_reported() -> None:
    rec = recorded_figures()
    sg = rec["systems"]["stategraph"]
    worse_f1 = {"stategraph": {**sg, "overall": {**sg["overall"], "f1": sg["overall"]["f1"] - 0.1}}}
    assert any("stategraph overall f1" in p for p in regressions({"systems": worse_f1}, rec))
    silent = {**sg["silent_by_track"], "text": sg["silent_by_track"]["text"] + 1}
    worse_silent = {"stategraph": {**sg, "silent_by_track": silent}}
    assert any("text silent" in p for p in regressions({"systems": worse_silent}, rec))


def test_engine_system_on_a_tiny_case() -> None:
    from stategraph.bench.engine import StategraphSystem

    pred = StategraphSystem().run(make_case())
    assert pred.invalidated == {"m2", "m3"}
    assert pred.consequences == {"m3": "cancel"}


def test_declared_track_is_exact() -> None:
    from stategraph.bench.engine import StategraphSystem

    system = StategraphSystem()
    for case in shipped_cases():
        if case.track != "declared":
            continue
        pred = system.run(case)
        assert pred.invalidated == set(case.expect.invalidated), case.id
        assert pred.flagged == set(case.expect.needs_confirmation), case.id
        assert pred.restored == set(case.expect.restored), case.id
