"""review, confirm and reject on the command line, against store files."""

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
    """p1 rests on a lost, unverified candidate; x1 is an executed action that lost its
    support."""
    with Memory.open(path) as mem:
        mem.fact("f1", "The user flies to Tokyo on May 10")
        mem.plan("p1", "Book a sushi dinner in Tokyo", context=["f1"])
        mem.action("x1", "Paid the hotel deposit", because=["f1"], status="executed")
        mem.retract("f1")
    return path


def test_review_lists_the_queue_in_words_and_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = flagged(tmp_path / "m.db")
    code, out, _ = run(capsys, "review", str(path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("p1  plan  undefined  flagged in revision 4: Book a sushi")
    assert "nobody verified it" in lines[1] and "undecided: f1" in lines[1]
    assert lines[2].startswith("x1  action, review  false  flagged in revision 4")
    assert lines[-1].startswith("2 waiting")
    code, out, _ = run(capsys, "review", str(path), "--json")
    data = json.loads(out)
    assert [(d["id"], d["cause"], d["flagged_in"]) for d in data] == [
        ("p1", "unverified_candidate", 4),
        ("x1", "no_support", 4),
    ]


def test_confirm_and_reject_settle_and_are_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = flagged(tmp_path / "m.db")
    code, out, _ = run(capsys, "confirm", str(path), "p1", "--by", "alice", "--note", "still going")
    assert code == 0 and "restored" in out and "confirmed by alice: still going" in out
    code, out, _ = run(capsys, "why", str(path), "p1")
    assert out.splitlines()[0].endswith("<- confirmed by alice: still going")
    code, out, _ = run(capsys, "reject", str(path), "x1", "--by", "bob", "--json")
    report = json.loads(out)
    assert code == 0 and report["changed"] == [
        {"id": "x1", "action": "retracted", "by": None, "new": "false"}
    ]
    assert report["change"]["reviews"][0] == {
        "id": "x1",
        "decision": "rejected",
        "by": "bob",
        "note": "",
        "at": None,
    }
    assert run(capsys, "review", str(path))[1] == "nothing waits for review\n"


def test_refusals_exit_by_class_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = flagged(tmp_path / "m.db")
    with Memory.open(path) as mem:
        head = mem.head()
    code, _, err = run(capsys, "confirm", str(path), "f1", "--by", "alice")
    assert code == EXIT_INPUT and "not waiting for review" in err
    code, _, err = run(capsys, "confirm", str(path), "p1", "--by", "alice", "--at", "soon")
    assert code == EXIT_INPUT and "invalid review" in err
    code, _, err = run(capsys, "reject", str(tmp_path / "nope.db"), "p1", "--by", "alice")
    assert code == EXIT_STORE and not (tmp_path / "nope.db").exists()
    with Memory.open(path) as mem:
        assert mem.head() == head
