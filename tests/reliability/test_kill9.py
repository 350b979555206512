"""kill -9 at random moments: the store is always whole, its chain verifies, and it is fully
before or fully after the interrupted operation.

Each trial copies a real SQLite store, starts a process that revises, supersedes, bulk-loads
or imports into it (``store_worker.py``, or the real ``stategraph import`` command), and sends
SIGKILL after a random delay within the operation's measured duration (every other trial
within its last 40%, where the writing and the commit happen). The store is then
opened and checked: ``PRAGMA integrity_check``, ``Memory.verify_log()``, and a digest of every
table but the log equal to the digest before the operation or after it ran to completion (the
after-digest comes from an uninterrupted reference run of the same operation). A trial whose
process finished before the kill counts as ``completed`` (and must equal the after-digest).

The default run makes two trials per operation; ``-m slow`` runs 30 per operation (120).
Random delays seldom land inside the write transaction in two tries, so every run also kills
a worker stopped there on purpose (``store_worker.py --pause``: before the first write, before
the log entry, before ``COMMIT``), on a smaller store; the store must be exactly as before.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from stategraph import Memory

from . import store_worker

WORKER = Path(store_worker.__file__)
BASE_SIZE = 4_000
OPERATIONS = ("revise", "supersede", "bulk_load", "import")


@dataclass(frozen=True)
class Snapshot:
    """What a store holds, log timestamps aside: a digest of every other table, log length."""

    digest: str
    log: int


def snapshot(path: Path) -> Snapshot:
    """Check a store's integrity and its chain, and summarise it."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        h = hashlib.sha256()
        for t in tables:
            if t == "revisions":
                continue
            h.update(t.encode())
            for row in sorted(repr(r) for r in conn.execute(f'SELECT * FROM "{t}"')):
                h.update(row.encode())  # in one order whatever the table's columns
        (log,) = conn.execute("SELECT count(*) FROM revisions").fetchone()
    finally:
        conn.close()
    with Memory.open(path) as mem:
        assert mem.verify_log() == log
    return Snapshot(h.hexdigest(), int(log))


@dataclass(frozen=True)
class Reference:
    before: Snapshot
    after: Snapshot
    seconds: float
    """How long the operation itself takes (for ``import``, the whole command)."""


class Harness:
    """The base store, the import file, and one reference run per operation."""

    def __init__(self, root: Path, size: int = BASE_SIZE) -> None:
        self.root = root
        self.base = root / "base.db"
        with Memory.open(self.base) as mem:
            mem.bulk_load(store_worker.base_states(size), store_worker.base_justifications(size))
        self.source = root / "import.jsonl"
        store_worker.write_import(self.source, store_worker.LOAD_SIZE)
        self.before = snapshot(self.base)
        self.references: dict[str, Reference] = {}

    def command(self, op: str, store: Path) -> list[str]:
        if op == "import":
            return [sys.executable, "-m", "stategraph", "import", str(store), str(self.source)]
        return [sys.executable, str(WORKER), op, str(store)]

    def start(self, op: str, store: Path) -> tuple[subprocess.Popen[str], float]:
        """Start an operation; returns once it is under way (workers say ``ready``)."""
        shutil.copy(self.base, store)
        proc = subprocess.Popen(
            self.command(op, store), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        if op != "import":
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready", proc.stderr
        return proc, time.perf_counter()

    def reference(self, op: str) -> Reference:
        if op not in self.references:
            store = self.root / f"ref-{op}.db"
            proc, started = self.start(op, store)
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            seconds = time.perf_counter() - started
            if op != "import":
                seconds = float(out.split()[-1])
            after = snapshot(store)
            assert after != self.before
            self.references[op] = Reference(self.before, after, seconds)
        return self.references[op]

    def trial(self, op: str, seed: int) -> str:
        """Kill one run of ``op`` at a random moment; returns ``before``, ``after`` or
        ``completed``."""
        ref = self.reference(op)
        # even trials: anywhere in the operation; odd ones: its last 40%, where it writes
        low = 0.0 if seed % 2 == 0 else 0.6
        delay = random.Random(f"{op}-{seed}").uniform(low * ref.seconds, ref.seconds * 1.05)
        store = self.root / f"{op}-{seed}.db"
        proc, started = self.start(op, store)
        time.sleep(max(0.0, delay - (time.perf_counter() - started)))
        finished = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        state = snapshot(store)
        if finished:
            assert state == ref.after, f"{op} finished but the store is not the reference after"
            outcome = "completed"
        else:
            assert state in (ref.before, ref.after), f"{op} killed after {delay:.3f}s: torn"
            outcome = "before" if state == ref.before else "after"
        for leftover in store.parent.glob(f"{store.name}*"):
            leftover.unlink()
        return outcome

    def kill_before_commit(self, op: str, where: str) -> Snapshot:
        """Kill ``op`` -9 at a point inside its write transaction (``store_worker.py
        --pause``), before its commit; returns what the store holds then. A bulk load writes
        2,000 states here (the pause, not the size, decides where the kill lands)."""
        store = self.root / f"{op}-{where}.db"
        shutil.copy(self.base, store)
        proc = subprocess.Popen(
            [*self.command(op, store), "--pause", where, "--load", "2000"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready", proc.communicate(timeout=60)
        paused = proc.stdout.readline().strip()
        assert paused.startswith("paused "), (paused, proc.communicate(timeout=60))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        state = snapshot(store)
        for leftover in store.parent.glob(f"{store.name}*"):
            leftover.unlink()
        return state


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Harness:
    return Harness(tmp_path_factory.mktemp("kill9"))


@pytest.fixture(scope="module")
def small_harness(tmp_path_factory: pytest.TempPathFactory) -> Harness:
    """A base store of 500 beliefs on the hub: a kill at a chosen point needs no long
    operation to land in, and CI runs these trials (well under 10 s together)."""
    return Harness(tmp_path_factory.mktemp("kill9-small"), size=500)


def run_trials(harness: Harness, op: str, trials: int) -> Counter[str]:
    outcomes = Counter(harness.trial(op, seed) for seed in range(trials))
    print(f"kill -9 {op}: {trials} trials, {dict(sorted(outcomes.items()))}")
    return outcomes


@pytest.mark.parametrize("op", OPERATIONS)
def test_kill9_leaves_the_store_before_or_after(harness: Harness, op: str) -> None:
    outcomes = run_trials(harness, op, 2)
    assert sum(outcomes.values()) == 2


@pytest.mark.parametrize(
    ("op", "where"),
    [("revise", "first-write"), ("revise", "log"), ("revise", "commit"), ("bulk_load", "commit")],
)
def test_kill9_before_the_commit_leaves_the_store_before(
    small_harness: Harness, op: str, where: str
) -> None:
    """A kill that lands inside the write transaction (before its first write, before the
    log entry is appended, or just before its ``COMMIT`` with every row written) leaves the
    store exactly as it was, chain intact. The random trials above seldom land there in two
    tries; these always do."""
    assert small_harness.kill_before_commit(op, where) == small_harness.before


@pytest.mark.slow
@pytest.mark.parametrize("op", OPERATIONS)
def test_kill9_soak(harness: Harness, op: str) -> None:
    outcomes = run_trials(harness, op, 30)
    assert sum(outcomes.values()) == 30
    # the delays spread over the operation: some kills must land before its commit
    assert outcomes["before"] > 0, outcomes
