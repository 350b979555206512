"""Delta linking writes what relinking wrote: every table hashes the same (issue 23).

``histories/dense.json`` and ``histories/sparse.json`` are recorded histories (adds,
supersessions and retractions of memories with atoms) drawn from the dense workload
(:mod:`stategraph.bench.perf.densegen`: moves between six cities and the memories resting on
them, where the linker's cap of alternatives binds) and the sparse one
(:mod:`stategraph.bench.perf.textgen`). ``histories/hashes.json`` holds the hash of every
table after replaying each, recorded with the linker that relinked every memory watching a new
atom whole (main at 7be7d5a, before delta linking; recorded again whenever
main changes what a revision logs, and for the dense history when the linker's cap came to keep
the derivations through live states first, and for both when a new store's cap came to be 16
and to be logged (the sparse history's tables did not change, only its settings and logged
configurations), and for both when rule links came to go through atom nodes (issue 40: no
cap, and the nodes' states and justifications in the tables), and when the term index came to
hold what a memory names outside its atoms and its atoms' predicates (issue 41), and for the
sparse history when keeping a pet came to ground to an atom and breeds to name a pet, each time
checked against replaying it with every memory linked from scratch,
``Memory(linker="scratch")``). Left out: the log's times and the hashes chained over them,
the linker's own bookkeeping (which to evaluate again:
:data:`~stategraph.testing.tablehash.BOOKKEEPING`), which delta linking keeps per group, and
recall's full-text index (:data:`~stategraph.testing.tablehash.RECALL_INDEX`), which is not
linking's to write.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stategraph.grounding.packs import list_packs
from stategraph.testing.tablehash import BOOKKEEPING, RECALL_INDEX, replay, table_hashes

HISTORIES = Path(__file__).parent / "histories"


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_every_table_hashes_as_relinking_wrote_it(kind: str, tmp_path: Path) -> None:
    steps = json.loads((HISTORIES / f"{kind}.json").read_text(encoding="utf-8"))
    expected = json.loads((HISTORIES / "hashes.json").read_text(encoding="utf-8"))[kind]
    path = tmp_path / "memory.db"
    replay(path, steps, list_packs())
    assert table_hashes(path, BOOKKEEPING | RECALL_INDEX) == expected


INDEX = frozenset({"atoms", "atom_keys", "input_dates"})
"""The atom index: what the incremental linker looks atoms up in (linking from scratch reads
the states instead, and writes none of it)."""


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_delta_linking_writes_what_linking_from_scratch_writes(kind: str, tmp_path: Path) -> None:
    """The same history, linked by delta and linked from scratch after every change, leaves
    the same tables: an independent check of the recorded hashes, which are this code's."""
    steps = json.loads((HISTORIES / f"{kind}.json").read_text(encoding="utf-8"))
    skip = BOOKKEEPING | RECALL_INDEX | INDEX
    hashes = []
    for linker in ("incremental", "scratch"):
        path = tmp_path / f"{linker}.db"
        replay(path, steps, list_packs(), linker)
        hashes.append(table_hashes(path, skip))
    assert hashes[0] == hashes[1]
