"""``stategraph show`` reads a store of this version straight from its file
(:mod:`stategraph.store.listing`), without pydantic: its lines must be the ones the models give,
and every store it does not take (an older version, the past, a foreign file) must go the
way it went before.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import sqlite3
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.cli import main
from stategraph.store.listing import state_lines

from .test_startup import run_fresh

CLI = importlib.import_module("stategraph.cli.main")  # the module (``main`` is its function)


def _store(path: Path) -> Path:
    """Every kind and truth value, retracted and superseded states, and texts that try to
    forge a line (a newline, a bidi override) or need no escaping (Chinese)."""
    with Memory(path) as mem:
        mem.fact("f1", "用户计划 2026-12 从上海搬到深圳")
        mem.fact("f2", "The user rents a flat\nm9 fact forged line")
        mem.belief("b1", "Commute by metro \u202eevil", because=["f1"])
        mem.action("a1", "Cancel the broadband", because=["b1"], unless=["f2"])
        mem.fact("gone", "A fact later retracted")
        mem.retract("gone")
        mem.supersede("f2", {"id": "f2b", "kind": "fact", "text": "The user bought the flat"})
    return path


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["show", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("as_json", [False, True])
def test_the_listing_prints_what_the_models_give(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    as_json: bool,
) -> None:
    path = str(_store(tmp_path / "m.db"))
    flags = ["--json"] if as_json else []
    assert state_lines(path, 5.0) is not None  # this store is one the listing takes
    fast = _show(capsys, path, *flags)
    monkeypatch.setattr(CLI, "_listed", lambda args: None)  # through Memory, as before
    assert _show(capsys, path, *flags) == fast
    if as_json:
        rows = json.loads(fast)
        assert {r["id"]: (r["truth"], r["active"]) for r in rows}["gone"] == ("false", False)
    else:
        assert "\nm9" not in fast and "\u202e" not in fast  # escaped, one line a state


def test_an_older_store_is_opened_in_full_and_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.db"
    _store(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    assert state_lines(str(path), 5.0) is None
    listed = _show(capsys, str(path))
    assert "f2b" in listed
    assert state_lines(str(path), 5.0) is not None  # the full open migrated it


def test_a_file_that_is_not_a_store_is_refused_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("CREATE TABLE meta (k TEXT)")  # a common name, and not ours
    assert main(["show", str(path)]) == 3
    assert "not a stategraph store" in capsys.readouterr().err
    assert main(["show", str(tmp_path / "missing.db")]) == 3


_SHOW = """
import contextlib, io, json, sys
from stategraph.cli import main

with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(["show", sys.argv[1]])
loaded = sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "clingo", "yaml"})
print(json.dumps({"code": code, "loaded": loaded, "lines": len(out.getvalue().splitlines())}))
"""


def test_show_imports_no_model_clingo_or_yaml(tmp_path: Path) -> None:
    """What start-up costs: pydantic alone takes 0.2 s on the 2-core machines CI runs on."""
    path = _store(tmp_path / "m.db")
    result = run_fresh(_SHOW, path)
    assert result == {"code": 0, "loaded": [], "lines": 6}
