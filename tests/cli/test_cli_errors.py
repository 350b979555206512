"""One clean error per failure: a single ``stategraph: error:`` line, an exit code by class, no
traceback unless ``--debug``, and no store created or written by a command that failed.

Most cases call :func:`stategraph.cli.main` in-process on real files (a traceback would escape
``main`` there); the exit codes of the real process are checked in ``test_signals.py`` and at
the end of this file.
"""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.cli.main import (
    EXIT_BROKEN_PIPE,
    EXIT_BUSY,
    EXIT_CODES,
    EXIT_INPUT,
    EXIT_INTEGRITY,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_STORE,
    main,
)
from stategraph.errors import StoreBusyError

READ_ONLY = ("show", "why", "why-not", "history")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("stategraph: error: "), err
    assert "Traceback" not in err
    return lines[0]


def billion_laughs(tail: str = "") -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    return "\n".join(lines) + "\n" + tail


HOSTILE_CHANGES: dict[str, tuple[str | bytes, str]] = {
    "alias-bomb": (billion_laughs(), ":2: YAML aliases"),
    "alias-bomb-in-a-field": (billion_laughs("retract: *a9\n"), "max_aliases=0"),
    "nested-2000": ("retract: " + "[" * 2000 + "]" * 2000 + "\n", ":1: nested deeper than 64"),
    "duplicate-key": ("retract: [a]\nretract: [b]\n", ":2: duplicate key 'retract'"),
    "bad-utf8": (b"retract: [a]\nassert: [{id: \xff}]\n", ":2: not UTF-8"),
    "not-a-mapping": ("[a, b]\n", "a change is one mapping"),
    "python-tag": ("retract: !!python/object/apply:os.system [true]\n", "python/object"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_CHANGES))
def test_a_hostile_change_file_is_one_error_and_touches_no_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    content, words = HOSTILE_CHANGES[name]
    change = tmp_path / "change.yaml"
    if isinstance(content, bytes):
        change.write_bytes(content)
    else:
        change.write_text(content, encoding="utf-8")
    store = tmp_path / "m.db"
    started = time.perf_counter()
    code, out, err = run(capsys, "revise", str(store), "--change", str(change))
    # generous: this includes the CLI's start-up on a shared machine; unguarded, the alias
    # bomb ran for minutes into gigabytes (the loader alone refuses it in under a millisecond,
    # tests/reliability/test_loaders.py)
    assert time.perf_counter() - started < 10
    line = one_error_line(err)
    assert code == EXIT_INPUT and out == ""
    assert str(change) in line and words in line, line
    assert not store.exists()


@pytest.mark.parametrize(
    ("target", "words"),
    [("missing.yaml", "no such file"), (".", "is a folder")],
)
def test_a_change_file_that_is_not_there(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str, words: str
) -> None:
    path = tmp_path / target
    code, _, err = run(capsys, "revise", str(tmp_path / "m.db"), "--change", str(path))
    assert code == EXIT_INPUT and words in one_error_line(err)
    assert not (tmp_path / "m.db").exists()


def test_a_change_nested_in_json_is_refused_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    change = tmp_path / "change.json"
    change.write_text('{"retract": ' + "[" * 2000 + "]" * 2000 + "}", encoding="utf-8")
    code, _, err = run(capsys, "revise", str(tmp_path / "m.db"), "--change", str(change))
    assert code == EXIT_INPUT and "max_depth=64" in one_error_line(err)


def imported(capsys: pytest.CaptureFixture[str], store: Path) -> list[str]:
    assert main(["show", str(store), "--json"]) == 0
    return [r["id"] for r in json.loads(capsys.readouterr().out)]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"id": "x", "metadata": ' + "[" * 5000 + "]" * 5000 + "}", ":2: nested deeper than 64"),
        (b'{"id": "\xc3"}', ":2: not UTF-8"),
        ('{"id": "x", "kind": "fact", "id": "y"}', ":2: duplicate key 'id'"),
        ('{"id": "x", "text": NaN}', ":2: not JSON"),
        ("[1]", ":2: expected a JSON object"),
    ],
)
def test_a_hostile_import_line_is_one_error_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | bytes, words: str
) -> None:
    source, store = tmp_path / "in.jsonl", tmp_path / "m.db"
    first = json.dumps({"id": "ok", "kind": "fact"}).encode() + b"\n"
    source.write_bytes(first + (content if isinstance(content, bytes) else content.encode()))
    code, _, err = run(capsys, "import", str(store), str(source))
    assert code == EXIT_INPUT and words in one_error_line(err), err
    assert not store.exists()  # the store it made is gone: it held nothing (issue 42)


@pytest.mark.parametrize("target", ["missing.jsonl", "."])
def test_an_import_file_that_is_not_there_creates_no_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    store = tmp_path / "m.db"
    code, _, err = run(capsys, "import", str(store), str(tmp_path / target))
    assert code == EXIT_INPUT and str(tmp_path / target) in one_error_line(err)
    assert not store.exists()


@pytest.mark.parametrize("command", READ_ONLY)
def test_a_read_only_command_on_a_missing_store_creates_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    store = tmp_path / "typo.db"
    args = [command, str(store)] + (["x"] if command in ("why", "why-not") else [])
    code, out, err = run(capsys, *args)
    assert code == EXIT_STORE and out == ""
    assert "no such store" in one_error_line(err)
    assert list(tmp_path.iterdir()) == []


def test_a_folder_or_a_foreign_file_as_the_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "show", str(tmp_path))
    assert code == EXIT_STORE and "is a folder" in one_error_line(err)
    foreign = tmp_path / "other.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (x TEXT)")
    conn.commit()
    conn.close()
    code, _, err = run(capsys, "show", str(foreign))
    assert code == EXIT_STORE and "not a stategraph store" in one_error_line(err)


def test_a_tampered_log_exits_4(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    with Memory.open(store) as mem:
        mem.fact("f")
        mem.belief("b", because=["f"])
    conn = sqlite3.connect(store)
    conn.execute("UPDATE revisions SET report = replace(report, '\"b\"', '\"c\"') WHERE seq = 2")
    conn.commit()
    conn.close()
    code, _, err = run(capsys, "history", str(store), "--verify")
    assert code == EXIT_INTEGRITY and "entry 2" in one_error_line(err)


def test_status_is_for_actions_only(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    code, _, err = run(capsys, "add", str(store), "--id", "f", "--status", "pending")
    assert code == EXIT_INPUT and "only actions carry a status" in one_error_line(err)
    assert not store.exists()
    args = ("add", str(store), "--id", "a", "--kind", "action", "--status", "pending")
    assert run(capsys, *args)[0] == 0


def test_a_revise_with_nothing_to_do_logs_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store, empty = tmp_path / "m.db", tmp_path / "empty.yaml"
    empty.write_text("# nothing yet\n", encoding="utf-8")
    assert run(capsys, "add", str(store), "--id", "f")[0] == 0
    for args in ([], ["--change", str(empty)]):
        code, _, err = run(capsys, "revise", str(store), *args)
        assert code == EXIT_INPUT and "nothing to change" in one_error_line(err)
    with Memory.open(store) as mem:
        assert mem.verify_log() == 1


def test_a_change_file_that_changes_nothing_is_refused_before_the_store_is_made(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store, empty = tmp_path / "m.db", tmp_path / "empty.yaml"
    empty.write_text("retract: []\nassert: []\n", encoding="utf-8")
    code, _, err = run(capsys, "revise", str(store), "--change", str(empty))
    assert code == EXIT_INPUT and "nothing to change: give --retract" in one_error_line(err)
    assert not store.exists()


def test_retract_merges_with_a_change_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store, change = tmp_path / "m.db", tmp_path / "c.yaml"
    for sid in ("a", "b"):
        assert run(capsys, "add", str(store), "--id", sid)[0] == 0
    change.write_text("retract: a\n", encoding="utf-8")
    args = ("--change", str(change), "--retract", "b", "--json")
    code, out, _ = run(capsys, "revise", str(store), *args)
    assert code == 0
    assert [c["id"] for c in json.loads(out)["changed"]] == ["a", "b"]


def test_the_report_says_blocked_by_for_an_asserted_unless(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 14: a state blocked by an asserted ``unless`` printed "lost [] (m6 gone)"."""
    store = tmp_path / "m.db"
    assert run(capsys, "add", str(store), "--id", "f")[0] == 0
    assert run(capsys, "add", str(store), "--id", "q", "--kind", "belief", "--because", "f")[0] == 0
    assert run(capsys, "add", str(store), "--id", "d", "--kind", "belief", "--unless", "m6")[0] == 0
    args = ("--kind", "plan", "--because", "f", "--unless", "m6")
    assert run(capsys, "add", str(store), "--id", "p", *args)[0] == 0
    code, out, _ = run(capsys, "add", str(store), "--id", "m6", "--text", "the exception")
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert lines["d"].endswith("blocked by m6"), out
    assert lines["p"].endswith("lost [f] (blocked by m6)"), out
    assert "gone" not in out and "[]" not in out
    code, out, _ = run(capsys, "revise", str(store), "--retract", "f")
    assert code == 0 and "lost [f] (f gone)" in out


def test_an_unexpected_error_is_one_line_and_debug_shows_the_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("the engine broke")

    monkeypatch.setattr("stategraph.cli.demo.run", broken)
    code, _, err = run(capsys, "demo")
    line = one_error_line(err)
    assert code == EXIT_INTERNAL and "internal error: RuntimeError: the engine broke" in line
    for argv in (["--debug", "demo"], ["demo", "--debug"]):
        code, _, err = run(capsys, *argv)
        assert code == EXIT_INTERNAL
        assert "Traceback" in err and err.rstrip().endswith("report the traceback)")


@pytest.mark.parametrize(
    "error",
    [StoreBusyError("m.db", 30), sqlite3.OperationalError("database is locked")],
    ids=["StoreBusyError", "raw-sqlite"],
)
def test_a_busy_store_exits_5(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    def locked(*_: object, **__: object) -> None:
        raise error

    monkeypatch.setattr("stategraph.cli.demo.run", locked)
    code, _, err = run(capsys, "demo")
    assert code == EXIT_BUSY and "the store is busy" in one_error_line(err)


def test_help_documents_every_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    codes = {c for _, c in EXIT_CODES}
    codes |= {EXIT_INPUT, EXIT_STORE, EXIT_BUSY, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE}
    for code in sorted(codes):
        assert f"\n  {code} " in text, code


def test_the_real_process_exits_by_class(tmp_path: Path) -> None:
    """End to end: exit codes of the installed entry point, stderr one line, nothing else."""
    cases = [
        (["show", str(tmp_path / "typo.db")], EXIT_STORE),
        (["revise", str(tmp_path / "m.db"), "--change", str(tmp_path / "nope.yaml")], EXIT_INPUT),
    ]
    for argv, want in cases:
        proc = subprocess.run(
            [sys.executable, "-m", "stategraph", *argv], capture_output=True, text=True
        )
        assert proc.returncode == want, proc.stderr
        one_error_line(proc.stderr)
    assert list(tmp_path.iterdir()) == []


def test_a_change_from_stdin_is_read_under_the_same_limits(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    store = tmp_path / "m.db"
    assert run(capsys, "add", str(store), "--id", "f")[0] == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(billion_laughs().encode())))
    code, _, err = run(capsys, "revise", str(store), "--change", "-")
    assert code == EXIT_INPUT and one_error_line(err).startswith("stategraph: error: <stdin>:2:")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"retract: [f]\n")))
    code, out, _ = run(capsys, "revise", str(store), "--change", "-", "--json")
    assert code == 0 and json.loads(out)["changed"][0]["id"] == "f"
