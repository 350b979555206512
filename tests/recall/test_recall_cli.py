"""stategraph recall on the command line, against store files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.cli.main import EXIT_INPUT, EXIT_STORE, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def flagged(path: Path) -> Path:
    with Memory.open(path) as mem:
        mem.fact("f1", "The user flies to Tokyo on May 10")
        mem.plan("p1", "Book a sushi dinner in Tokyo", context=["f1"])
        mem.fact("f2", "The user likes sushi")
        mem.retract("f1")
    return path


def test_recall_prints_status_reason_and_the_question_to_ask_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = flagged(tmp_path / "m.db")
    code, out, _ = run(capsys, "recall", str(path), "sushi")
    assert code == 0
    lines = out.splitlines()
    heads = [line.split()[0] for line in lines if not line.startswith(" ")]
    assert sorted(heads) == ["f2", "p1"]
    assert any(line.startswith("    ask first: Earlier:") for line in lines)
    code, out, _ = run(capsys, "recall", str(path), "sushi", "-k", "1", "--json")
    (one,) = json.loads(out)
    assert set(one) >= {"id", "kind", "text", "status", "score", "reason", "ask_first"}
    code, out, _ = run(capsys, "recall", str(path), "Tokyo", "--invalidated", "--json")
    assert {(r["id"], r["status"]) for r in json.loads(out)} == {
        ("f1", "invalidated"),
        ("p1", "needs_confirmation"),
    }
    code, out, _ = run(capsys, "recall", str(path), "nothing-here")
    assert (code, out) == (0, "nothing recalled\n")


def test_bad_input_and_missing_stores_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = flagged(tmp_path / "m.db")
    code, _, err = run(capsys, "recall", str(path), "  ")
    assert code == EXIT_INPUT and err.startswith("stategraph: error: invalid recall: query")
    code, _, err = run(capsys, "recall", str(path), "sushi", "-k", "0")
    assert code == EXIT_INPUT and "k: must be a whole number from 1 to 1000" in err
    code, _, err = run(capsys, "recall", str(tmp_path / "none.db"), "sushi")
    assert code == EXIT_STORE
