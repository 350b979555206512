"""``--as-of`` on show, why, why-not and recall, and ``graph --revision N`` drawing the store
as it was after N, against store files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stategraph.cli.main import EXIT_INPUT, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_commands_read_the_memory_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "m.db")
    assert (
        run(capsys, "demo", "--lang", "zh", "--store", path)[0] == 0
    )  # 5 revisions: 5 calls it off
    code, out, _ = run(capsys, "show", path, "--as-of", "4", "--json")
    assert {r["id"]: r["truth"] for r in json.loads(out)} == {
        "m1": "true",
        "m2": "true",
        "m3": "true",
        "m4": "true",
    }
    code, out, _ = run(capsys, "why", path, "m3", "--as-of", "4")
    assert code == 0 and out.startswith("m3 [action]")
    code, out, _ = run(capsys, "why-not", path, "m3", "--as-of", "5", "--json")
    assert json.loads(out)["items"][0]["first_failed"] == "m1"
    code, out, _ = run(capsys, "recall", path, "宽带", "--as-of", "4", "--json")
    assert [(r["id"], r["status"]) for r in json.loads(out)] == [("m3", "holds")]
    code, out, _ = run(capsys, "recall", path, "宽带")
    assert out == "nothing recalled\n"
    code, _, err = run(capsys, "show", path, "--as-of", "6")
    assert (
        code == EXIT_INPUT and "revision 6 is not written yet: give a revision from 1 to 5" in err
    )


def test_graph_of_a_revision_draws_the_store_as_it_was_then(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "m.db")
    run(capsys, "demo", "--store", path)
    code, out, _ = run(capsys, "graph", path, "--revision", "2", "--json")
    picture = json.loads(out)
    assert code == 0 and {s["id"] for s in picture["states"]} == {"m1", "m2"}
    assert {s["truth"] for s in picture["states"]} == {"true"}
    code, out, _ = run(capsys, "graph", path, "--revision", "5", "--json")
    states = {s["id"]: s["truth"] for s in json.loads(out)["states"]}
    assert states["m3"] == "false" and states["m1b"] == "true"
