"""The command line over a real store file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stategraph.cli.main import build_parser, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_demo_json(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    code, out, _ = run(capsys, "demo", "--lang", lang, "--json")
    assert code == 0
    report = json.loads(out)
    verdicts = {e["id"]: e["verdict"] for e in report["entries"]}
    assert verdicts == {"m2": "invalidated", "m3": "invalidated"}
    assert {e["id"]: e["consequence"] for e in report["entries"]}["m3"] == "cancel"
    assert "m4" not in out


def test_demo_is_byte_identical(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "demo", "--json")[1]
    assert run(capsys, "demo", "--json")[1] == first


def test_store_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    assert run(capsys, "add", db, "--id", "f1", "--text", "it rains")[0] == 0
    assert run(capsys, "add", db, "--id", "f2", "--text", "no umbrella at home")[0] == 0
    code, _, _ = run(
        capsys, "add", db, "--id", "b1", "--kind", "belief", "--because", "f1,f2", "--because", "f1"
    )
    assert code == 0
    code, out, _ = run(capsys, "why", db, "b1")
    assert code == 0 and "f1" in out and "b1" in out
    change = tmp_path / "change.yaml"
    change.write_text("retract: [f2]\n")
    code, out, _ = run(capsys, "revise", db, "--change", str(change), "--json")
    assert code == 0 and json.loads(out)["entries"][0]["verdict"] == "kept"
    code, out, _ = run(capsys, "revise", db, "--retract", "f1")
    assert code == 0 and "invalidated" in out
    code, out, _ = run(capsys, "why-not", db, "b1")
    assert "premise f1 does not hold" in out
    code, out, _ = run(capsys, "show", db, "--json")
    assert {r["id"]: r["truth"] for r in json.loads(out)}["b1"] == "false"
    code, out, _ = run(capsys, "history", db)
    assert out.count("\n") == 5
    code, out, _ = run(capsys, "history", db, "--verify")
    assert "5 entries" in out


IMPORT = [
    {"head": "b", "premises": ["f"]},  # a justification before its states: read in a 2nd pass
    {"id": "f", "kind": "fact", "text": "it rains"},
    {"id": "b", "kind": "belief"},
    {"id": "a", "kind": "action", "status": "pending"},
    {"head": "a", "premises": ["b"], "unless": ["stop"]},
]


def test_import_streams_a_jsonl_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db, source = str(tmp_path / "m.db"), tmp_path / "import.jsonl"
    source.write_text("\n".join(json.dumps(o) for o in IMPORT) + "\n\n", encoding="utf-8")
    code, out, _ = run(capsys, "import", db, str(source), "--json")
    summary = json.loads(out)
    assert code == 0 and (summary["states"], summary["justifications"]) == (3, 2)
    assert summary["holding"] == 3
    code, out, _ = run(capsys, "revise", db, "--retract", "f", "--json")
    report = json.loads(out)
    assert [e["id"] for e in report["entries"]] == ["b", "a"]
    assert report["entries"][1]["consequence"] == "cancel"
    code, out, _ = run(capsys, "history", db, "--verify")
    assert "2 entries" in out


def test_the_import_line_counts_what_was_stored(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db, source = str(tmp_path / "m.db"), tmp_path / "import.jsonl"
    lines = [*IMPORT, IMPORT[0], {"head": "a", "unless": ["stop"], "premises": ["b"]}]
    source.write_text("\n".join(json.dumps(o) for o in lines) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "import", db, str(source))
    assert code == 0 and out.startswith("imported 3 states and 2 justifications:"), out


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("{not json", ":3: not JSON"),
        ('{"id": "x", "kind": "belief", "status": "maybe"}', ":3.status"),
        ('{"head": "b", "premises": 3}', ":3.premises"),
        ('{"head": "b", "premises": ["ghost"]}', "unknown state id 'ghost'"),
    ],
)
def test_import_errors_name_the_line_and_write_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: str, names: str
) -> None:
    db, source = str(tmp_path / "m.db"), tmp_path / "import.jsonl"
    source.write_text("\n".join([json.dumps(IMPORT[1]), json.dumps(IMPORT[2]), line]))
    code, _, err = run(capsys, "import", db, str(source))
    assert code == 2 and names in err, err
    assert not Path(db).exists()  # the store the import made held nothing: gone (issue 42)


def test_errors_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "add", str(tmp_path / "m.db"), "--id", "a", "--text", "x")[0] == 0
    code, _, err = run(capsys, "revise", str(tmp_path / "m.db"), "--retract", "ghost")
    assert code == 2 and "unknown state id 'ghost'" in err
    code, _, err = run(capsys, "why", str(tmp_path / "m.db"), "ghost")
    assert code == 2 and err.startswith("stategraph: error:")


def test_every_command_is_documented() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    reference = Path(__file__).parents[2] / "docs" / "reference" / "cli.md"
    readme = reference.read_text(encoding="utf-8")
    for name, sub_parser in sub.choices.items():  # type: ignore[union-attr]
        assert sub_parser.description or any(
            c.dest == name and c.help for c in sub._choices_actions
        ), f"command {name} has no help"
        assert f"stategraph {name}" in readme, f"docs/reference/cli.md lacks 'stategraph {name}'"


def test_python_dash_m() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "stategraph", "demo", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["entries"][0]["id"] == "m2"


def test_retract_and_supersede_print_the_report_as_revise_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "m.db")
    run(capsys, "add", db, "--id", "f1", "--text", "it rains")
    run(capsys, "add", db, "--id", "b1", "--kind", "belief", "--because", "f1")
    code, out, _ = run(capsys, "supersede", db, "f1", "--id", "f2", "--text", "it is sunny")
    assert code == 0 and "superseded by f2" in out and "b1" in out and "invalidated" in out
    code, out, _ = run(capsys, "retract", db, "f2", "--json")
    assert code == 0
    assert json.loads(out)["changed"] == [
        {"id": "f2", "action": "retracted", "by": None, "new": "false"}
    ]
    code, out, _ = run(capsys, "show", db, "--json")
    assert {r["id"]: r["truth"] for r in json.loads(out)} == {
        "f1": "false",
        "f2": "false",
        "b1": "false",
    }


def test_retract_and_supersede_never_create_a_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "none.db"
    assert run(capsys, "retract", str(missing), "f1")[0] == 3
    assert run(capsys, "supersede", str(missing), "f1", "--id", "f2", "--text", "x")[0] == 3
    assert not missing.exists()
    db = str(tmp_path / "m.db")
    run(capsys, "add", db, "--id", "f1")
    code, _, err = run(capsys, "retract", db, "ghost")
    assert code == 2 and "ghost" in err


def test_history_json_names_asserted_states_as_change_files_do(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "m.db")
    run(capsys, "add", db, "--id", "f1", "--text", "it rains")
    code, out, _ = run(capsys, "history", db, "--json")
    assert code == 0
    change = json.loads(out)[0]["report"]["change"]
    assert [s["id"] for s in change["assert"]] == ["f1"] and "assert_" not in change
