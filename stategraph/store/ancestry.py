"""A state and everything it rests on, read from a SQLite store without the models.

``stategraph why`` is asked of one state and prints a few lines; opening a
:class:`~stategraph.store.SQLiteStore` would first import pydantic, clingo and the models, which
cost more than the proof. This reads the same rows :meth:`SQLiteStore.ancestors
<stategraph.store.SQLiteStore.ancestors>` reads (the state, the justifications of it and of its
premises, transitively, and the stored truth of every state they cite) into plain data that
:func:`~stategraph.engine.derivation.lowest_proof` walks. Like :mod:`.listing`, it only reads a
store of this :data:`~stategraph.store.sqlitefile.SCHEMA_VERSION`, and answers None for anything
it does not take (an older or newer store, a row not as this stategraph writes it), so that
opening the store in full says what is wrong. ``tests/cli/test_why_plain.py`` holds the text it
leads to to the models'.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from stategraph.engine.derivation import PlainJustification
from stategraph.store.rowcodec import decode_extra, decode_ids
from stategraph.store.sqlitefile import read_current
from stategraph.values import TRUTH_OF, Origin, Truth

__all__ = ["Ancestry", "StoredState", "read_ancestry"]

_CHUNK = 500
"""Ids bound per statement (SQLite allows 32,766 variables; a few hundred keeps each
statement's plan small)."""


@dataclass(frozen=True, slots=True)
class StoredState:
    """What a proof prints of a state, and whether it is active."""

    id: str
    kind: str
    text: str
    active: bool


@dataclass(frozen=True, slots=True)
class Ancestry:
    """The rows a proof of ``root`` can need.

    Attributes:
        root: the state asked about.
        states: ``root`` and every state its justifications rest on, transitively.
        truth: the stored truth value of those and of every state their justifications cite.
        justifications: each of ``states``' justifications, sorted by identity.
    """

    root: str
    states: dict[str, StoredState]
    truth: dict[str, Truth]
    justifications: dict[str, list[PlainJustification]]

    def value(self, state_id: str) -> Truth:
        """The stored truth value; false for a state not stored (as the support graph says)."""
        return self.truth.get(state_id, Truth.false)

    def justifications_of(self, head: str) -> list[PlainJustification]:
        """A state's justifications, sorted by identity."""
        return self.justifications.get(head, [])


def read_ancestry(path: str, busy_timeout: float, state_id: str) -> Ancestry | None:
    """The ancestry of ``state_id`` in the store at ``path``; None when the store, or a row
    this read meets, is not one this reader takes, or no state has that id (open the store as
    a ``SQLiteStore`` then: it migrates, refuses or says what is missing).

    Raises:
        StoreNotFoundError, StoreError, StoreBusyError: as
            :func:`~stategraph.store.sqlitefile.read_current` says.
    """
    return read_current(path, busy_timeout, lambda conn: _read(conn, state_id))


def _read(conn: sqlite3.Connection, state_id: str) -> Ancestry | None:
    justifications: dict[str, list[PlainJustification]] = {}
    seen = {state_id}
    frontier = [state_id]
    while frontier:
        sql = "SELECT head, premises, unless, origin, extra FROM justifications WHERE head IN ({})"
        found = [_justification(*row) for row in _select(conn, sql, frontier)]
        for j in found:
            justifications.setdefault(j.head, []).append(j)
        nxt = {p for j in found for p in j.premises} - seen
        seen |= nxt
        frontier = sorted(nxt)
    for justs in justifications.values():
        justs.sort(key=lambda j: j.key)
    cited = {
        c for justs in justifications.values() for j in justs for c in (*j.premises, *j.unless)
    }
    states: dict[str, StoredState] = {}
    truth: dict[str, Truth] = {}
    sql = "SELECT id, active, truth, body FROM states WHERE id IN ({})"
    for sid, active, value, stored in _select(conn, sql, seen):
        whole = json.loads(stored)  # kind and text as the models read them: from the body
        states[sid] = StoredState(sid, str(whole["kind"]), str(whole["text"]), bool(active))
        truth[sid] = TRUTH_OF[value]
    sql = "SELECT id, truth FROM states WHERE id IN ({})"
    for sid, value in _select(conn, sql, cited - seen):
        truth[sid] = TRUTH_OF[value]
    if state_id not in states:
        return None
    return Ancestry(state_id, states, truth, justifications)


def _select(conn: sqlite3.Connection, sql: str, ids: Iterable[str]) -> Iterator[tuple[str, ...]]:
    unique = sorted(set(ids))
    for at in range(0, len(unique), _CHUNK):
        chunk = unique[at : at + _CHUNK]
        yield from conn.execute(sql.format(",".join("?" * len(chunk))), chunk)


def _justification(
    head: str, premises: str, unless: str, origin: str, extra: str
) -> PlainJustification:
    """A ``justifications`` row as :meth:`SQLiteStore <stategraph.store.SQLiteStore>` decodes it."""
    fields = decode_extra(extra) if extra else {}
    return PlainJustification(
        head, decode_ids(premises), decode_ids(unless), Origin(origin), **fields
    )
