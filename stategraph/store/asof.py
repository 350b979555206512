"""A store as it was after one revision: the reads of the present, answered from the past.

:class:`PastStore` answers the reads :class:`~stategraph.memory.Memory`'s queries make (one
state, its truth value, the states with a truth value, a subgraph, a state's ancestors, the
review queue) as they were after revision ``seq``, from the present tables and the versions
revisions replaced (:mod:`stategraph.store.past`): each row's value then is the kept version
with the smallest ``until`` after ``seq``, or the present row when none ended after it. No
revision is replayed, so a past read costs about what a present one does, plus one indexed
seek per row (and, for the reads of every state, the rows changed since ``seq``).

It only reads: it has no ``commit``, and nothing in it writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from stategraph.engine.graph import JustKey, SupportGraph
from stategraph.errors import AsOfRangeError, InvalidInputError
from stategraph.model import Entry, Justification, State, Truth
from stategraph.store import past, review_queue
from stategraph.store.revlog import LogEntry, utc
from stategraph.store.sqlite import (
    _MAX_SEQ,
    SQLiteStore,
    _justification,
    _state,
)
from stategraph.values import TRUTH_OF

__all__ = ["AsOf", "PastStore", "resolve"]

AsOf = int | str | datetime
"""A revision to read the memory as of: its sequence number, or a time (a ``datetime`` or an
ISO 8601 string; without a zone, UTC), meaning the last revision committed at or before it."""

_STATE = "SELECT id, kind, status, active, superseded_by, truth, body FROM states WHERE id=?"
_STATES = "SELECT id, kind, status, active, superseded_by, truth FROM states WHERE id IN ({})"
_STATES_FULL = (
    "SELECT id, kind, status, active, superseded_by, truth, body FROM states WHERE id IN ({})"
)
_PAST_ONE = (
    "SELECT active, superseded_by, truth FROM states_past WHERE id=? AND until>? "
    "ORDER BY until LIMIT 1"
)
_PAST_IDS = "SELECT id, until, active, superseded_by, truth FROM states_past WHERE id IN ({})"
_PAST_SINCE = (
    "SELECT id, until, active, superseded_by, truth FROM states_past WHERE until > ? ORDER BY until"
)
_JUSTS = "SELECT head, premises, unless, origin, extra FROM justifications WHERE head IN ({})"
_JUSTS_PAST = (
    "SELECT head, premises, unless, until, origin, extra FROM justifications_past "
    "WHERE head IN ({})"
)
_QUEUE_PAST = "SELECT id, until, seq, entry FROM review_past WHERE until > ? ORDER BY until"
_QUEUE_ONE = "SELECT seq, entry FROM review_past WHERE id=? AND until>? ORDER BY until LIMIT 1"
_HEAD = "SELECT seq, hash FROM revisions WHERE seq=?"
_AT_OR_BEFORE = "SELECT seq FROM revisions WHERE at <= ? ORDER BY seq DESC LIMIT 1"
_AT = "SELECT at FROM revisions WHERE seq=?"

Version = tuple[Any, Any, Any] | None
"""A state's ``(active, superseded_by, truth)`` then, or None: it did not exist then."""


def first_readable(store: SQLiteStore) -> int:
    """The earliest revision whose state the store can show: 1, or for a store migrated
    from a version that kept no past, the revision at its head then."""
    row = store.conn.execute("SELECT value FROM meta WHERE key=?", (past.SINCE_KEY,)).fetchone()
    return 1 if row is None else max(1, int(row[0]))


def resolve(store: SQLiteStore, when: AsOf) -> int:
    """The revision ``when`` names: a sequence number as it is, a time as the last revision
    committed at or before it.

    Raises:
        AsOfRangeError: before the first revision the store can show, or after its last one
            (a time in the future included), or the store has no revision yet.
        InvalidInputError: ``when`` is neither a number nor a time.
    """
    last = store.head()[0]
    first = first_readable(store) if last else None
    asked = when
    if isinstance(when, str) and when.strip().isascii() and when.strip().isdigit():
        digits = when.strip()
        if len(digits) > len(str(_MAX_SEQ)):
            raise AsOfRangeError(asked, first, last, f"revision {digits[:24]}... does not exist")
        when = int(digits)
    if isinstance(when, str):
        try:
            when = datetime.fromisoformat(when.strip())
        except ValueError:
            problem = f"not a revision number or an ISO 8601 time: {str(asked)[:60]!r}"
            raise InvalidInputError("as_of", [("as_of", problem)]) from None
    if isinstance(when, bool) or not isinstance(when, int | datetime):
        problem = f"a revision number, a datetime or an ISO 8601 text, not {when!r:.60}"
        raise InvalidInputError("as_of", [("as_of", problem)])
    if first is None:
        raise AsOfRangeError(asked, None, 0, "nothing to read")
    if isinstance(when, datetime):
        when = _at(store, when, asked, first, last)
    if when > last:
        raise AsOfRangeError(asked, first, last, f"revision {when} is not written yet")
    if when < first:
        problem = (
            f"revision {when} is before the first revision"
            if first == 1
            else f"revision {when} is before the store kept its past (it was written by an "
            f"older stategraph and migrated at revision {first})"
        )
        raise AsOfRangeError(asked, first, last, problem)
    return when


def _at(store: SQLiteStore, when: datetime, asked: object, first: int, last: int) -> int:
    try:
        when = utc(when, "as_of", "as_of")
    except InvalidInputError:  # past either end of the times a log holds: year 1, or 9999
        problem = "is in the future" if when.year > 1 else "is before the first revision"
        raise AsOfRangeError(asked, first, last, f"{when.isoformat()} {problem}") from None
    if when > store.now():  # by the clock that stamps the log: the database's on PostgreSQL
        raise AsOfRangeError(asked, first, last, f"{when.isoformat()} is in the future")
    # ``at`` is UTC ISO 8601 with microseconds: as text, it sorts as time does
    row = store.conn.execute(_AT_OR_BEFORE, (when.isoformat(timespec="microseconds"),))
    found = row.fetchone()
    if found is None:
        at = store.conn.execute(_AT, (1,)).fetchone()
        since = f" (at {at[0]})" if at is not None else ""
        problem = f"{when.isoformat()} is before the first revision{since}"
        raise AsOfRangeError(asked, first, last, problem)
    return int(found[0])


def _first_after(rows: Iterable[tuple[Any, ...]], seq: int) -> dict[Any, tuple[Any, ...]]:
    """Of past rows ``(key, until, ...)``, each key's version then: the one with the smallest
    ``until`` after ``seq``."""
    out: dict[Any, tuple[Any, ...]] = {}
    for row in rows:
        key, until = row[0], int(row[1])
        if until > seq and (key not in out or until < out[key][0]):
            out[key] = (until, *row[2:])
    return out


class PastStore:
    """The reads of a store as they were after revision ``seq`` (see the module's doc).

    Args:
        store: the store (SQLite or PostgreSQL).
        seq: a revision the store can show (:func:`resolve`).
    """

    def __init__(self, store: SQLiteStore, seq: int) -> None:
        self.present = store
        self.seq = seq
        self.conn = store.conn
        self.path = store.path
        self.name = store.name

    # ---- states -------------------------------------------------------------------------

    def _versions(self, ids: Iterable[str]) -> dict[str, Version]:
        """The versions then of those of ``ids`` that changed since (absent: as they are)."""
        found = _first_after(self.present._select(_PAST_IDS, ids), self.seq)
        return {sid: (None if v[3] is None else (v[1], v[2], v[3])) for sid, v in found.items()}

    def _changed(self) -> dict[str, Version]:
        """Every state that changed since, with its version then."""
        rows = self.conn.execute(_PAST_SINCE, (self.seq,))
        found = _first_after(rows, self.seq)
        return {sid: (None if v[3] is None else (v[1], v[2], v[3])) for sid, v in found.items()}

    def _rows(self, ids: Iterable[str], full: bool) -> Iterator[tuple[Any, ...]]:
        """``states`` rows (with ``body`` if ``full``) as they were, of the states that
        existed then."""
        ids = set(ids)
        if not ids:
            return
        versions = self._versions(ids)
        for row in self.present._select(_STATES_FULL if full else _STATES, ids):
            v = versions.get(row[0], row[3:6])
            if v is not None:
                yield (*row[:3], *v, *row[6:])

    def state(self, state_id: str) -> tuple[State, bool, Truth] | None:
        """One whole state as it was, whether it was active, and its truth value then."""
        row = self.conn.execute(_STATE, (state_id,)).fetchone()
        if row is None:
            return None
        v = self.conn.execute(_PAST_ONE, (state_id, self.seq)).fetchone()
        if v is not None:
            if v[2] is None:
                return None  # created later
            row = (*row[:3], *v, row[6])
        return _state(row, full=True), bool(row[3]), TRUTH_OF[row[5]]

    def states(self) -> list[State]:
        """Every state that existed then, sorted by id."""
        later = {sid for sid, v in self._changed().items() if v is None}
        return [st for st in self.present.states() if st.id not in later]

    def ids(self, limit: int | None = None, after: str | None = None) -> list[str]:
        """Ids of the states that existed then, sorted (at most ``limit``, after ``after``)."""
        later = {sid for sid, v in self._changed().items() if v is None}
        wanted = None if limit is None else max(limit, 0) + len(later)
        ids = [i for i in self.present.ids(wanted, after) if i not in later]
        return ids if limit is None else ids[: max(limit, 0)]

    def heads_citing(self, ids: Iterable[str]) -> set[str]:
        """Heads whose justifications cite any of these ids now or did then (the edges index
        is the present's: a superset, which the justifications read then narrow)."""
        return self.present.heads_citing(ids)

    def dependents(self, state_id: str, limit: int) -> list[str]:
        """The first ``limit`` heads (by id) whose justifications cited ``state_id`` then: the
        present's edges, narrowed by the justifications read then, in sorted chunks until
        ``limit`` are found (a picture of the past reads past what it draws only here)."""
        out: list[str] = []
        heads = sorted(self.heads_citing([state_id]))
        for i in range(0, len(heads), 256):
            cited = {
                j.head
                for j in self._justifications_of(heads[i : i + 256])
                if state_id in j.premises or state_id in j.unless
            }
            out.extend(h for h in heads[i : i + 256] if h in cited)
            if len(out) >= limit:
                break
        return out[:limit]

    def ids_with_truth(self, truth: Truth) -> frozenset[str]:
        """Ids of the states that had this truth value then."""
        out = set(self.present.ids_with_truth(truth))
        for sid, v in self._changed().items():
            if v is not None and TRUTH_OF[v[2]] is truth:
                out.add(sid)
            else:
                out.discard(sid)
        return frozenset(out)

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        """Truth values then of the states among ``ids`` that existed then."""
        return {r[0]: TRUTH_OF[r[5]] for r in self._rows(ids, full=False)}

    # ---- justifications -----------------------------------------------------------------

    def _justifications_of(self, heads: Iterable[str]) -> list[Justification]:
        """The justifications the heads had then (heads that did not exist then had none)."""
        heads = set(heads)
        if not heads:
            return []
        versions = self._versions(heads)
        heads = {h for h in heads if versions.get(h, ()) is not None}
        if not heads:
            return []
        rows = ((tuple(r[:3]), *r[3:]) for r in self.present._select(_JUSTS_PAST, heads))
        then = _first_after(rows, self.seq)
        out = [
            _justification(key[0], key[1], key[2], origin, extra)
            for key, (_, origin, extra) in then.items()
            if origin is not None
        ]
        for row in self.present._select(_JUSTS, heads):
            if tuple(row[:3]) not in then:
                out.append(_justification(*row))
        return out

    def justifications(self, head: str | None = None) -> list[Justification]:
        """The justifications then (of every state, or of one), sorted by identity."""
        heads = [head] if head is not None else self.ids()
        return sorted(self._justifications_of(heads), key=lambda j: j.key)

    def justifications_for(self, heads: Iterable[str]) -> list[Justification]:
        """The justifications these heads had then, sorted by identity."""
        return sorted(self._justifications_of(heads), key=lambda j: j.key)

    def existing(self, keys: Iterable[JustKey]) -> set[JustKey]:
        """Which of these justification identities were stored then."""
        wanted = set(keys)
        return {j.key for j in self._justifications_of({k[0] for k in wanted})} & wanted

    # ---- graphs -------------------------------------------------------------------------

    def _graph(self, heads: set[str], justs: list[Justification], full: bool) -> SupportGraph:
        graph = SupportGraph()
        cited = {s for j in justs for s in (*j.premises, *j.unless)}
        for row in self._rows(heads | cited, full):
            if row[0] in heads:
                graph.add_state(_state(row, full), TRUTH_OF[row[5]])
                if not row[3]:
                    graph.deactivate(row[0], row[4])
            else:
                graph.set_truth(row[0], TRUTH_OF[row[5]])
        for j in justs:
            graph.add_justification(j)
        return graph

    def subgraph(self, ids: Iterable[str] = (), full: bool = False) -> SupportGraph:
        """The states ``ids`` as they were, with their justifications then, and the truth
        values then of the states those cite."""
        heads = set(ids)
        return self._graph(heads, self._justifications_of(heads), full)

    def ancestors(self, state_id: str) -> SupportGraph:
        """A state and everything its justifications rested on then, transitively."""
        seen = {state_id}
        frontier = [state_id]
        justs: list[Justification] = []
        while frontier:
            found = self._justifications_of(frontier)
            justs += found
            nxt = {p for j in found for p in j.premises} - seen
            seen |= nxt
            frontier = sorted(nxt)
        return self._graph(seen, justs, full=True)

    # ---- the review queue ---------------------------------------------------------------

    def flags(self) -> list[review_queue.Flag]:
        """The states waiting for review then, by id (:func:`review_queue.flags`)."""
        rows = self.conn.execute(_QUEUE_PAST, (self.seq,))
        then = _first_after(rows, self.seq)
        out: dict[str, review_queue.Flag] = {}
        for sid, seq, entry in review_queue.flags(self.conn):
            if sid not in then:
                out[sid] = (sid, seq, entry)
        for sid, (_, seq, entry) in then.items():
            if seq is not None:
                out[sid] = (sid, int(seq), Entry.model_validate_json(entry) if entry else None)
        return [out[sid] for sid in sorted(out)]

    def flag(self, state_id: str) -> review_queue.Flag | None:
        """One state's place in the review queue then, or None."""
        row = self.conn.execute(_QUEUE_ONE, (state_id, self.seq)).fetchone()
        if row is None:
            return review_queue.flag(self.conn, state_id)
        if row[0] is None:
            return None
        return state_id, int(row[0]), Entry.model_validate_json(row[1]) if row[1] else None

    def undefined_ids(self) -> list[str]:
        """Every state undefined then, sorted."""
        return sorted(self.ids_with_truth(Truth.undefined))

    # ---- the log ------------------------------------------------------------------------

    def head(self) -> tuple[int, str]:
        """The revision read, and its hash."""
        row = self.conn.execute(_HEAD, (self.seq,)).fetchone()
        return int(row[0]), str(row[1])

    def iter_history(self, limit: int | None = None, since: Any = None) -> Iterator[LogEntry]:
        """The log up to the revision read."""
        for e in self.present.iter_history(None, since):
            if e.seq > self.seq:
                return
            yield e

    def get_setting(self, key: str) -> Any:
        """A persisted setting (as it is now: settings are not revised)."""
        return self.present.get_setting(key)
