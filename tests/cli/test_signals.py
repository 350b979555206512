"""Broken pipes and Ctrl-C, on the real process: quiet exits, one line, exit codes 141 and 130,
and a store that is whole afterwards."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.cli.main import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, main

STATEGRAPH = [sys.executable, "-m", "stategraph"]


def _ctrl_c_reaches_it() -> None:
    """In the child, before Python starts: Ctrl-C as a terminal delivers it. A shell that runs
    the suite in the background ignores SIGINT, the children inherit that, and Python then
    installs no handler: the interruption these tests send would never arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(autouse=True)
def _interruptible() -> Iterator[None]:
    """This process too answers SIGINT with KeyboardInterrupt, however the suite was started."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if before is not None:  # None: a handler not set from Python, left as it was
        signal.signal(signal.SIGINT, before)


def test_a_closed_pipe_exits_quietly() -> None:
    proc = subprocess.Popen(
        [*STATEGRAPH, "demo", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    proc.stdout.close()  # the reader has gone before the first byte is written
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (EXIT_BROKEN_PIPE, b"")


def test_piped_into_head() -> None:
    """The issue's own reproduction: ``stategraph demo --json | head -1``."""
    command = " ".join(STATEGRAPH) + " demo --json | head -1"
    proc = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "{\n", "")


def wait_until_reading_stdin(pid: int, timeout: float = 30) -> None:
    """Block until the process sleeps in a read of its stdin pipe (Linux /proc)."""
    wchan = Path(f"/proc/{pid}/wchan")
    if not wchan.exists():
        pytest.skip("needs /proc/<pid>/wchan")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "pipe_read" in wchan.read_text():
            return
        time.sleep(0.02)
    raise AssertionError("the command never waited on stdin")


def test_ctrl_c_while_reading_a_change_gives_one_line_and_130(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    with Memory.open(store) as mem:
        mem.fact("f")
    proc = subprocess.Popen(
        [*STATEGRAPH, "revise", str(store), "--change", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_reaches_it,
    )
    wait_until_reading_stdin(proc.pid)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out, err) == (EXIT_INTERRUPTED, "", "stategraph: interrupted\n")
    with Memory.open(store) as mem:
        assert mem.verify_log() == 1 and mem.is_active("f")


def test_ctrl_c_during_an_import_rolls_it_back(tmp_path: Path) -> None:
    """SIGINT at a random moment of a 20,000-line import: exit 130 with one line (or 0 if it
    finished first), and the store holds all of the import or none of it."""
    n = 10_000
    source, store = tmp_path / "in.jsonl", tmp_path / "m.db"
    with source.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"s{i}", "kind": "belief"}) + "\n")
            f.write(json.dumps({"head": f"s{i}", "premises": [f"s{i - 1}"] if i else []}) + "\n")
    proc = subprocess.Popen(
        [*STATEGRAPH, "import", str(store), str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_reaches_it,
    )
    deadline = time.monotonic() + 30
    while not store.exists() and time.monotonic() < deadline:  # the store opens, the load begins
        time.sleep(0.005)
    time.sleep(random.Random(14).uniform(0, 0.3))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        assert out.startswith(f"imported {n} states")
    else:
        assert (proc.returncode, err) == (EXIT_INTERRUPTED, "stategraph: interrupted\n")
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()
    with Memory.open(store) as mem:
        count = len(mem.states())
        assert count in (0, n)
        assert mem.verify_log() == (1 if count else 0)


def test_ctrl_c_wrapped_by_a_library_is_still_an_interruption(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen in a trial of the import test above: SIGINT landed while pydantic serialised a
    report, and pydantic turned the KeyboardInterrupt into its own serialization error, which
    came out as exit 1 "internal error"."""

    def serialise_and_get_interrupted(*_: object, **__: object) -> None:
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt as exc:
            raise ValueError("Error serializing to JSON: KeyboardInterrupt") from exc

    monkeypatch.setattr("stategraph.cli.demo.run", serialise_and_get_interrupted)
    assert main(["demo"]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "stategraph: interrupted\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handler restored
