"""The benchmark's declared track through each store backend (``stategraph bench --store``):
the same cases give the same predictions and scores as in memory, and the scratch stores are
gone afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backends import postgres_url

from stategraph.bench.cases import shipped_cases
from stategraph.bench.cli import bench_json
from stategraph.bench.runner import run_bench
from stategraph.cli import main


def _declared() -> list:  # type: ignore[type-arg]
    return [c for c in shipped_cases() if c.track == "declared"]


@pytest.fixture
def store_url(backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'cases'}"
    return postgres_url()


def test_the_declared_track_scores_the_same_on_each_backend(
    backend: str, store_url: str, tmp_path: Path
) -> None:
    cases = _declared()
    assert len(cases) > 20
    names = ["stategraph", "stategraph+oracle"]
    in_memory = bench_json(run_bench(cases, names))
    on_store = bench_json(run_bench(cases, names, store=store_url))
    assert on_store == in_memory
    assert in_memory["systems"]["stategraph"]["errors"] == 0
    if backend == "sqlite":
        assert list((tmp_path / "cases").iterdir()) == []  # every scratch file removed
    else:
        import psycopg

        with psycopg.connect(store_url, autocommit=True) as conn:
            left = conn.execute(
                "SELECT count(*) FROM stategraph.tenants WHERE tenant LIKE 'bench-%'"
            ).fetchone()
        assert left == (0,)


def test_the_command_takes_a_store(store_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["bench", "--track", "declared", "--system", "stategraph", "--store", store_url, "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["systems"]["stategraph"]["errors"] == 0
    assert out["systems"]["stategraph"]["overall"]["f1"] > 0.9
