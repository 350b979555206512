"""What checking the tables against the log costs (issue 22, item 2), measured on this machine.

Builds a store of N states by bulk load (half facts, half beliefs each resting on a fact),
then times: the plain check (the hash chain), the deep check (every row of the four tables
hashed and summed, :mod:`stategraph.tables`), and one revision on the big store (whose digest
update reads only the rows it touches). With ``--replay R`` it also times the alternative, a
replay of a log of R single revisions (``stategraph audit verify``), to compare per entry.

    python scripts/measure_deep_verify.py 100000 [--replay 1000] [--postgres URL]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from stategraph import Memory


def _states(n: int):  # type: ignore[no-untyped-def]
    for i in range(n // 2):
        yield {"id": f"f{i}", "kind": "fact", "text": f"fact number {i} about topic {i % 97}"}
        yield {"id": f"b{i}", "kind": "belief", "text": f"belief resting on fact {i}"}


def _justifications(n: int):  # type: ignore[no-untyped-def]
    for i in range(n // 2):
        yield {"head": f"b{i}", "premises": [f"f{i}"]}


def _timed(what: str, fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn()
    print(f"{what}: {time.perf_counter() - start:.2f} s")
    return out


def measure(url: str, n: int) -> None:
    with Memory(url) as mem:
        _timed(f"bulk load of {n} states", lambda: mem.bulk_load(_states(n), _justifications(n)))
        _timed("verify (hash chain)", mem.verify_log)
        _timed("verify --deep (chain and tables)", lambda: mem.verify_log(deep=True))
        _timed("one revision (retract a fact, one dependent)", lambda: mem.retract("f7"))
        _timed("verify --deep again", lambda: mem.verify_log(deep=True))


def replay(folder: Path, revisions: int) -> None:
    from stategraph.audit import export, verify_export

    path = folder / "replay.db"
    with Memory(str(path)) as mem:
        start = time.perf_counter()
        for i in range(revisions // 2):
            mem.fact(f"f{i}", f"fact number {i}")
            mem.belief(f"b{i}", f"belief on {i}", because=[[f"f{i}"]])
        print(f"writing {revisions} revisions: {time.perf_counter() - start:.2f} s")
        export(mem.store, folder / "log.jsonl")
    result = _timed(
        f"audit replay of {revisions} revisions", lambda: verify_export(folder / "log.jsonl")
    )
    assert result.replayed == revisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("n", type=int)
    parser.add_argument("--replay", type=int, default=0)
    parser.add_argument("--postgres", help="a postgresql:// URL (a scratch tenant is used)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, {os.uname().sysname} {os.uname().machine}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.postgres:
            from stategraph.store.postgres import PostgresStore

            tenant = f"measure-{os.getpid()}"
            sep = "&" if "?" in args.postgres else "?"
            try:
                measure(f"{args.postgres}{sep}tenant={tenant}", args.n)
            finally:
                store = PostgresStore(args.postgres, tenant)
                store.purge()
                store.close()
        else:
            measure(str(folder / "m.db"), args.n)
            print(f"store file: {(folder / 'm.db').stat().st_size / 1e6:.0f} MB")
        if args.replay:
            replay(folder, args.replay)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.0f} MB")


if __name__ == "__main__":
    main()
