"""The service's load test: a short run in every test run, a longer one opt-in
(``python -m pytest -m slow tests/reliability``).

Two uvicorn workers on loopback, writers across ten tenants and on one hot tenant, one worker
killed with SIGKILL part-way: every acknowledged revision must be in its tenant's store once,
the chains must verify and the logs replay (``stategraph/service/load.py``; the full run, with
its figures, is ``scripts/load_test.py``). Nothing here is timed: the figures are printed, the
assertions are the anomaly counts.
"""

from __future__ import annotations

import pytest
from backends import postgres_url

from stategraph.service.load import LoadConfig, run


@pytest.mark.slow
def test_a_short_load_run_loses_duplicates_and_interleaves_nothing(backend: str) -> None:
    """On each backend: SQLite files, or a PostgreSQL database of the run's own."""
    config = LoadConfig(workers=2, tenants=10, writers=6, hot_writers=3, seconds=6.0)
    result = run(config, postgres=postgres_url() if backend == "postgres" else None)
    summary = result.summary()
    print(summary)
    assert result.killed and result.restarted
    assert result.acknowledged > result.warm_up
    assert summary["anomalies"] == {
        "lost": 0,
        "duplicated": 0,
        "unexpected": 0,
        "interleaved": 0,
        "chain_failures": 0,
        "errors": 0,
    }


def test_a_worker_killed_under_load_loses_nothing_in_ci() -> None:
    """The same run cut to what CI can afford (two workers, two tenants and the hot one, a
    few seconds of writes on SQLite), with the kill: it still must lose, duplicate and
    interleave nothing, and uvicorn must start a new worker. Before, only the ``slow`` run
    killed a worker, and CI never did."""
    config = LoadConfig(workers=2, tenants=2, writers=2, hot_writers=2, seconds=3.0)
    result = run(config)
    summary = result.summary()
    print(summary)
    assert result.killed and result.restarted, summary
    assert result.acknowledged > result.warm_up
    assert all(n == 0 for n in summary["anomalies"].values()), summary["anomalies"]
