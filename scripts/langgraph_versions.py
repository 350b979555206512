"""What a LangGraph ``get`` and ``put`` cost as one key is rewritten (issue 42, finding 5).

Writes one key ``V`` times through :class:`~stategraph.integrations.langgraph.StategraphStore`
(each ``put`` of a new value supersedes the key's latest version, so the store holds ``V``
versions of it), then times ``get`` and ``put`` of that key for each ``V`` asked, side by
side in one run on one backend: the sizes in turn, so that the machine's load falls on each
alike. The figure that matters is the ratio: a lookup of the latest
version that probed the versions one by one cost in proportion to ``V``.

    python scripts/langgraph_versions.py [500 3000] [--postgres URL] [--repeat 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from stategraph import Memory
from stategraph.integrations.langgraph import StategraphStore

NAMESPACE = ("memories", "u1")


def build(url: str, versions: int) -> StategraphStore:
    """A store whose key ``home`` has ``versions`` versions."""
    store = StategraphStore(Memory(url))
    for v in range(versions):
        store.put(NAMESPACE, "home", {"text": f"The user lives at address {v}"})
    return store


def timed(store: StategraphStore, versions: int, r: int) -> tuple[float, float]:
    """Seconds of one ``get`` and one ``put`` of the key."""
    start = time.perf_counter()
    item = store.get(NAMESPACE, "home")
    got = time.perf_counter() - start
    assert item is not None
    start = time.perf_counter()
    store.put(NAMESPACE, "home", {"text": f"The user lives at address {versions + r}"})
    return got, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("versions", type=int, nargs="*", default=[500, 3000])
    parser.add_argument("--postgres", help="a postgresql:// URL (a scratch tenant each)")
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, {os.uname().sysname} {os.uname().machine}")
    print(f"{'versions':>9} {'get ms':>8} {'put ms':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        stores = {}
        for n in args.versions:
            if args.postgres:
                sep = "&" if "?" in args.postgres else "?"
                url = f"{args.postgres}{sep}tenant=lg-versions-{os.getpid()}-{n}"
            else:
                url = str(Path(tmp) / f"v{n}.db")
            stores[n] = build(url, n)
        times: dict[int, list[tuple[float, float]]] = {n: [] for n in stores}
        for r in range(args.repeat):  # the sizes in turn, so that load on the machine is shared
            for n, store in stores.items():
                times[n].append(timed(store, n, r))
        for n, store in stores.items():
            get = statistics.median(g for g, _ in times[n])
            put = statistics.median(p for _, p in times[n])
            print(f"{n:>9} {get * 1000:>8.2f} {put * 1000:>8.2f}")
            store.close()


if __name__ == "__main__":
    main()
