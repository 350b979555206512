"""``bench perf --asof`` runs end to end at a tiny size: its JSON carries the past and present
p50 of each read side by side (the figures themselves are the benchmark's, not a test's)."""

from __future__ import annotations

import json

import pytest

from stategraph.bench.perf.asof import AsOfOptions, render_asof, run_asof
from stategraph.cli.main import main


def test_the_run_times_each_read_now_and_as_of() -> None:
    doc = run_asof(AsOfOptions(sizes=[60], samples=12))
    size = doc["sizes"]["60"]
    assert (size["memories"], size["revisions"]) == (60, 7)  # the bulk load, then 6
    assert set(size["reads"]) == {"truth", "why", "why_not"}
    for read in size["reads"].values():
        assert set(read) == {"present", "as_of", "ratio_p50"}
        assert set(read["as_of"]) == {"p50_ms", "p99_ms", "cpu_p50_ms"}
    assert "as_of reads against the same reads now" in render_asof(doc)


def test_the_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "perf", "--asof", "--sizes", "40", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["benchmark"] == "asof" and "40" in doc["sizes"]
