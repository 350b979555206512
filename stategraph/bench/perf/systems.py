"""The pure-Python alternatives: whole-graph fixpoint, JTMS support pointers (in memory, and
writing each answer to SQLite), networkx.

Every system follows the same protocol: build from the workload (timed as ``build_s``), then
retract facts one after another. :meth:`System.retract` is the timed operation and returns the
changed set (derived states whose truth changed); :meth:`System.skip` applies a retraction
without answering, used when a slow system runs out of time budget, and :meth:`System.prepare`
(untimed) lets a whole-model system recompute its baseline after skipped steps.
"""

from __future__ import annotations

import importlib
import json
import sqlite3
import tempfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

from stategraph.bench.perf.graphs import Index, least_fixpoint
from stategraph.bench.perf.workload import FACT, Workload

__all__ = ["JTMS", "Descendants", "DurableJTMS", "PythonLFP", "System", "WholeModel"]


class System(ABC):
    """One way of answering "what changes if this fact is retracted?"."""

    name = ""
    exact = True
    """False for systems that over-approximate (their answer is not checked)."""

    @abstractmethod
    def retract(self, fact: int) -> set[int]:
        """Retract a fact; return the derived states whose truth changed."""

    @abstractmethod
    def skip(self, fact: int) -> None:
        """Retract a fact without computing the answer (not measured)."""

    def prepare(self) -> None:  # noqa: B027 - optional hook, most systems need none
        """Untimed work before the next measured retraction (default: none)."""


class WholeModel(System):
    """A system that recomputes the whole model per revision and diffs it with the last one.

    The diff is part of the measured cost: a whole-model system has no other way of knowing
    what changed.
    """

    def __init__(self, wl: Workload) -> None:
        self.wl = wl
        self.active = bytearray(1 if k == FACT else 0 for k in wl.kind)
        self.model = self.solve()
        self.stale = False

    @abstractmethod
    def solve(self) -> set[int]:
        """Every state that holds, given ``self.active``."""

    def deactivate(self, fact: int) -> None:
        """Make ``fact`` stop holding in the next solve."""
        self.active[fact] = 0

    def skip(self, fact: int) -> None:
        self.deactivate(fact)
        self.stale = True

    def prepare(self) -> None:
        if self.stale:
            self.model = self.solve()
            self.stale = False

    def retract(self, fact: int) -> set[int]:
        self.deactivate(fact)
        new = self.solve()
        changed = new ^ self.model
        self.model = new
        changed.discard(fact)
        return changed


class PythonLFP(WholeModel):
    """Whole-graph least fixpoint in Python per revision (linear in the store)."""

    name = "python-lfp"

    def __init__(self, wl: Workload) -> None:
        self.ix = Index(wl)
        super().__init__(wl)

    def solve(self) -> set[int]:
        true, _ = least_fixpoint(self.ix, self.active)
        return {i for i, t in enumerate(true) if t}


class JTMS(System):
    """A classic justification-based TMS with one support pointer per derived state.

    On retraction, every state whose support pointer (transitively) rests on the fact is
    unmarked; then unmarked states, and heads released by the fact's ``unless``, seek another
    valid justification, propagating forward. Pointers are assigned in derivation order, so they
    stay well-founded and support cycles cannot keep each other alive.
    """

    name = "jtms"

    def __init__(self, wl: Workload) -> None:
        self.ix = Index(wl)
        self.active = bytearray(1 if k == FACT else 0 for k in wl.kind)
        self.true, self.support = least_fixpoint(self.ix, self.active)

    def _valid(self, k: int) -> bool:
        true, active = self.true, self.active
        return all(true[p] for p in self.ix.premises[k]) and not any(
            active[u] for u in self.ix.unless[k]
        )

    def skip(self, fact: int) -> None:
        self.retract(fact)

    def retract(self, fact: int) -> set[int]:
        ix, true, support = self.ix, self.true, self.support
        self.active[fact] = 0
        true[fact] = 0
        unmarked: list[int] = []
        stack = [fact]
        while stack:
            x = stack.pop()
            for k in ix.by_premise[x]:
                h = ix.head[k]
                if true[h] and support[h] == k:
                    true[h] = 0
                    support[h] = -1
                    unmarked.append(h)
                    stack.append(h)
        candidates = unmarked + [ix.head[k] for k in ix.by_unless[fact]]
        gained: list[int] = []
        while candidates:
            h = candidates.pop()
            if true[h]:
                continue
            for k in ix.by_head[h]:
                if self._valid(k):
                    true[h] = 1
                    support[h] = k
                    gained.append(h)
                    candidates.extend(ix.head[k2] for k2 in ix.by_premise[h])
                    break
        lost = set(unmarked)
        return (lost - set(gained)) | (set(gained) - lost)


class DurableJTMS(JTMS):
    """The JTMS above, persisting each answer as a memory store must: in one SQLite
    transaction (WAL, ``synchronous=NORMAL``, as the engine's store), the changed states' new
    truth values and a log row naming them.

    Not an alternative to choose: a floor. It shows what durability alone adds to in-memory
    marking, next to stategraph, which also solves the cone in clingo and logs a full report.
    """

    name = "jtms-durable"

    def __init__(self, wl: Workload) -> None:
        super().__init__(wl)
        self._dir = tempfile.TemporaryDirectory(prefix="stategraph-jtms-")
        self.conn = sqlite3.connect(Path(self._dir.name) / "jtms.db", isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("CREATE TABLE truth (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)")
        self.conn.execute("CREATE TABLE log (seq INTEGER PRIMARY KEY, changed TEXT NOT NULL)")
        with self.conn:
            self.conn.executemany("INSERT INTO truth VALUES (?, ?)", enumerate(self.true))

    def retract(self, fact: int) -> set[int]:
        changed = super().retract(fact)
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany(
            "UPDATE truth SET value=? WHERE id=?",
            [(self.true[i], i) for i in sorted(changed | {fact})],
        )
        self.conn.execute("INSERT INTO log (changed) VALUES (?)", (json.dumps(sorted(changed)),))
        self.conn.execute("COMMIT")
        return changed


class Descendants(System):
    """``networkx.descendants`` over premise and ``unless`` edges: an over-approximation.

    It names every state that *might* change (the cone), not the ones that do; its answer is
    not checked, its size is reported next to the true changed set.
    """

    name = "networkx"
    exact = False

    def __init__(self, wl: Workload) -> None:
        self.nx: Any = importlib.import_module("networkx")
        g = self.nx.DiGraph()
        g.add_nodes_from(range(wl.n))
        g.add_edges_from((p, h) for h, ps, us in wl.justs for p in (*ps, *us))
        self.graph = g

    def skip(self, fact: int) -> None:
        """Nothing to do: the graph does not change when a fact is retracted."""

    def retract(self, fact: int) -> set[int]:
        return set(self.nx.descendants(self.graph, fact))
