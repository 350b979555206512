"""The store's index of grounded atoms, and what each linked memory's derivations looked at.

Incremental linking (:class:`~stategraph.linking.IncrementalLinker`) never reads the whole
store. It needs three things, kept here in the same SQLite file as the memory:

- ``atoms`` / ``atom_keys``: every atom a memory carries (retracted and superseded ones too:
  linking sees them all), found by predicate, or by predicate and one argument;
- ``input_dates``: the date strings the atoms carry, by predicate, for the ``next_date``
  builtin (the event of a predicate that first follows a date);
- ``link_watches``: for each derived memory the rules link, the lookup patterns its last
  linking evaluated (:attr:`~stategraph.topdown.Goals.keys`). A new atom that matches none of
  them, and a ``next_date`` that none of them asked for, cannot change its derivations; so a
  new memory relinks exactly the memories watching what it brings.

Rows are written in the revision's transaction (:func:`write`), so the index is always that of
the committed store.
"""

from __future__ import annotations

import bisect
import datetime
import functools
import sqlite3
from collections.abc import Iterable, Mapping, Sequence

import clingo

from stategraph.grounding.packs import NEXT_DATE_HORIZON, days_between, is_date, next_event
from stategraph.model import State
from stategraph.topdown import AtomSet, atom_key, next_date_key

__all__ = ["SCHEMA", "LinkIndex", "StoreInputs", "write"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS atoms (
    atom TEXT NOT NULL,             -- a ground atom a memory carries, as clingo prints it
    state_id TEXT NOT NULL,
    PRIMARY KEY (atom, state_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS atoms_by_state ON atoms (state_id);
CREATE TABLE IF NOT EXISTS atom_keys (
    key TEXT NOT NULL,              -- topdown.atom_key with no argument or one bound
    atom TEXT NOT NULL,
    PRIMARY KEY (key, atom)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS input_dates (
    predicate TEXT NOT NULL,        -- the predicate of an atom carrying the date
    date TEXT NOT NULL,             -- a date string (packs.is_date)
    PRIMARY KEY (predicate, date)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS input_dates_by_date ON input_dates (date);
CREATE TABLE IF NOT EXISTS link_watches (
    key TEXT NOT NULL,              -- a lookup pattern (topdown.atom_key, next_date_key)
    head TEXT NOT NULL,             -- a derived memory whose linking evaluated it
    PRIMARY KEY (key, head)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS link_watches_by_head ON link_watches (head);
"""


def _keys(atom: clingo.Symbol) -> list[str]:
    """The ``atom_keys`` rows of an atom: its predicate, and each argument bound alone."""
    args = atom.arguments
    keys = [atom_key(atom.name, len(args), {})]
    keys += [atom_key(atom.name, len(args), {i: a}) for i, a in enumerate(args)]
    return keys


def _dates(atom: clingo.Symbol) -> list[str]:
    return [
        a.string for a in atom.arguments if a.type is clingo.SymbolType.String and is_date(a.string)
    ]


def write(
    conn: sqlite3.Connection,
    states: Iterable[State],
    watches: Mapping[str, frozenset[str]] | None = None,
) -> None:
    """Index new states' atoms and replace the watches of relinked memories (inside the
    revision's transaction). Atoms that do not parse are skipped: linking reports them."""
    atoms: list[tuple[str, str]] = []
    keys: set[tuple[str, str]] = set()
    dates: set[tuple[str, str]] = set()
    for st in states:
        for text in st.atoms:
            try:
                sym = clingo.parse_term(text)
            except (RuntimeError, UnicodeError):
                continue
            if sym.type is not clingo.SymbolType.Function or not sym.name:
                continue
            printed = str(sym)
            atoms.append((printed, st.id))
            keys.update((k, printed) for k in _keys(sym))
            dates.update((sym.name, d) for d in _dates(sym))
    if atoms:
        conn.executemany("INSERT OR IGNORE INTO atoms VALUES (?, ?)", atoms)
        conn.executemany("INSERT OR IGNORE INTO atom_keys VALUES (?, ?)", sorted(keys))
        conn.executemany("INSERT OR IGNORE INTO input_dates VALUES (?, ?)", sorted(dates))
    if watches:
        heads = sorted(watches)
        conn.executemany("DELETE FROM link_watches WHERE head = ?", [(h,) for h in heads])
        conn.executemany(
            "INSERT INTO link_watches VALUES (?, ?)",
            [(k, h) for h in heads for k in sorted(watches[h])],
        )


class LinkIndex:
    """Reads of the index (its tables are part of the store's schema: :data:`SCHEMA`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def matching(self, key: str) -> list[clingo.Symbol]:
        """The atoms indexed under one ``atom_keys`` key."""
        rows = self.conn.execute("SELECT atom FROM atom_keys WHERE key = ?", (key,))
        return [clingo.parse_term(r[0]) for r in rows]

    def count(self, key: str, cap: int) -> int:
        """How many atoms one key holds, counting no further than ``cap``."""
        sql = "SELECT count(*) FROM (SELECT 1 FROM atom_keys WHERE key = ? LIMIT ?)"
        return int(self.conn.execute(sql, (key, cap)).fetchone()[0])

    def carriers(self, atom: clingo.Symbol) -> list[str]:
        """The states carrying an atom, sorted by id."""
        sql = "SELECT state_id FROM atoms WHERE atom = ? ORDER BY state_id"
        return [r[0] for r in self.conn.execute(sql, (str(atom),))]

    def dates_of(self, predicate: str) -> list[str]:
        """The date strings the atoms of a predicate carry."""
        sql = "SELECT date FROM input_dates WHERE predicate = ?"
        return [r[0] for r in self.conn.execute(sql, (predicate,))]

    def all_dates(self) -> list[str]:
        """Every date string any atom carries."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT date FROM input_dates")]

    def date_predicates(self) -> list[str]:
        """The predicates whose atoms carry dates."""
        sql = "SELECT DISTINCT predicate FROM input_dates"
        return [r[0] for r in self.conn.execute(sql)]

    def has_date(self, date: str) -> bool:
        """True when some atom carries the date."""
        sql = "SELECT 1 FROM input_dates WHERE date = ? LIMIT 1"
        return self.conn.execute(sql, (date,)).fetchone() is not None

    def watchers(self, keys: Iterable[str]) -> set[str]:
        """The memories watching any of these keys."""
        out: set[str] = set()
        unique = sorted(set(keys))
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            sql = f"SELECT head FROM link_watches WHERE key IN ({','.join('?' * len(chunk))})"
            out.update(r[0] for r in self.conn.execute(sql, chunk))
        return out

    def watchers_of_date(self, date: str) -> set[str]:
        """The memories that asked for a ``next_date`` of this date (any predicate)."""
        prefix = next_date_key(date, "")
        sql = "SELECT head FROM link_watches WHERE key >= ? AND key < ?"
        return {r[0] for r in self.conn.execute(sql, (prefix, prefix + "\uffff"))}


class _Events:
    """The event dates of one predicate, for ``next_date``: full dates sorted by day (the
    nearest on or after a full date is found by bisection), the others (months, year-less
    dates) checked one by one, as few as they are."""

    def __init__(self, dates: Iterable[str]) -> None:
        full: list[tuple[int, str]] = []
        self.other: list[str] = []
        for d in set(dates):
            day = _ordinal(d)
            if day is None:
                self.other.append(d)
            else:
                full.append((day, d))
        full.sort()
        self.days = [f[0] for f in full]
        self.full = [f[1] for f in full]

    def add(self, date: str) -> None:
        day = _ordinal(date)
        if day is None:
            if date not in self.other:
                self.other.append(date)
            return
        i = bisect.bisect_left(self.days, day)
        if i == len(self.days) or self.full[i] != date:
            self.days.insert(i, day)
            self.full.insert(i, date)

    def next(self, date: str) -> tuple[int, str] | None:
        """:func:`~stategraph.grounding.packs.next_event` over these dates."""
        day = _ordinal(date)
        if day is None:
            return next_event(date, [*self.full, *self.other])
        best: tuple[int, str] | None = None
        i = bisect.bisect_left(self.days, day)
        if i < len(self.days):  # distinct full dates: the first on or after is the nearest
            best = (self.days[i] - day, self.full[i])
        if self.other:
            found = next_event(date, self.other)
            if found is not None and (best is None or found < best):
                best = found
        return None if best is None or best[0] > NEXT_DATE_HORIZON else best


def _within(day: int, windows: list[tuple[int, int]]) -> bool:
    return any(lo <= day <= hi for lo, hi in windows)


@functools.lru_cache(maxsize=65536)
def _ordinal(date: str) -> int | None:
    """The day number of a full ``YYYY-MM-DD`` date, else None."""
    if len(date) != 10 or date[4] != "-" or date[7] != "-" or not is_date(date):
        return None
    return datetime.date.fromisoformat(date).toordinal()


class StoreInputs:
    """:class:`~stategraph.topdown.Inputs` over the index, with the atoms of a change not
    yet committed laid over it.

    Args:
        index: the store's index.
        new: the atoms the change brings, by the states carrying them.
    """

    def __init__(self, index: LinkIndex, new: Mapping[str, Sequence[clingo.Symbol]]) -> None:
        self.index = index
        self.overlay = AtomSet(a for atoms in new.values() for a in atoms)
        self._new_carriers: dict[clingo.Symbol, list[str]] = {}
        for sid, atoms in sorted(new.items()):
            for a in atoms:
                self._new_carriers.setdefault(a, []).append(sid)
        self._events: dict[str, _Events] = {}
        self._new_dates = {d for atoms in new.values() for a in atoms for d in _dates(a)}

    def matching(
        self, name: str, arity: int, bound: dict[int, clingo.Symbol]
    ) -> Sequence[clingo.Symbol]:
        """Indexed and new atoms ``name/arity`` with these arguments at the bound positions."""
        if bound:
            keys = [atom_key(name, arity, {i: v}) for i, v in bound.items()]
            key = min(keys, key=lambda k: self.index.count(k, 10_000)) if len(keys) > 1 else keys[0]
        else:
            key = atom_key(name, arity, {})
        found = {
            a
            for a in self.index.matching(key)
            if all(a.arguments[i] == v for i, v in bound.items())
        }
        found.update(self.overlay.matching(name, arity, bound))
        return sorted(found)

    def is_input(self, atom: clingo.Symbol) -> bool:
        """True when an indexed or new state carries the atom."""
        return self.overlay.is_input(atom) or bool(self.index.carriers(atom))

    def carriers(self, atom: clingo.Symbol) -> list[str]:
        """The indexed and new states carrying an atom, sorted by id."""
        found = self.index.carriers(atom)
        new = self._new_carriers.get(atom)
        return sorted({*found, *new}) if new else found

    def events(self, predicate: str) -> _Events:
        """The event dates of a predicate, indexed and new."""
        found = self._events.get(predicate)
        if found is None:
            found = self._events[predicate] = _Events(self.index.dates_of(predicate))
            for d in self.overlay.dates(predicate):
                found.add(d)
        return found

    def next_date(self, date: str, predicate: str) -> tuple[int, str] | None:
        """``next_date`` over the indexed and new atoms."""
        if date not in self._new_dates and not self.index.has_date(date):
            return None  # only dates some input carries have a next_date
        return self.events(predicate).next(date)

    def changed_next_dates(self) -> list[str]:
        """The ``next_date`` keys (:func:`~stategraph.topdown.next_date_key`) whose answer the
        new atoms change, for dates the index already holds (a new date has no watcher).

        A date's answer for a predicate changes only when one of the predicate's new event
        dates comes before its old answer, within the horizon; so only those dates are
        compared, and only against the new events.
        """
        added: dict[str, set[str]] = {}
        for predicate in self.overlay.date_predicates():
            known = set(self.index.dates_of(predicate))
            fresh = set(self.overlay.dates(predicate)) - known
            if fresh:
                added[predicate] = fresh
        if not added:
            return []
        out = []
        dates = [(d, _ordinal(d)) for d in self.index.all_dates()]
        for predicate, fresh in sorted(added.items()):
            before = _Events(self.index.dates_of(predicate))
            days = [_ordinal(f) for f in fresh]
            # a full date is moved only by a fresh event up to a horizon after it; dates of
            # other shapes (months, year-less) and fresh events of other shapes: check all
            windows = (
                None
                if None in days
                else [(d - NEXT_DATE_HORIZON, d) for d in days if d is not None]
            )
            for d, day in dates:
                if windows is not None and day is not None and not _within(day, windows):
                    continue
                candidates = [(n, f) for f in fresh if (n := days_between(d, f)) is not None]
                best = min(candidates, default=None)
                if best is None or best[0] > NEXT_DATE_HORIZON:
                    continue
                old = before.next(d)
                if old is None or best < old:
                    out.append(next_date_key(d, predicate))
        return out
