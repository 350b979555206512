"""A command that fails leaves no store file it made (issue 42, finding 10): ``import`` with a
refused line, or ``add --kind nosuchkind``, left an empty store file, against SECURITY.md's "a
failed command creates and writes no store". A store that was there before is left as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stategraph.cli.main import EXIT_INPUT, main
from stategraph.store.open import open_store


def _lines(path: Path, *rows: object) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["add", "{store}", "--id", "x", "--kind", "nosuchkind"],
        ["import", "{store}", "{unknown_kind}"],
        ["import", "{store}", "{not_an_id}"],
        ["import", "{store}", "{unknown_kind}", "--memories", "--one-process"],
        ["revise", "{store}", "--change", "{retract_nothing_known}"],
    ],
    ids=["add unknown kind", "import unknown kind", "import bad id", "import memories", "revise"],
)
def test_a_failed_command_leaves_no_store_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    files = {
        "store": tmp_path / "new.db",
        "unknown_kind": _lines(
            tmp_path / "k.jsonl", {"id": "a", "text": "x"}, {"id": "b", "kind": "nosuch"}
        ),
        "not_an_id": _lines(tmp_path / "i.jsonl", {"id": "a", "text": "x"}, {"id": 1}),
        "retract_nothing_known": _lines(tmp_path / "c.json", {"retract": ["ghost"]}),
    }
    code = main([a.format(**{k: str(v) for k, v in files.items()}) for a in argv])
    assert code == EXIT_INPUT, capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("new.db")) == []


def test_a_store_that_was_there_stays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "there.db"
    open_store(str(path), create=True).close()  # empty, but made before the command
    assert main(["add", str(path), "--id", "x", "--kind", "nosuchkind"]) == EXIT_INPUT
    assert path.exists()
    assert main(["add", str(path), "--id", "x", "--text", "kept"]) == 0
    unknown = _lines(tmp_path / "k.jsonl", {"id": "b", "kind": "nosuch"})
    assert main(["import", str(path), str(unknown)]) == EXIT_INPUT
    capsys.readouterr()
    assert main(["show", str(path), "--json"]) == 0
    assert [s["id"] for s in json.loads(capsys.readouterr().out)] == ["x"]
