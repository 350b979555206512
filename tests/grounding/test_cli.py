"""The ``ground`` command, driven through a real argparse parser."""

from __future__ import annotations

import argparse
import io
import json

from stategraph.grounding.cli import register, run_ground


def _run(*argv: str) -> str:
    parser = argparse.ArgumentParser(prog="stategraph")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["ground", *argv])
    out = io.StringIO()
    assert args.func is run_ground
    assert run_ground(args, out) == 0
    return out.getvalue()


def test_text_output_lists_atoms_and_spans() -> None:
    out = _run("用户计划 2026-12 从上海搬到深圳")
    lines = out.splitlines()
    assert lines[0] == 'moves(user,shanghai,shenzhen,"2026-12")'
    assert any("origin" in line and "上海" in line for line in lines)


def test_json_output() -> None:
    data = json.loads(_run("The user lives in Shanghai.", "--json", "--lang", "en"))
    assert data["atoms"][0]["atom"] == "lives_in(user,shanghai)"
    assert data["atoms"][0]["spans"][0]["text"]
    assert data["reason"] is None


def test_year_option_resolves_months() -> None:
    assert '"2026-12"' in _run("用户12月从上海搬到深圳", "--year", "2026")


def test_empty_result_prints_reason() -> None:
    assert _run("Thanks for the help!").startswith("no atom:")
