"""Shared pieces of the store tests: a small seeded store, another process holding a lock."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from stategraph import Memory

from . import lock_holder

HOLDER = Path(lock_holder.__file__)


def seed(path: Path) -> None:
    """A store of four states and four log entries (a fact, a belief and an action on it, an
    unrelated fact)."""
    with Memory.open(path) as mem:
        mem.fact("m1", "moves to Shenzhen")
        mem.belief("m2", "commute in Shenzhen", because=["m1"])
        mem.action("m3", "cancel broadband", because=["m1"], status="pending")
        mem.fact("m4", "likes Cantonese food")


@contextmanager
def holding_lock(path: Path, mode: str = "write") -> Iterator[subprocess.Popen[str]]:
    """Another process holds a lock on ``path`` for the duration of the block (see
    ``lock_holder.py``); it lets go when the block ends."""
    proc = subprocess.Popen(
        [sys.executable, str(HOLDER), str(path), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    try:
        line = proc.stdout.readline()
        assert line == "locked\n", line + proc.stderr.read() if proc.stderr else ""
        yield proc
    finally:
        out, err = proc.communicate("\n", timeout=60)
    assert proc.returncode == 0 and out == "released\n", err
