"""A command-line argument that is not valid UTF-8 is bad input (exit 2, one line), never an
internal error (issue 42, finding 9): ``stategraph recall S $'tea\\xff'`` exited 1. Python
reads such an argument with each bad byte as a lone surrogate (``\\udcff``), which the library
refuses where text enters; paths keep working (a file name may be any bytes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from stategraph.cli.main import EXIT_INPUT

BAD = b"tea\xff"


def _run(*argv: str | bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "stategraph", *argv],
        capture_output=True,
        cwd=cwd,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("recall", "m.db", BAD),
        ("recall", "m.db", "tea", "--kind", BAD),
        ("ground", BAD),
        ("why", "m.db", BAD),
        ("show", "m.db", "--as-of", BAD),
        ("add", "m.db", "--id", "x", "--text", BAD),
    ],
    ids=["recall query", "recall kind", "ground", "why", "as-of", "add text"],
)
def test_an_argument_that_is_not_utf8_exits_2(
    tmp_path: Path, argv: tuple[str | bytes, ...]
) -> None:
    assert _run("demo", "--store", "m.db", cwd=tmp_path).returncode == 0
    done = _run(*argv, cwd=tmp_path)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == EXIT_INPUT, err
    assert err.startswith("stategraph: error: invalid") and "internal error" not in err
    assert err.count("\n") == 1


def test_a_store_path_that_is_not_utf8_still_works(tmp_path: Path) -> None:
    path = os.fsencode(tmp_path) + b"/m\xff.db"
    assert _run("add", path, "--id", "a", "--text", "green tea", cwd=tmp_path).returncode == 0
    done = _run("recall", path, "tea", "--json", cwd=tmp_path)
    assert done.returncode == 0 and b'"id": "a"' in done.stdout
