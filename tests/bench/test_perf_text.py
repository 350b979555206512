"""``bench perf --text`` on a tiny size: every figure is there and the two linkers agree."""

from __future__ import annotations

from stategraph.bench.perf.text import TextPerfOptions, measure_size, render_text

KEYS = {
    "memories",
    "import_per_s",
    "import_one_process_per_s",
    "add_p50_ms",
    "add_p99_ms",
    "linked_add_p50_ms",
    "revise_p50_ms",
    "peak_rss_mb",
    "relink_peak_rss_mb",
    "relink_add_p50_ms",
    "relink_adds",
    "worker_peak_rss_mb",
    "grounded_ahead",
    "justifications_per_add",
    "justifications_per_add_max",
    "import_s",
}


def test_a_tiny_run_measures_everything() -> None:
    options = TextPerfOptions(sizes=[80], adds=12, revisions=3, relink_adds=2, relink_budget_s=30)
    figures = measure_size(80, options)
    assert set(figures) == KEYS
    assert figures["memories"] == 80 and figures["import_per_s"] > 0
    assert 0 < figures["add_p50_ms"] <= figures["add_p99_ms"]
    assert figures["relink_adds"] == 2 and figures["relink_add_p50_ms"] > 0
    doc = {"text": {"80": figures}, "machine": {"python": "3", "clingo": "5", "cores": 2}}
    assert "from scratch" in render_text(doc) and "80" in render_text(doc)


def test_a_tiny_dense_run_writes_rule_links_and_renders_beside_the_sparse_one() -> None:
    options = TextPerfOptions(
        sizes=[60], adds=10, revisions=2, relink_adds=1, relink_budget_s=30, workload="dense"
    )
    figures = measure_size(60, options)
    assert set(figures) == KEYS
    assert figures["justifications_per_add_max"] > 0  # dense adds write rule links
    machine = {"python": "3", "clingo": "5", "cores": 2}
    table = render_text({"text": {"60": figures}, "dense": {"60": figures}, "machine": machine})
    assert "dense" in table and "sparse" in table
