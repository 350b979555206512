"""The ``bench`` command, built into a bare argparse parser as the main CLI will do."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
import yaml

from stategraph.bench.cli import register


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stategraph")
    register(parser.add_subparsers(dest="command"))
    return parser


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return int(args.func(args))


def _case_dir(tmp_path: Path) -> Path:
    data = {
        "id": "cli-en-01",
        "lang": "en",
        "track": "declared",
        "memories": [
            {"id": "m1", "kind": "fact", "text": "The user moves to Berlin."},
            {"id": "m2", "kind": "belief", "text": "Rent in Berlin.", "because": [["m1"]]},
            {"id": "m3", "kind": "fact", "text": "The user likes jazz."},
        ],
        "change": {"retract": ["m1"]},
        "expect": {"invalidated": ["m2"], "kept": ["m3"], "depth": {"m2": 1}},
        "tags": ["hard-negative"],
    }
    (tmp_path / "cli-en-01.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return tmp_path


def test_json_output_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _case_dir(tmp_path)
    assert (
        _run(["bench", str(folder), "--system", "none", "--system", "descendants", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert set(out["systems"]) == {"none", "descendants"}
    d = out["systems"]["descendants"]
    assert d["overall"]["f1"] == 1.0
    assert set(d["by_depth"]) == {"1", "2", "3+"}
    assert {"collateral", "residue", "flagged"} <= set(d)
    row = next(r for r in out["cases"] if r["system"] == "none")
    assert row == {
        "id": "cli-en-01",
        "system": "none",
        "invalidated": [],
        "flagged": [],
        "expected": ["m2"],
    }


def test_table_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _case_dir(tmp_path)
    svg = tmp_path / "f1.svg"
    assert _run(["bench", str(folder / "cli-en-01.yaml"), "--plot", str(svg)]) == 0
    out = capsys.readouterr()
    assert "F1@3+" in out.out and "descendants" in out.out
    text = svg.read_text(encoding="utf-8")
    assert text.startswith("<svg") and "depth 3+" in text


def test_judge_skipped_without_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "STATEGRAPH_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    folder = _case_dir(tmp_path)
    assert _run(["bench", str(folder), "--system", "stategraph+judge", "--json"]) == 0
    captured = capsys.readouterr()
    assert "no judge configured" in captured.err
    assert json.loads(captured.out)["systems"] == {}


def test_track_filter_and_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _case_dir(tmp_path)
    assert _run(["bench", str(folder), "--track", "text"]) == 1
    assert "no case" in capsys.readouterr().err


def test_unknown_system_is_rejected() -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["bench", "--system", "magic"])


def test_tag_filter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _case_dir(tmp_path)
    assert _run(["bench", str(folder), "--tag", "blind", "--system", "none"]) == 1
    assert "no case" in capsys.readouterr().err
    assert _run(["bench", str(folder), "--tag", "hard-negative", "--system", "none"]) == 0
    assert "1 cases scored" in capsys.readouterr().out


def test_the_oracle_reports_requests_and_tokens_per_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # three plans written with the move in context only: one change puts all three in
    # question, and a judge asks about them in one request
    data = {
        "id": "cli-en-02",
        "lang": "en",
        "track": "recovered",
        "memories": [
            {"id": "m1", "kind": "fact", "text": "The user moves to Berlin in May."},
            *(
                {"id": f"p{i}", "kind": "plan", "text": f"Berlin plan {i}.", "context": ["m1"]}
                for i in range(3)
            ),
        ],
        "change": {"retract": ["m1"]},
        "expect": {"invalidated": ["p0", "p1", "p2"], "depth": {"p0": 1, "p1": 1, "p2": 1}},
    }
    (tmp_path / "cli-en-02.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    assert _run(["bench", str(tmp_path), "--system", "stategraph+oracle", "--json"]) == 0
    oracle = json.loads(capsys.readouterr().out)["systems"]["stategraph+oracle"]
    assert oracle["overall"]["f1"] == 1.0
    assert oracle["judge_calls_per_case"] == 1.0  # one request for the three plans
    assert oracle["judge_tokens_per_case"] > 0
    assert _run(["bench", str(tmp_path), "--system", "stategraph+oracle"]) == 0
    table = capsys.readouterr().out
    assert "calls/case" in table and "tok/case" in table
