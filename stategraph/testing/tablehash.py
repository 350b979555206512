"""Hashes of a store's tables, and the replay of a recorded history, for regression tests.

A change to how linking computes its justifications (issue 23: delta linking) must leave what
it writes as it was. :func:`replay` writes a recorded history (adds, supersessions and
retractions of memories with atoms) into a new SQLite store, and :func:`table_hashes` hashes
every table of it, row by row in a fixed order, leaving out what is not a function of the
history: the log's wall-clock times and the hashes chained over them.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["BOOKKEEPING", "RECALL_INDEX", "UNHASHED", "replay", "table_hashes"]

UNHASHED = {"revisions": ("at", "prev_hash", "hash")}
"""Columns left out of a table's hash: the log's times, and the hashes chained over them."""

BOOKKEEPING = frozenset(
    {"link_watches", "link_groups", "group_watches", "link_atoms", "atom_watches"}
)
"""The incremental linker's own record of what to evaluate again (per memory until issue 23,
per group of memories until issue 40, per demanded atom since), with its ``meta`` setting
(``setting:link_*``): how linking finds its work, not what it writes, so left out of
:func:`table_hashes`."""


RECALL_INDEX = frozenset(
    {
        *("recall_fts" + s for s in ("", "_data", "_idx", "_content", "_docsize", "_config")),
        "recall_df",
        "recall_impact",
    }
)
"""Recall's full-text index (an FTS5 table and its shadow tables, :mod:`stategraph.text.fulltext`,
with its frequent words' lists, :mod:`stategraph.text.impacts`, and their ``meta`` row):
derived from the states' texts and atoms, not from linking; the recorded histories' hashes
predate it."""


_UNHASHED_META = ("setting:link_", "recall:")
"""``meta`` rows left out (besides the schema's version, which is the file format's): the
linker's settings and recall's lists' threshold."""


def table_hashes(path: Path, skip: Iterable[str] = BOOKKEEPING) -> dict[str, str]:
    """The SHA-256 of each table of a SQLite store (``skip``: tables left out; ``meta`` rows
    of the linker's settings too)."""
    conn = sqlite3.connect(path)
    try:
        names = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
            if r[0] not in set(skip)
        ]
        out = {}
        for name in names:
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({name})")]
            kept = [c for c in cols if c not in UNHASHED.get(name, ())]
            listed = ", ".join(kept)
            digest = hashlib.sha256()
            for row in conn.execute(f"SELECT {listed} FROM {name} ORDER BY {listed}"):
                if name == "meta" and (
                    row[0] == "schema" or str(row[0]).startswith(_UNHASHED_META)
                ):
                    continue
                digest.update(repr(row).encode("utf-8"))
            out[name] = digest.hexdigest()
        return out
    finally:
        conn.close()


def replay(
    path: Path,
    steps: Sequence[Mapping[str, Any]],
    rules: Sequence[str],
    linker: str = "incremental",
) -> None:
    """Write a recorded history into a new store at ``path``: each step is ``{"add": state}``,
    ``{"supersede": [old_id, state]}`` or ``{"retract": id}`` (states with their atoms; no
    grounder, no candidate proposal, so that only linking and revision write; ``linker`` as
    for :class:`~stategraph.memory.Memory`)."""
    from stategraph import Memory

    with Memory(path, rules=list(rules), candidates=None, linker=linker) as mem:
        for step in steps:
            if "add" in step:
                mem.add(step["add"])
            elif "supersede" in step:
                old, new = step["supersede"]
                mem.supersede(old, new)
            else:
                mem.retract(step["retract"])
