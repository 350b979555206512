"""``bench perf --recall`` on a tiny size: every figure is there, and the bounded ranking
agrees with the exhaustive one on every query of the mix (on PostgreSQL too, when there is one)."""

from __future__ import annotations

import os

from stategraph.bench.perf.recall import KINDS, RecallPerfOptions, measure_size, render_recall


def test_a_tiny_run_measures_everything_and_the_rankings_agree() -> None:
    pg = os.environ.get("STATEGRAPH_TEST_POSTGRES") or None
    options = RecallPerfOptions(sizes=[400], queries=24, adds=6, revisions=4, postgres=pg)
    figures = measure_size(400, options)
    assert figures["memories"] == 400 and figures["queries"] == 24
    assert figures["agree"] == 24
    assert set(figures["by_kind"]) == set(KINDS)
    assert 0 < figures["search_p50_ms"] <= figures["search_p99_ms"]
    assert figures["add_p50_ms"] > 0 and figures["add_no_index_p50_ms"] > 0
    if pg is not None:
        assert figures["postgres"]["agree"] == 24
    doc = {"recall": {"400": figures}, "machine": {"python": "3", "cores": 2}}
    table = render_recall(doc)
    assert "400" in table and "exhaustive" in table
