"""A process that works on a real store, for the kill -9 and concurrency tests to kill or race.

Run as a script (``python store_worker.py OP STORE [ARGS]``); the tests import it only for the
workload builders, so that the store a test prepares and the work a worker does agree.

Operations:
    revise STORE / supersede STORE / bulk_load STORE [--pause WHERE] [--load N]: one
        operation on the base store, with ``ready`` printed once the store is open and
        ``done <seconds>`` after it returns. With ``--pause first-write``, ``log`` or
        ``commit``, the process prints ``paused <statement>`` just before its write
        transaction runs its first write, appends the log entry, or commits, and waits there
        (for a line on stdin, or to be killed): the kill -9 tests kill it at that very point,
        before the commit, without timing anything. ``--load``: the states a bulk load
        writes (default :data:`LOAD_SIZE`).
    writer STORE PREFIX N: N small revisions (add a fact, a belief on it, retract every third
        fact), then ``done``.
    reader STORE STOPFILE: read the whole store and verify its log until STOPFILE exists, then
        print ``reads <n>``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from stategraph import Memory
from stategraph.store import SQLiteStore

HUB = "hub"
FACTS = 50


def base_states(n: int) -> Iterator[dict[str, Any]]:
    """A store where ``hub`` carries ``n`` beliefs (a third keep another support), a plan on
    each, and a pending action on every tenth: retracting ``hub`` moves about ``2n`` states."""
    yield {"id": HUB, "kind": "fact", "text": "the hub fact"}
    for k in range(FACTS):
        yield {"id": f"f{k}", "kind": "fact", "text": f"fact {k}"}
    for i in range(n):
        yield {"id": f"b{i}", "kind": "belief", "text": f"belief {i}"}
        yield {"id": f"c{i}", "kind": "plan", "text": f"plan {i}"}
        if i % 10 == 0:
            yield {"id": f"a{i}", "kind": "action", "text": f"action {i}", "status": "pending"}


def base_justifications(n: int) -> Iterator[dict[str, Any]]:
    """The justifications of :func:`base_states`."""
    for i in range(n):
        yield {"head": f"b{i}", "premises": [HUB, f"f{i % FACTS}"]}
        if i % 3 == 0:
            yield {"head": f"b{i}", "premises": [f"f{(i + 7) % FACTS}"]}
        yield {"head": f"c{i}", "premises": [f"b{i}"]}
        if i % 10 == 0:
            yield {"head": f"a{i}", "premises": [f"c{i}"], "unless": ["stop"]}


def load_states(n: int) -> Iterator[dict[str, Any]]:
    """New states for a bulk load or an import into the base store."""
    for i in range(n):
        yield {"id": f"n{i}", "kind": "belief", "text": f"new belief {i}"}


def load_justifications(n: int) -> Iterator[dict[str, Any]]:
    """Their justifications: each rests on the hub and one fact of the base store."""
    for i in range(n):
        yield {"head": f"n{i}", "premises": [HUB, f"f{i % FACTS}"]}


def write_import(path: Path, n: int) -> None:
    """The JSONL file ``stategraph import`` reads: :func:`load_states` and their support."""
    with path.open("w", encoding="utf-8") as f:
        for obj in (*load_states(n), *load_justifications(n)):
            f.write(json.dumps(obj) + "\n")


LOAD_SIZE = 15_000


PAUSES = ("first-write", "log", "commit")
"""Where ``--pause`` stops an operation's write transaction: before its first write, before
the log entry is appended (every other row written), or before its ``COMMIT`` (after the log
entry)."""


def _pause_before(mem: Memory, where: str) -> None:
    """Stop at ``where`` (:data:`PAUSES`) in the first write transaction, through the
    connection's trace callback (called as a statement starts, before SQLite runs it)."""
    seen: set[str] = set()

    def trace(statement: str) -> None:
        word = statement.split(None, 1)[0].upper() if statement.strip() else ""
        if word == "BEGIN":
            seen.add("begun")
        if "begun" not in seen or "paused" in seen:
            return
        log = statement.startswith("INSERT INTO revisions ")
        if log:
            seen.add("logged")
        if (
            (where == "first-write" and word in ("INSERT", "UPDATE", "DELETE", "REPLACE"))
            or (where == "log" and log)
            or (where == "commit" and word == "COMMIT" and "logged" in seen)
        ):
            seen.add("paused")
            print(f"paused {statement.split(None, 3)[:3]}", flush=True)
            sys.stdin.readline()

    store = mem.store
    assert isinstance(store, SQLiteStore)
    store.conn.set_trace_callback(trace)


def _one_operation(op: str, store: str, pause: str | None = None, load: int = LOAD_SIZE) -> None:
    with Memory.open(store) as mem:
        if pause is not None:
            _pause_before(mem, pause)
        print("ready", flush=True)
        started = time.perf_counter()
        if op == "revise":
            mem.retract(HUB)
        elif op == "supersede":
            mem.supersede(HUB, {"id": "hub2", "text": "the hub, restated"})
        elif op == "bulk_load":
            mem.bulk_load(load_states(load), load_justifications(load))
        else:
            raise SystemExit(f"unknown operation {op!r}")
        print(f"done {time.perf_counter() - started:.3f}", flush=True)


def _writer(store: str, prefix: str, n: int) -> None:
    with Memory.open(store) as mem:
        for i in range(n):
            mem.fact(f"{prefix}f{i}", f"fact {i} of {prefix}")
            mem.belief(f"{prefix}b{i}", f"belief {i} of {prefix}", because=[f"{prefix}f{i}"])
            if i % 3 == 0:
                mem.retract(f"{prefix}f{i}")
    print("done", flush=True)


def _reader(store: str, stop: str) -> None:
    reads = 0
    while not Path(stop).exists():
        with Memory.open(store) as mem:
            ids = {s.id for s in mem.states()}
            mem.verify_log()
            for sid in sorted(ids)[:20]:
                mem.truth(sid)
        reads += 1
    print(f"reads {reads}", flush=True)


def main(argv: list[str]) -> None:
    """Dispatch one operation (see the module docstring)."""
    op, store, *rest = argv
    if op == "writer":
        _writer(store, rest[0], int(rest[1]))
    elif op == "reader":
        _reader(store, rest[0])
    else:
        options = dict(zip(rest[::2], rest[1::2], strict=True))
        load = int(options.get("--load", LOAD_SIZE))
        _one_operation(op, store, options.get("--pause"), load)


if __name__ == "__main__":
    main(sys.argv[1:])
