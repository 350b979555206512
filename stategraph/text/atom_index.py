"""The store's index of grounded atoms, and what each linked memory's derivations looked at.

Incremental linking (:class:`~stategraph.text.linking.IncrementalLinker`) never reads the whole
store. It needs three things, kept here in the same SQLite file as the memory:

- ``atoms`` / ``atom_keys``: every atom a memory carries (retracted and superseded ones too:
  linking sees them all), found by predicate, or by predicate and one argument;
- ``input_dates``: the date strings the atoms carry, by predicate, for the ``next_date``
  builtin (the event of a predicate that first follows a date);
- ``link_atoms`` and ``atom_watches``: the atoms whose firings linking keeps (the *demanded*
  atoms, :mod:`stategraph.text.linking`: those derived memories carry and those firings cite),
  and for each the lookup patterns evaluating its firings read
  (:attr:`~stategraph.text.topdown.Goals.keys`). A new atom that matches none of them, and a
  ``next_date`` that none of them asked for, cannot change the atom's firings; so a change
  evaluates again exactly the atoms watching what it brings (a pattern a thousand memories'
  atom shares is one watch, not a thousand).

Rows are written in the revision's transaction (:func:`write`), so the index is always that of
the committed store.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime
import functools
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import clingo

from stategraph.grounding.packs import NEXT_DATE_HORIZON, days_between, is_date, next_event
from stategraph.model import State
from stategraph.text.topdown import AtomSet, atom_key, next_date_key, symbol_args, symbol_text

if TYPE_CHECKING:
    from stategraph.engine.policy import Policy

__all__ = ["LEGACY_TABLES", "LINKED_SETTING", "SCHEMA", "LinkIndex", "StoreInputs", "write"]

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
CREATE TABLE IF NOT EXISTS link_atoms (
    atom TEXT NOT NULL PRIMARY KEY  -- an atom whose firings linking keeps (demanded)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS atom_watches (
    key TEXT NOT NULL,              -- a lookup pattern (topdown.atom_key, next_date_key)
    atom TEXT NOT NULL,             -- a demanded atom whose firings read it
    PRIMARY KEY (key, atom)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS atom_watches_by_atom ON atom_watches (atom);
"""

LINKED_SETTING = "link_atoms"
"""The setting naming the packs for which every demanded atom and its watches are recorded;
None (or other packs, or a store linked before atom nodes): the next change relinks every
memory afresh and records them."""

LEGACY_TABLES = ("link_groups", "group_watches")
"""The tables linking kept before atom nodes (a store's groups of memories and their
watches): dropped when such a store is relinked."""


@functools.lru_cache(maxsize=1 << 18)
def _parse(text: str) -> clingo.Symbol:
    """An indexed atom back as a symbol (cached: parsing goes through the C library)."""
    return clingo.parse_term(text)


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


def _select_in(conn: sqlite3.Connection, sql: str, values: Iterable[str]) -> Iterator[Any]:
    """Run ``sql`` (with one ``{}`` for the ``IN`` list) over the distinct values, sorted, 500
    at a time (well under SQLite's limit on variables)."""
    unique = sorted(set(values))
    for i in range(0, len(unique), 500):
        chunk = unique[i : i + 500]
        yield from conn.execute(sql.format(",".join("?" * len(chunk))), chunk)


class _DateLog:
    """The ``input_dates`` rows one SQLite connection has written, in order, each once: what
    keeps a :class:`LinkIndex`'s dates current without reading them all again.

    ``epoch`` moves when a rollback on the connection undoes rows (:func:`rolled_back`); a
    reader then reads the table afresh. Commits of other connections are seen through
    ``PRAGMA data_version``.
    """

    __slots__ = ("epoch", "rows", "seen")

    def __init__(self) -> None:
        self.rows: list[tuple[str, str]] = []
        self.seen: set[tuple[str, str]] = set()
        self.epoch = 0

    def record(self, rows: Iterable[tuple[str, str]]) -> None:
        for row in rows:
            if row not in self.seen:
                self.seen.add(row)
                self.rows.append(row)


_LOG = "_stategraph_date_log"
"""The attribute of a SQLite connection that holds its :class:`_DateLog`."""


def _date_log(conn: object, create: bool = False) -> _DateLog | None:
    """The date log of a connection: made by the first :class:`LinkIndex` of a SQLite
    connection, None elsewhere (another store's connection keeps none)."""
    log = getattr(conn, _LOG, None)
    if log is None and create and isinstance(conn, sqlite3.Connection):
        try:
            setattr(conn, _LOG, _DateLog())
        except AttributeError:  # a plain sqlite3.Connection takes no attributes
            return None
        log = getattr(conn, _LOG)
    return log if isinstance(log, _DateLog) else None


def rolled_back(conn: object) -> None:
    """Tell the index's readers that a rollback on ``conn`` undid rows it wrote."""
    log = _date_log(conn)
    if log is not None:
        log.rows.clear()
        log.seen.clear()
        log.epoch += 1


def write(
    conn: sqlite3.Connection,
    states: Iterable[State],
    demand_add: Sequence[str] = (),
    demand_drop: Sequence[str] = (),
    watch_add: Sequence[tuple[str, str]] = (),
    watch_drop: Sequence[tuple[str, str]] = (),
    reset: bool = False,
) -> None:
    """Index new states' atoms, and record the atoms linking now demands or no longer does
    and the watches their firings gained and lost (``(key, atom)``), inside the revision's
    transaction (``reset``: forget every demanded atom and watch first, as a relink from
    scratch does). Atoms that do not parse are skipped: linking reports them."""
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
        log = _date_log(conn)
        if log is not None:
            log.record(sorted(dates))
    if reset:
        conn.execute("DELETE FROM link_atoms")
        conn.execute("DELETE FROM atom_watches")
    if demand_drop:
        conn.executemany("DELETE FROM link_atoms WHERE atom = ?", [(a,) for a in demand_drop])
    if watch_drop:
        conn.executemany("DELETE FROM atom_watches WHERE key = ? AND atom = ?", watch_drop)
    if demand_add:
        conn.executemany("INSERT OR IGNORE INTO link_atoms VALUES (?)", [(a,) for a in demand_add])
    if watch_add:
        conn.executemany("INSERT OR IGNORE INTO atom_watches VALUES (?, ?)", watch_add)


class LinkIndex:
    """Reads of the index (its tables are part of the store's schema: :data:`SCHEMA`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._events: dict[str, tuple[int, _Events]] = {}
        # On a SQLite connection, the dates read are kept and brought up to date from the
        # connection's log of the rows it writes (dates are only ever added): the events of
        # each predicate, and every date (:meth:`dates`). Elsewhere they are read each time.
        self._log = _date_log(conn, create=True)
        self._dates: _Dates | None = None
        self._synced = (-1, -1, 0)  # the log's epoch, data_version, rows applied

    def _sync(self) -> bool:
        """Bring the kept dates up to date (True), or forget them (False: read afresh)."""
        log = self._log
        if log is None:
            return False
        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        epoch, seen_version, applied = self._synced
        if epoch != log.epoch or seen_version != version:
            self._events.clear()
            self._dates = None
            self._synced = (log.epoch, version, len(log.rows))
            return True
        if applied < len(log.rows):
            for predicate, date in log.rows[applied:]:
                cached = self._events.get(predicate)
                if cached is not None:
                    cached[1].add(date)
                if self._dates is not None:
                    self._dates.add(date)
            self._synced = (epoch, version, len(log.rows))
        return True

    def version(self) -> tuple[int, int] | None:
        """What moves when the index changes other than by this connection's commits: a
        rollback on it (its date log's epoch), another connection's commit (SQLite's
        ``data_version``); None where the connection keeps no date log."""
        if self._log is None:
            return None
        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        return (self._log.epoch, version)

    def matching(self, key: str) -> list[clingo.Symbol]:
        """The atoms indexed under one ``atom_keys`` key."""
        rows = self.conn.execute("SELECT atom FROM atom_keys WHERE key = ?", (key,))
        return [_parse(r[0]) for r in rows]

    def count(self, key: str, cap: int) -> int:
        """How many atoms one key holds, counting no further than ``cap``."""
        sql = "SELECT count(*) FROM (SELECT 1 FROM atom_keys WHERE key = ? LIMIT ?)"
        return int(self.conn.execute(sql, (key, cap)).fetchone()[0])

    def carriers(self, atom: clingo.Symbol) -> list[tuple[str, bool]]:
        """The states carrying an atom, sorted by id, each with whether it is active (not
        retracted or superseded)."""
        sql = (
            "SELECT a.state_id, s.active FROM atoms a JOIN states s ON s.id = a.state_id "
            "WHERE a.atom = ? ORDER BY a.state_id"
        )
        return [(r[0], bool(r[1])) for r in self.conn.execute(sql, (symbol_text(atom),))]

    def carried(self, atom: clingo.Symbol) -> bool:
        """Whether some state carries an atom (one row read, not the thousands a dense atom's
        carriers are)."""
        sql = "SELECT 1 FROM atoms WHERE atom = ? LIMIT 1"
        return self.conn.execute(sql, (symbol_text(atom),)).fetchone() is not None

    def dates_of(self, predicate: str) -> list[str]:
        """The date strings the atoms of a predicate carry."""
        sql = "SELECT date FROM input_dates WHERE predicate = ?"
        return [r[0] for r in self.conn.execute(sql, (predicate,))]

    def events(self, predicate: str) -> _Events:
        """The event dates of a predicate, indexed for ``next_date`` (kept between calls while
        the predicate gains no date: dates are only ever added)."""
        if self._sync():
            found = self._events.get(predicate)
            if found is None:
                found = self._events[predicate] = (0, _Events(self.dates_of(predicate)))
            return found[1]
        sql = "SELECT count(*) FROM input_dates WHERE predicate = ?"
        count = int(self.conn.execute(sql, (predicate,)).fetchone()[0])
        cached = self._events.get(predicate)
        if cached is None or cached[0] != count:
            cached = self._events[predicate] = (count, _Events(self.dates_of(predicate)))
        return cached[1]

    def known_dates(self, predicate: str, dates: Iterable[str]) -> set[str]:
        """Which of these date strings the atoms of a predicate carry already (the dates
        looked up, not every date of the predicate)."""
        sql = "SELECT predicate, date FROM input_dates WHERE date IN ({})"
        return {d for p, d in _select_in(self.conn, sql, dates) if p == predicate}

    def all_dates(self) -> list[str]:
        """Every date string any atom carries."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT date FROM input_dates")]

    def dates(self) -> _Dates:
        """Every date string any atom carries, full dates in order (do not change it)."""
        if not self._sync():
            return _Dates(self.all_dates())
        if self._dates is None:
            self._dates = _Dates(self.all_dates())
        return self._dates

    def date_predicates(self) -> list[str]:
        """The predicates whose atoms carry dates."""
        sql = "SELECT DISTINCT predicate FROM input_dates"
        return [r[0] for r in self.conn.execute(sql)]

    def has_date(self, date: str) -> bool:
        """True when some atom carries the date."""
        sql = "SELECT 1 FROM input_dates WHERE date = ? LIMIT 1"
        return self.conn.execute(sql, (date,)).fetchone() is not None

    def watchers(self, keys: Iterable[str]) -> set[str]:
        """The demanded atoms whose firings read any of these keys."""
        sql = "SELECT atom FROM atom_watches WHERE key IN ({})"
        return {r[0] for r in _select_in(self.conn, sql, keys)}

    def watches(self, atom: str) -> set[str]:
        """The keys a demanded atom's firings read."""
        sql = "SELECT key FROM atom_watches WHERE atom = ?"
        return {r[0] for r in self.conn.execute(sql, (atom,))}

    def demanded(self, atom: str) -> bool:
        """Whether linking keeps the atom's firings."""
        sql = "SELECT 1 FROM link_atoms WHERE atom = ?"
        return self.conn.execute(sql, (atom,)).fetchone() is not None

    def cited(self, node: str) -> bool:
        """Whether some ``rule:`` node's justification cites this ``atom:`` node (its edges
        into such a node: one row read)."""
        sql = "SELECT 1 FROM edges WHERE src = ? AND head >= 'rule:' AND head < 'rule;' LIMIT 1"
        return self.conn.execute(sql, (node,)).fetchone() is not None

    def has_justification(self, head: str) -> bool:
        """Whether a state has a justification (one row read)."""
        sql = "SELECT 1 FROM justifications WHERE head = ? LIMIT 1"
        return self.conn.execute(sql, (head,)).fetchone() is not None

    def carriers_with_kind(self, atom: str) -> list[tuple[str, str]]:
        """The states carrying an atom (as printed), with their kinds, sorted by id."""
        sql = (
            "SELECT a.state_id, s.kind FROM atoms a JOIN states s ON s.id = a.state_id "
            "WHERE a.atom = ? ORDER BY a.state_id"
        )
        return [(r[0], r[1]) for r in self.conn.execute(sql, (atom,))]

    def carried_by_derived(self, atom: str, policy: Policy) -> bool:
        """Whether a derived memory (of the policy's kinds) carries the atom."""
        return any(
            not policy.is_exogenous(_Carrier(sid, kind))
            for sid, kind in self.carriers_with_kind(atom)
        )

    def atoms_of(self, state_id: str) -> list[str]:
        """The atoms a state carries, as printed, sorted."""
        sql = "SELECT atom FROM atoms WHERE state_id = ? ORDER BY atom"
        return [r[0] for r in self.conn.execute(sql, (state_id,))]


@dataclasses.dataclass(frozen=True)
class _Carrier:
    """A carrier as the policy reads it (its id and kind)."""

    id: str
    kind: str


class _Dates:
    """A set of date strings, the full dates (:func:`_ordinal`) sorted by day, for
    :meth:`StoreInputs.changed_next_dates`."""

    def __init__(self, dates: Iterable[str]) -> None:
        self.known = set(dates)
        full = sorted((day, d) for d in self.known if (day := _ordinal(d)) is not None)
        self.days = [day for day, _d in full]
        self.full = [d for _day, d in full]
        self.other = sorted(d for d in self.known if _ordinal(d) is None)

    def add(self, date: str) -> None:
        """Add a date (a no-op when it is there)."""
        if date in self.known:
            return
        self.known.add(date)
        day = _ordinal(date)
        if day is None:
            bisect.insort(self.other, date)
            return
        i = bisect.bisect_left(self.days, day)
        while i < len(self.days) and self.days[i] == day and self.full[i] < date:
            i += 1  # (day, date) order, as sorting the pairs gives
        self.days.insert(i, day)
        self.full.insert(i, date)


class _Events:
    """The event dates of one predicate, for ``next_date``, kept so that the nearest event
    on or after a full date is found by bisection: full dates sorted by day, months
    (``YYYY-MM``, counted 30 days apart) sorted by month, and year-less dates, as few as
    they are, checked one by one. Dates of other shapes ask the reference,
    :func:`~stategraph.grounding.packs.next_event`."""

    def __init__(self, dates: Iterable[str]) -> None:
        full: list[tuple[int, str]] = []
        months: list[tuple[int, str]] = []
        self.yearless: list[str] = []
        for d in set(dates):
            if (day := _ordinal(d)) is not None:
                full.append((day, d))
            elif (month := _month(d)) is not None:
                months.append((month, d))
            else:
                self.yearless.append(d)
        full.sort()
        months.sort()
        self.days = [k for k, _ in full]
        self.full = [d for _, d in full]
        self.month_keys = [k for k, _ in months]
        self.months = [d for _, d in months]

    def copy(self) -> _Events:
        """An independent copy (to add a change's dates to without touching a cached one)."""
        other = _Events(())
        other.days, other.full = list(self.days), list(self.full)
        other.month_keys, other.months = list(self.month_keys), list(self.months)
        other.yearless = list(self.yearless)
        return other

    def add(self, date: str) -> None:
        """Add an event date (a no-op when it is there)."""
        day = _ordinal(date)
        if day is not None:
            _insert(self.days, self.full, day, date)
        elif (month := _month(date)) is not None:
            _insert(self.month_keys, self.months, month, date)
        elif date not in self.yearless:
            self.yearless.append(date)

    def next(self, date: str) -> tuple[int, str] | None:
        """:func:`~stategraph.grounding.packs.next_event` over these dates."""
        day = _ordinal(date)
        month = _month(date[:7])
        if month is None or (day is None and len(date) != 7):  # a year-less date: rare
            return next_event(date, [*self.full, *self.months, *self.yearless])
        best: tuple[int, str] | None = None
        if day is not None:  # distinct full dates: the first on or after is the nearest
            i = bisect.bisect_left(self.days, day)
            if i < len(self.days):
                best = (self.days[i] - day, self.full[i])
        else:  # a month: 30 days a month, so the earliest date of the first month on or after
            i = bisect.bisect_left(self.days, _first_day(month))
            if i < len(self.days):
                best = (30 * (_month(self.full[i][:7]) - month), self.full[i])  # type: ignore[operator]
        j = bisect.bisect_left(self.month_keys, month)
        if j < len(self.month_keys):  # a month is 30 days: the first month on or after
            found = (30 * (self.month_keys[j] - month), self.months[j])
            best = found if best is None or found < best else best
        if self.yearless:
            found_ = next_event(date, self.yearless)
            if found_ is not None and (best is None or found_ < best):
                best = found_
        return None if best is None or best[0] > NEXT_DATE_HORIZON else best


def _insert(keys: list[int], values: list[str], key: int, value: str) -> None:
    i = bisect.bisect_left(keys, key)
    if i == len(keys) or values[i] != value:
        keys.insert(i, key)
        values.insert(i, value)


def _first_day(month: int) -> int:
    """The day number of the first day of a month number (:func:`_month`)."""
    return datetime.date(month // 12, month % 12 + 1, 1).toordinal()


@functools.lru_cache(maxsize=65536)
def _month(date: str) -> int | None:
    """The month number of a ``YYYY-MM`` date (year times 12 plus month), else None."""
    if len(date) != 7 or not date[:4].isdigit() or date[4] != "-" or not is_date(date):
        return None
    return int(date[:4]) * 12 + int(date[5:7]) - 1


@functools.lru_cache(maxsize=65536)
def _ordinal(date: str) -> int | None:
    """The day number of a full ``YYYY-MM-DD`` date, else None."""
    if len(date) != 10 or date[4] != "-" or date[7] != "-" or not is_date(date):
        return None
    return datetime.date.fromisoformat(date).toordinal()


class StoreInputs:
    """:class:`~stategraph.text.topdown.Inputs` over the index, with the atoms of a change not
    yet committed laid over it.

    Args:
        index: the store's index.
        new: the atoms the change brings, by the states carrying them.
    """

    def __init__(
        self,
        index: LinkIndex,
        new: Mapping[str, Sequence[clingo.Symbol]],
    ) -> None:
        self.index = index
        self.overlay = AtomSet(a for atoms in new.values() for a in atoms)
        self._events: dict[str, _Events] = {}
        self._new_dates = {d for atoms in new.values() for a in atoms for d in _dates(a)}

    def matching(
        self, name: str, arity: int, bound: dict[int, clingo.Symbol]
    ) -> Sequence[clingo.Symbol]:
        """Indexed and new atoms ``name/arity`` with these arguments at the bound positions."""
        if bound:
            keys = [atom_key(name, arity, {i: v}) for i, v in bound.items()]
            key = self._most_selective(keys)
        else:
            key = atom_key(name, arity, {})
        found = {
            a
            for a in self.index.matching(key)
            if all(symbol_args(a)[i] == v for i, v in bound.items())
        }
        found.update(self.overlay.matching(name, arity, bound))
        return sorted(found)

    def _most_selective(self, keys: list[str]) -> str:
        """The first of the keys holding the fewest atoms, counted up to 10,000 (the first
        key when they all hold that many).

        Each key is counted no further than the fewest so far, and first no further than 64:
        a key under that is found without counting the large ones to the end.
        """
        if len(keys) == 1:
            return keys[0]
        for cap in (64, 10_000):
            found, best = None, cap
            for k in keys:
                n = self.index.count(k, best)
                if n < best:
                    found, best = k, n
                    if best == 0:
                        break
            if found is not None:
                return found
        return keys[0]

    def is_input(self, atom: clingo.Symbol) -> bool:
        """True when an indexed or new state carries the atom."""
        return self.overlay.is_input(atom) or self.index.carried(atom)

    def events(self, predicate: str) -> _Events:
        """The event dates of a predicate, indexed and new."""
        found = self._events.get(predicate)
        if found is None:
            found = self._events[predicate] = self.index.events(predicate).copy()
            for d in self.overlay.dates(predicate):
                found.add(d)
        return found

    def next_date(self, date: str, predicate: str) -> tuple[int, str] | None:
        """``next_date`` over the indexed and new atoms."""
        if date not in self._new_dates and not self.index.has_date(date):
            return None  # only dates some input carries have a next_date
        return self.events(predicate).next(date)

    def changed_next_dates(self) -> list[str]:
        """The ``next_date`` keys (:func:`~stategraph.text.topdown.next_date_key`) whose answer the
        new atoms change, for dates the index already holds (a new date has no watcher).

        A date's answer for a predicate changes only when one of the predicate's new event
        dates comes before its old answer, within the horizon; so only those dates are
        compared, and only against the new events.
        """
        added: dict[str, set[str]] = {}
        for predicate in self.overlay.date_predicates():
            dates = set(self.overlay.dates(predicate))
            fresh = dates - self.index.known_dates(predicate, dates)
            if fresh:
                added[predicate] = fresh
        if not added:
            return []
        out = []
        everything = self.index.dates()
        other, full, days_of_full = everything.other, everything.full, everything.days
        for predicate, fresh in sorted(added.items()):
            before = self.index.events(predicate)
            ends = [_ordinal(f) for f in fresh]
            if None in ends:  # a fresh month or year-less date: any date may move
                near = full + other
            else:
                # a full date is moved only by a fresh event up to a horizon after it
                near = list(other)
                for end in sorted({e for e in ends if e is not None}):
                    lo = bisect.bisect_left(days_of_full, end - NEXT_DATE_HORIZON)
                    hi = bisect.bisect_right(days_of_full, end)
                    near += full[lo:hi]
            for d in dict.fromkeys(near):
                candidates = [(n, f) for f in fresh if (n := days_between(d, f)) is not None]
                best = min(candidates, default=None)
                if best is None or best[0] > NEXT_DATE_HORIZON:
                    continue
                old = before.next(d)
                if old is None or best < old:
                    out.append(next_date_key(d, predicate))
        return out
