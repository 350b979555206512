"""``bench --recall-status``: recall's status guarantee checked after each case's change, and a
recall that breaks the guarantee (a double of the recall function passed in) caught by it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from backends import postgres_url

from stategraph.bench.cases import Case, shipped_cases, shipped_cases_dir
from stategraph.bench.recall_status import FAILURE_COUNTS, run_recall_status
from stategraph.bench.stores import scratch_memories
from stategraph.cli import main
from stategraph.memory import Memory
from stategraph.recall import Recalled

SMALL = ("health-en-04", "family-en-04", "health-en-g04", "finance-zh-g04")
"""A declared, a recovered and two blind text cases (one Chinese): each has memories that stop
holding and memories left in doubt by its change."""


def _small() -> list[Case]:
    cases = [c for c in shipped_cases() if c.id in SMALL]
    assert len(cases) == len(SMALL)
    return cases


def _invalidated_too(mem: Memory, query: str, k: int) -> Sequence[Recalled]:
    """Broken: the filter that leaves out what does not hold is switched off."""
    return mem.recall(query, k, include_invalidated=True)


def _no_status(mem: Memory, query: str, k: int) -> Sequence[Recalled]:
    """Broken: every memory found is returned as holding, with no question to ask first."""
    found = mem.recall(query, k, include_invalidated=True)
    return [r.model_copy(update={"status": "holds", "ask_first": None}) for r in found]


def test_the_guarantee_holds_on_each_track() -> None:
    result = run_recall_status(_small())
    assert result["ok"] is True
    assert set(result["groups"]) == {"declared", "recovered", "text", "text (blind)"}
    every = result["all"]
    assert every["cases"] == 4 and every["errors"] == 0
    assert all(every[name] == 0 for name in FAILURE_COUNTS)
    # the check had something to catch: memories that stopped holding, and memories in doubt,
    # every one of which some recall returned (with its ask_first)
    assert every["not_holding"] >= 4
    assert every["in_doubt"] >= 4
    assert every["in_doubt_returned"] == every["in_doubt"]


def test_a_recall_returning_what_does_not_hold_fails_the_check() -> None:
    result = run_recall_status(_small(), recall=_invalidated_too)
    assert result["ok"] is False
    every = result["all"]
    assert every["not_holding_returned"] == every["not_holding"] > 0
    assert every["not_holding_as_holding"] == 0  # returned, but said not to hold
    assert every["examples"][0]["what"] == "not_holding_returned"
    for name in ("declared", "recovered", "text"):
        assert result["groups"][name]["not_holding_returned"] > 0


def test_a_recall_without_statuses_fails_every_count() -> None:
    every = run_recall_status(_small(), recall=_no_status)["all"]
    assert every["not_holding_as_holding"] == every["not_holding"] > 0
    assert every["in_doubt_without_ask_first"] == every["in_doubt"] > 0
    assert every["in_doubt_as_holding"] == every["in_doubt"]


@pytest.fixture
def store_url(backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'cases'}"
    return postgres_url()


def test_the_guarantee_holds_on_each_backend(backend: str, store_url: str) -> None:
    result = run_recall_status(_small(), factory=scratch_memories(store_url))
    assert result["ok"] is True
    assert result["all"]["in_doubt_returned"] == result["all"]["in_doubt"] > 0


def test_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    folder = shipped_cases_dir()
    paths = [str(folder.joinpath(f"{name}.yaml")) for name in SMALL[:2]]
    assert main(["bench", "--recall-status", *paths, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True
    assert set(out["groups"]) == {"declared", "recovered"}
    assert main(["bench", "--recall-status", paths[0]]) == 0
    table = capsys.readouterr().out
    assert "guarantee held" in table and "declared" in table


def test_options_that_do_not_go_together(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--recall-status", "--mquake"]) == 2
    assert main(["bench", "--recall-status", "--system", "none"]) == 2
    assert main(["bench", "--instances", "3"]) == 2
    assert "--instances is only read by --mquake" in capsys.readouterr().err
