"""Bulk loading: many new states and their justifications in one transaction.

Adding states one revision at a time computes and logs a report per state, which is right for
an agent writing memories as it goes and far too slow for importing a million of them. A bulk
load validates everything, writes the rows in batches, computes the well-founded model of the
new states once (the rules stream straight into clingo, see
:class:`~stategraph.engine.logic.IncrementalProgram`), and logs one summary entry with a digest of
what was loaded. Like a revision it is atomic: if anything fails, nothing is written.

The input is streamed: states and justifications are read once, in order, and each is written
(or kept as a few integers) before the next is read, so a caller can load from generators and
the load holds neither the input objects nor their rows. The store stays locked for writing
while the caller's iterators run.

Scope: the loaded justifications must belong to the loaded states, and no stored justification
may name a loaded id under ``unless`` (that would change stored states: use ``revise``).
Premises may name stored states; their current truth values are the boundary.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import deque
from collections.abc import Iterable
from typing import Any

from stategraph.engine.logic import IncrementalProgram
from stategraph.engine.policy import Policy
from stategraph.errors import (
    DuplicateStateError,
    InvalidChangeError,
    SelfJustificationError,
    UnknownStateError,
)
from stategraph.model import Justification, State, Truth
from stategraph.store import past
from stategraph.store.sqlite import SQLiteStore, canonical_json, justification_row, state_row
from stategraph.store.tables import Sums
from stategraph.text import atom_index

__all__ = ["bulk_load"]

_BATCH = 20_000

_FALSE, _UNDEFINED, _TRUE = 0, 1, 2
"""Truth of an outside (stored) state, as :class:`_Rules` keeps it."""


class _Rules:
    """The loaded justifications as integers, in input order.

    A *code* names a cited state: ``i >= 0`` is the ``i``-th loaded state, ``~j < 0`` the
    ``j``-th outside (stored) state. Justification ``k`` cites ``codes[bounds[2k]:
    bounds[2k+1]]`` as premises and ``codes[bounds[2k+1]:bounds[2k+2]]`` under ``unless``.
    """

    def __init__(self) -> None:
        self.head = array("l")
        self.bounds = array("l", [0])
        self.codes = array("l")
        self.outside: list[str] = []
        self._outside: dict[str, int] = {}
        self.truth = bytearray()
        """Per outside state, its value in the store (set once all rules are read)."""

    def __len__(self) -> int:
        return len(self.head)

    def code(self, sid: str, index: dict[str, int]) -> int:
        i = index.get(sid)
        if i is not None:
            return i
        j = self._outside.get(sid)
        if j is None:
            j = self._outside[sid] = len(self.outside)
            self.outside.append(sid)
        return ~j

    def add(self, head: int, premises: list[int], unless: list[int]) -> None:
        self.head.append(head)
        codes, bounds = self.codes, self.bounds
        codes.extend(premises)
        bounds.append(len(codes))
        if unless:
            codes.extend(unless)
        bounds.append(len(codes))

    def premises(self, k: int) -> array[int]:
        return self.codes[self.bounds[2 * k] : self.bounds[2 * k + 1]]


class _Load:
    """One bulk load, pass by pass (inside the store's transaction)."""

    def __init__(self, store: SQLiteStore, policy: Policy) -> None:
        self.store = store
        self.policy = policy
        self.index: dict[str, int] = {}
        self.exogenous = bytearray()
        self.rules = _Rules()
        self.digest = hashlib.sha256()
        self.stored_before = 0
        """Justification rows before the load: the summary counts the rows it adds, since
        the input may give one justification twice (written once, as the latest copy)."""

    def read_states(self, states: Iterable[State]) -> None:
        """Validate and write the states (derived ones as false until solved)."""
        stored = self.store.has_states()
        batch: list[tuple[Any, ...]] = []
        indexed: list[State] = []
        for st in states:
            st = self.policy.normalise(st)
            if st.id in self.index:
                raise InvalidChangeError("bulk_load", f"state id {st.id!r} appears twice", st.id)
            fact = self.policy.is_exogenous(st)
            self.index[st.id] = len(self.exogenous)
            self.exogenous.append(fact)
            row = state_row(st, Truth.true if fact else Truth.false)
            self.digest.update(row[-1].encode("utf-8"))
            batch.append(row)
            if st.text or st.atoms:
                indexed.append(st)
            if len(batch) == _BATCH:
                self._write_states(batch, stored, indexed)
                batch, indexed = [], []
        self._write_states(batch, stored, indexed)

    def _write_states(
        self, rows: list[tuple[Any, ...]], stored: bool, indexed: list[State]
    ) -> None:
        if stored and rows:
            ids = [r[0] for r in rows]
            taken = self.store.present(ids)
            if taken:
                first = min(taken)
                raise DuplicateStateError(first, "bulk_load")
            blocked = self.store.heads_citing(ids)
            if blocked:
                raise InvalidChangeError(
                    "bulk_load",
                    f"stored state {min(blocked)!r} names a loaded state under unless; add "
                    "these states with revise() so that it is revised",
                )
        self.store.conn.executemany("INSERT INTO states VALUES (?,?,?,?,?,?,?,?)", rows)
        # the states did not exist before this load's log entry (stategraph.store.past)
        seq = self.store.head()[0] + 1
        self.store.conn.executemany(
            past.INSERT["states_past"], past.created((r[0] for r in rows), seq)
        )
        self.store.index_terms(indexed)
        if any(st.atoms for st in indexed):
            atom_index.write(self.store.conn, indexed)
            # loaded as given, not linked: the next change with atoms links every memory
            self.store.conn.execute("DELETE FROM meta WHERE key = 'setting:link_atoms'")

    def read_justifications(self, justifications: Iterable[Justification]) -> None:
        """Validate and write the justifications, keeping each as integer codes."""
        index, exogenous, rules = self.index, self.exogenous, self.rules
        self.stored_before = self._justification_rows()
        batch: list[tuple[str, str, str, str, str]] = []
        for j in justifications:
            head = index.get(j.head)
            if head is None:
                raise InvalidChangeError(
                    "bulk_load",
                    f"justification of {j.head!r}: its head is not a loaded state",
                    j.head,
                )
            if j.head in j.premises or j.head in j.unless:
                raise SelfJustificationError(j.head)
            if exogenous[head]:
                kind = self.store.conn.execute(
                    "SELECT kind FROM states WHERE id=?", (j.head,)
                ).fetchone()[0]
                raise InvalidChangeError(
                    "bulk_load", f"{j.head!r} is a {kind}: it takes no justification", j.head
                )
            rules.add(
                head,
                [rules.code(p, index) for p in j.premises],
                [rules.code(u, index) for u in j.unless],
            )
            row = justification_row(j)
            self.digest.update("\x1f".join(row).encode("utf-8"))
            batch.append(row)
            if len(batch) == _BATCH:
                self._write_justifications(batch)
                batch = []
        self._write_justifications(batch)

    def _write_justifications(self, rows: list[tuple[str, str, str, str, str]]) -> None:
        self.store.conn.executemany(
            "INSERT OR REPLACE INTO justifications VALUES (?,?,?,?,?)", rows
        )

    def _justification_rows(self) -> int:
        """The rows of the justifications table (a count of its primary key: about 15 ms a
        million rows)."""
        return int(self.store.conn.execute("SELECT COUNT(*) FROM justifications").fetchone()[0])

    def read_boundary(self) -> None:
        """The stored values of the outside states the rules cite; an unknown one is false
        under ``unless`` (a default) and an error as a premise."""
        rules = self.rules
        found = self.store.truths(rules.outside) if rules.outside else {}
        value = {Truth.false: _FALSE, Truth.undefined: _UNDEFINED, Truth.true: _TRUE}
        rules.truth = bytearray(value[found.get(s, Truth.false)] for s in rules.outside)
        if len(found) < len(rules.outside):
            ids = list(self.index)
            for k in range(len(rules)):
                for c in rules.premises(k):
                    if c < 0 and rules.outside[~c] not in found:
                        head = ids[rules.head[k]]
                        raise UnknownStateError(rules.outside[~c], f"premise of {head}")

    def solve(self) -> tuple[list[bool], list[bool]]:
        """The well-founded model of the loaded states, given the boundary."""
        rules, exogenous = self.rules, self.exogenous
        n = len(exogenous)
        undefined = (j for j, t in enumerate(rules.truth) if t == _UNDEFINED)
        node = {j: n + x for x, j in enumerate(undefined)}
        program = IncrementalProgram(n + len(node))
        for x in node.values():
            program.rule(x, (), (x,))  # an undefined boundary state: n :- not n
        for i, fact in enumerate(exogenous):
            if fact:
                program.fact(i)
        truth, codes, bounds = rules.truth, rules.codes, rules.bounds
        for k, head in enumerate(rules.head):
            # frozen boundary: a true premise or false unless drops out, the opposite drops
            # the rule
            pos = []
            for c in codes[bounds[2 * k] : bounds[2 * k + 1]]:
                if c >= 0:
                    pos.append(c)
                elif truth[~c] == _UNDEFINED:
                    pos.append(node[~c])
                elif truth[~c] == _FALSE:
                    break
            else:
                neg = []
                for c in codes[bounds[2 * k + 1] : bounds[2 * k + 2]]:
                    # A loaded fact under unless is known true, so the rule can never fire;
                    # leaving such rules out keeps a program whose only negation is on facts
                    # positive (one solve).
                    if c >= 0:
                        if exogenous[c]:
                            break
                        neg.append(c)
                    elif truth[~c] == _TRUE:
                        break
                    elif truth[~c] == _UNDEFINED:
                        neg.append(node[~c])
                else:
                    program.rule(head, pos, neg)
        return program.solve()

    def write(
        self, true: list[bool], undefined: list[bool], config: dict[str, Any], before: Sums
    ) -> dict[str, Any]:
        """Write the derived states' values and the edges, and log the summary with the
        tables' digest (``before``: the tables' sums before the load)."""
        n = len(self.exogenous)
        ids = list(self.index)
        conn = self.store.conn
        conn.executemany(
            "UPDATE states SET truth=? WHERE id=?",
            (
                (Truth.true.value if true[i] else Truth.undefined.value, ids[i])
                for i in range(n)
                if not self.exogenous[i] and (true[i] or undefined[i])
            ),
        )
        support = _supports(self.rules, self.exogenous, true)
        rules = self.rules
        outside, codes, bounds = rules.outside, rules.codes, rules.bounds
        rows: list[tuple[str, str, int]] = []
        for k, h in enumerate(rules.head):
            head = ids[h]
            s = support[h]
            keep = None if s < 0 else set(codes[bounds[2 * s] : bounds[2 * s + 2]])
            for c in codes[bounds[2 * k] : bounds[2 * k + 2]]:
                src = ids[c] if c >= 0 else outside[~c]
                rows.append((src, head, 1 if keep is None or c in keep else 0))
            if len(rows) >= _BATCH:
                conn.executemany("INSERT OR IGNORE INTO edges VALUES (?,?,?)", rows)
                rows = []
        conn.executemany("INSERT OR IGNORE INTO edges VALUES (?,?,?)", rows)
        summary = {
            "states": n,
            "justifications": self._justification_rows() - self.stored_before,
            "holding": sum(true[:n]),
            "undefined": sum(undefined[:n]),
            "sha256": self.digest.hexdigest(),
        }
        config, sums = self.store.chain_tables(config, before)
        entry = self.store.append(
            '{"bulk_load":true}', canonical_json({"bulk_load": summary}), config
        )
        self.store.keep_sums(entry.seq, sums)
        return summary


def bulk_load(
    store: SQLiteStore,
    policy: Policy,
    states: Iterable[State],
    justifications: Iterable[Justification],
    config: dict[str, Any],
) -> dict[str, Any]:
    """Load new states and justifications; returns the logged summary.

    ``states`` is read completely before ``justifications`` is started, so a justification
    may cite any loaded state.

    Raises:
        DuplicateStateError/InvalidChangeError/UnknownStateError/SelfJustificationError/
        InvalidKindError: naming the offending id (the first problem in input order);
        nothing is written then.
    """
    load = _Load(store, policy)
    with store.transaction():
        before = store.table_sums()  # the digest moves by what the load adds: every row
        load.read_states(states)
        load.read_justifications(justifications)
        load.read_boundary()
        true, undefined = load.solve()
        return load.write(true, undefined, config, before)


def _supports(rules: _Rules, exogenous: bytearray, true: list[bool]) -> list[int]:
    """Per loaded state, the justification (index into ``rules``) that carries it, or -1.

    The carrying justification is one of lowest derivation height (breadth-first from the
    states that hold without a loaded derived premise), so supports never form a cycle; the
    ``edges`` rows record which edges they leave open
    (:class:`~stategraph.engine.graph.Cone`). Facts and states that do not hold get -1: every
    edge into them stays open.
    """
    truth, codes, bounds, heads = rules.truth, rules.codes, rules.bounds, rules.head
    support = [-1] * len(exogenous)
    remaining = [0] * len(rules)
    waiting: list[list[int] | None] = [None] * len(exogenous)
    queue: deque[int] = deque()
    for k, head in enumerate(heads):
        if not true[head]:
            continue
        derived: list[int] = []
        for c in codes[bounds[2 * k] : bounds[2 * k + 1]]:
            if c < 0:
                if truth[~c] != _TRUE:
                    break
            elif not true[c]:
                break
            elif not exogenous[c]:
                derived.append(c)
        else:
            # A support's unless states must be outside states that are false, not loaded
            # derived states (see revise._Grader.levels): their falsity may hinge on the state
            # supported. Stored states cannot cite loaded ones, and loaded facts all hold.
            unless = codes[bounds[2 * k + 1] : bounds[2 * k + 2]]
            if unless and not all(c < 0 and truth[~c] == _FALSE for c in unless):
                continue
            if derived:
                remaining[k] = len(derived)
                for i in derived:
                    w = waiting[i]
                    if w is None:
                        waiting[i] = [k]
                    else:
                        w.append(k)
            elif support[head] < 0:
                support[head] = k
                queue.append(head)
    while queue:
        for k in waiting[queue.popleft()] or ():
            remaining[k] -= 1
            if remaining[k] == 0:
                head = heads[k]
                if support[head] < 0:
                    support[head] = k
                    queue.append(head)
    return support
