"""The store's guarantees as the command line exposes them: a busy timeout (exit 5, nothing
written, readers never wait), a log head to verify against (truncation caught, exit 4), and
history read a slice at a time."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.cli.main import EXIT_BUSY, EXIT_INPUT, EXIT_INTEGRITY, main

HOLD_THE_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
conn.execute("ROLLBACK")
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def store_with(path: Path, n: int) -> Path:
    with Memory.open(path) as mem:
        for i in range(n):
            mem.fact(f"f{i}", f"fact {i}")
    return path


def test_a_write_past_the_busy_timeout_exits_5_and_reads_go_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = store_with(tmp_path / "m.db", 2)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        started = time.perf_counter()
        args = ("revise", str(store), "--retract", "f0", "--busy-timeout", "0.3")
        code, out, err = run(capsys, *args)
        waited = time.perf_counter() - started
        assert code == EXIT_BUSY and out == "", err
        assert (
            err.startswith("stategraph: error: ") and "busy" in err and len(err.splitlines()) == 1
        )
        assert 0.3 <= waited < 5
        code, out, _ = run(capsys, "show", str(store), "--json")  # a reader does not wait
        assert code == 0 and {r["id"] for r in json.loads(out)} == {"f0", "f1"}
    finally:
        holder.communicate("", timeout=30)
    code, out, _ = run(capsys, "show", str(store), "--json")
    assert all(r["active"] for r in json.loads(out))  # the refused revision wrote nothing
    assert run(capsys, "revise", str(store), "--retract", "f0")[0] == 0


def test_the_head_catches_entries_removed_from_the_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = store_with(tmp_path / "m.db", 3)
    code, out, _ = run(capsys, "history", str(store), "--verify")
    assert code == 0 and out.startswith("log verified: 3 entries")
    head = out.split("head ")[1].strip()
    assert head.startswith("3:") and len(head) == 2 + 64
    conn = sqlite3.connect(store)
    conn.execute("DELETE FROM revisions WHERE seq = 3")
    conn.commit()
    conn.close()
    # the rows left still link: only the head kept elsewhere shows what is gone
    code, _, err = run(capsys, "history", str(store), "--verify", "--expect-head", head)
    assert code == EXIT_INTEGRITY and err.startswith("stategraph: error: "), err
    code, _, err = run(capsys, "history", str(store), "--verify", "--expect-head", "3:abc")
    assert code == EXIT_INPUT and "--expect-head" in err


def test_history_reads_a_slice(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = store_with(tmp_path / "m.db", 5)
    code, out, _ = run(capsys, "history", str(store), "--limit", "2")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == ["#4", "#5"]
    code, out, _ = run(capsys, "history", str(store), "--since", "3")
    assert [line.split()[0] for line in out.splitlines()] == ["#4", "#5"]
    code, out, _ = run(capsys, "history", str(store), "--since", "1", "--limit", "1", "--json")
    assert [e["seq"] for e in json.loads(out)] == [5]


def test_acknowledging_a_tamper_from_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = store_with(tmp_path / "m.db", 3)
    code, out, _ = run(capsys, "history", str(store), "--acknowledge-tamper")
    assert code == 0 and out == "nothing to acknowledge: the store does not refuse writes\n"
    conn = sqlite3.connect(store)
    conn.execute("UPDATE revisions SET config = '{}' WHERE seq = 2")
    conn.commit()
    conn.close()
    assert run(capsys, "history", str(store), "--verify")[0] == EXIT_INTEGRITY
    code, _, err = run(capsys, "add", str(store), "--id", "late")
    assert code == EXIT_INTEGRITY and "history STORE --acknowledge-tamper" in err
    code, out, _ = run(capsys, "history", str(store), "--acknowledge-tamper")
    assert code == 0 and out.startswith("acknowledged 1 break of the revision log (entry 2 ")
    assert "writes are accepted again" in out
    assert run(capsys, "add", str(store), "--id", "late")[0] == 0
    assert run(capsys, "history", str(store), "--verify")[0] == EXIT_INTEGRITY  # still evidence
    code, out, _ = run(capsys, "history", str(store), "--acknowledge-tamper", "--json")
    assert code == 0 and json.loads(out) == {"acknowledged": []}  # the same break: no refusal
    with pytest.raises(SystemExit):
        main(["history", str(store), "--verify", "--acknowledge-tamper"])
    assert "not allowed with argument" in capsys.readouterr().err
