"""``stategraph graph`` over a real store file: every format, the options, and its errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stategraph.cli import main
from tests.pictures.test_golden import GOLDEN


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_dot_and_mermaid_are_the_golden_pictures(
    capsys: pytest.CaptureFixture[str], demo_store: Path
) -> None:
    code, out, _ = run(capsys, "graph", str(demo_store), "--revision", "5")
    assert code == 0 and out == (GOLDEN / "demo-en.dot").read_text(encoding="utf-8")
    code, out, _ = run(capsys, "graph", str(demo_store), "--revision", "5", "--format", "mermaid")
    assert code == 0 and out == (GOLDEN / "demo-en.mmd").read_text(encoding="utf-8")


def test_html_and_json_to_a_file(
    capsys: pytest.CaptureFixture[str], demo_store: Path, tmp_path: Path
) -> None:
    page = tmp_path / "demo.html"
    code, out, _ = run(
        capsys, "graph", str(demo_store), "--revision", "5", "--format", "html", "-o", str(page)
    )
    assert code == 0 and out == ""
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code, out, _ = run(capsys, "graph", str(demo_store), "--around", "m3", "--hops", "1", "--json")
    data = json.loads(out)
    assert [s["id"] for s in data["states"]] == ["m1", "m3"]
    assert data["left_out"] == 1 and data["focus"] == "m3"  # m2, beside m1


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz: apt-get install graphviz")
def test_svg(capsys: pytest.CaptureFixture[str], demo_store: Path) -> None:
    code, out, _ = run(capsys, "graph", str(demo_store), "--format", "svg", "--revision", "5")
    assert code == 0 and "<svg" in out and "m3 · action (pending)" in out


def test_errors_are_one_line_with_an_exit_code(
    capsys: pytest.CaptureFixture[str],
    demo_store: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = str(demo_store)
    cases = [
        (["--revision", "6"], 2, "no revision 6 in the log (it has entries 1 to 5"),
        (["--around", "m9"], 2, "unknown state id 'm9'"),
        (["--limit", "2"], 2, "more than 2 states and justifications: draw part of it"),
        (["--hops", "0"], 2, "counts from a revision's cone (--revision N) or a state"),
        (["-o", str(tmp_path / "no" / "such" / "x.dot")], 2, "cannot write"),
    ]
    for extra, want_code, message in cases:
        code, out, err = run(capsys, "graph", store, *extra)
        assert (code, out) == (want_code, ""), extra
        assert err.startswith("stategraph: error: ") and message in err, err
    code, _, err = run(capsys, "graph", str(tmp_path / "missing.db"))
    assert code == 3 and not (tmp_path / "missing.db").exists()  # a read never creates
    monkeypatch.setenv("PATH", str(tmp_path))
    code, out, err = run(capsys, "graph", store, "--format", "svg")
    assert code == 2 and out == ""
    assert "needs the program 'dot', which is not installed" in err and "apt-get" in err
