"""Values that parse but are no valid data end in one ``stategraph: error:`` line (exit 2) and
write nothing (issue 22, items 8 and 9): a lone surrogate in any text, a YAML date that does
not exist, a ``--since`` past any sequence number, a PostgreSQL URL with a malformed IPv6
host or a port past 65535; and no error line shows a password, in any of the forms a URL can
carry one.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stategraph.cli.main import EXIT_INPUT, main
from stategraph.urls import MASK, redact, redact_logs

from .test_cli_errors import imported, one_error_line, run

SURROGATE = "\\udc00"


@pytest.mark.parametrize(
    "change",
    [
        '{"assert": [{"id": "a", "text": "x%s"}]}',
        '{"assert": [{"id": "a", "atoms": ["p(%s)"]}]}',
        '{"assert": [{"id": "a", "metadata": {"k": ["%s"]}}]}',
        '{"retract": ["a%s"]}',
        '{"supersede": {"id": "a", "with": {"id": "b", "text": "%s"}}}',
        '{"add_justifications": [{"head": "a", "premises": ["b"], "notes": {"b": "%s"}}]}',
    ],
)
def test_a_lone_surrogate_in_a_change_is_one_error_and_creates_no_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: str
) -> None:
    path, store = tmp_path / "change.json", tmp_path / "m.db"
    path.write_text(change % SURROGATE)
    code, out, err = run(capsys, "revise", str(store), "--change", str(path))
    line = one_error_line(err)
    assert (code, out) == (EXIT_INPUT, "")
    assert "surrogate" in line or "unicode string" in line, line
    assert not store.exists()


@pytest.mark.parametrize(
    "record",
    [
        '{"id": "b", "text": "x%s"}',
        '{"id": "b%s"}',
        '{"id": "b", "metadata": {"%s": 1}}',
        '{"head": "ok", "premises": [], "notes": {"n": "%s"}}',
    ],
)
def test_a_lone_surrogate_in_an_import_is_one_error_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, record: str
) -> None:
    source, store = tmp_path / "in.jsonl", tmp_path / "m.db"
    source.write_text('{"id": "ok"}\n' + record % SURROGATE + "\n")
    code, _, err = run(capsys, "import", str(store), str(source))
    line = one_error_line(err)
    assert code == EXIT_INPUT and "in.jsonl:2" in line, line
    assert not store.exists() or imported(capsys, store) == []


@pytest.mark.parametrize("date", ["2026-13-45", "2026-02-30", "2026-00-01"])
def test_a_date_that_does_not_exist_is_one_error_naming_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, date: str
) -> None:
    path, store = tmp_path / "change.yaml", tmp_path / "m.db"
    path.write_text(f"assert:\n  - id: a\n    created_at: {date}\n")
    code, out, err = run(capsys, "revise", str(store), "--change", str(path))
    line = one_error_line(err)
    assert (code, out) == (EXIT_INPUT, "")
    assert f"change.yaml:3: '{date}' is not a valid date" in line, line
    assert not store.exists()


def test_an_integer_past_pythons_digit_limit_is_one_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "change.yaml"
    # an id place keeps the digits as the id they spell: a value place builds the integer
    path.write_text("assert:\n  - {id: a, text: x, metadata: {n: " + "1" * 5000 + "}}\n")
    code, _, err = run(capsys, "revise", str(tmp_path / "m.db"), "--change", str(path))
    assert code == EXIT_INPUT and "change.yaml:2" in one_error_line(err)


@pytest.mark.parametrize("since", ["1" * 20, "9" * 5000, str(1 << 63)])
def test_history_since_past_any_sequence_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, since: str
) -> None:
    store = str(tmp_path / "m.db")
    assert main(["add", store, "--id", "a"]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "history", store, "--since", since)
    assert (code, out) == (EXIT_INPUT, "")
    assert "a sequence number is at most" in one_error_line(err)
    code, out, _ = run(capsys, "history", store, "--limit", "9" * 30, "--json")
    assert code == 0 and len(out.splitlines()) == 1


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://[::1/db",
        "postgresql://u:hunter22@[::1/db",
        "postgresql://127.0.0.1:99999/db?password=hunter22",
        "postgresql://u:hunter22@127.0.0.1:99999/db",
        "postgresql://127.0.0.1:-1/db",
    ],
)
@pytest.mark.parametrize("command", ["show", "add"])
def test_a_malformed_postgres_url_is_one_error_without_its_password(
    capsys: pytest.CaptureFixture[str], url: str, command: str
) -> None:
    args = [command, url] + (["--id", "a"] if command == "add" else [])
    code, out, err = run(capsys, *args)
    line = one_error_line(err)
    assert (code, out) == (EXIT_INPUT, "")
    assert "is not a valid URL" in line, line
    assert "hunter22" not in line


def _errors_of(*argv: str) -> str:
    """The real process's error output (as a user sees it: the store URL on its line)."""
    done = subprocess.run(
        [sys.executable, "-m", "stategraph", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "STATEGRAPH_TOKENS": ""},
    )
    assert done.returncode != 0
    return done.stderr


PASSWORDS = [
    "postgresql://127.0.0.1:1/db?password=hunter22",
    "postgresql://u:hunter22@127.0.0.1:1/db",
    "postgresql://u:hunter22@127.0.0.1:1/db?sslpassword=hunter22",
    "postgresql://u:hunter%2022@127.0.0.1:1/db",
    "postgresql://127.0.0.1:1/db?password=hunter22&bogus=1",
    "postgresql://127.0.0.1:1/db?password=hunter22&tenant=x",
]


def _no_password(err: str) -> None:
    assert "hunter" not in err, err
    assert "127.0.0.1" in err and MASK in err, err


@pytest.mark.parametrize("url", PASSWORDS)
def test_no_store_error_shows_a_password(url: str) -> None:
    """A store error of the CLI, on a server that is not there or a URL it refuses: the URL
    is shown, its password never."""
    _no_password(_errors_of("show", url))
    _no_password(_errors_of("revise", url, "--retract", "a"))


@pytest.mark.parametrize("url", [PASSWORDS[0], PASSWORDS[1], PASSWORDS[5]])
def test_no_start_up_error_shows_a_password(tmp_path: Path, url: str) -> None:
    tokens = tmp_path / "tokens.json"
    subprocess.run(
        [sys.executable, "-m", "stategraph", "serve", "--tokens", str(tokens), "--add-token", "a"],
        capture_output=True,
        check=True,
    )
    _no_password(_errors_of("serve", "--store", url, "--tokens", str(tokens), "--port", "1"))
    _no_password(_errors_of("mcp", "--store", url))


def test_redact_masks_every_credential_form() -> None:
    cases = {
        "postgresql://u:pw-1@h/db": "postgresql://u:***@h/db",
        "postgresql://u:p@ss@h:5/db": "postgresql://u:***@h:5/db",
        "postgresql://h/db?password=pw-1&x=1": "postgresql://h/db?password=***&x=1",
        "postgresql://h/db?sslpassword=pw-1": "postgresql://h/db?sslpassword=***",
        "host=h password='pw 1' dbname=d": "host=h password=*** dbname=d",
        "PGPASSWORD=pw-1 psql": "PGPASSWORD=*** psql",
        "cannot connect to postgresql://h/db?password=pw:1: refused": (
            "cannot connect to postgresql://h/db?password=***: refused"
        ),
        "postgresql://[::1/db?password=pw-1": "postgresql://[::1/db?password=***",
        "postgresql://h/db": "postgresql://h/db",
    }
    for text, shown in cases.items():
        assert redact(text) == shown, text
    url = "postgresql://u:s%20cret@h/db"
    assert redact('syntax error near "s cret"', url) == 'syntax error near "***"'
    assert json.dumps(redact(url)).count("cret") == 0


def test_every_log_record_is_redacted(caplog: pytest.LogCaptureFixture) -> None:
    """What ``serve`` and ``mcp`` install at start: a record's message and its traceback, from
    any logger, lose every credential of the store URL, however they quote it."""
    url = "postgresql://u:hunter22@h/db?sslpassword=hunter33"
    before = logging.getLogRecordFactory()
    redact_logs(url)
    try:
        log = logging.getLogger("some.library")
        log.error("cannot connect to %s", url)
        try:
            raise RuntimeError('syntax error near "hunter33"')
        except RuntimeError:
            log.exception("failed")
    finally:
        logging.setLogRecordFactory(before)
    assert "hunter" not in caplog.text, caplog.text
    assert "postgresql://u:***@h/db?sslpassword=***" in caplog.text
    assert 'syntax error near "***"' in caplog.text
