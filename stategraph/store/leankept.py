"""What the lean read of a store learns about heads, kept between revisions.

A dense fact re-justifies the few hundred members of its group, and so does the next dense fact
of the same pattern: each revision's lean read (:meth:`SQLiteStore.lean_heads
<stategraph.store.SQLiteStore.lean_heads>`) read every member's sixty-four justifications again,
to learn what the revision before had just written. The answer per head, the premises of its
justifications (sorted) and whether all of them are plain, is kept here instead, and each
commit moves it with the rows it writes (:meth:`LeanKept.moved`), exactly as the statements
move the table.

What is kept is valid for one state of the store: the log's head and SQLite's ``PRAGMA
data_version`` (which changes when another connection commits). Any write logs an entry, so a
write that did not go through :meth:`LeanKept.moved` (a bulk load, another process) leaves
the kept answers for a head that is no longer the log's, and they are dropped at the next read;
a rollback drops them too (:meth:`SQLiteStore._rolled_back
<stategraph.store.SQLiteStore._rolled_back>`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from stategraph.model import Justification, Origin

__all__ = ["At", "LeanKept", "Premises"]

At = tuple[int | None, tuple[int, str]]
"""A state of the store: ``PRAGMA data_version`` and the log's head ``(seq, hash)``."""

Ids = tuple[str, ...]

Premises = tuple[Ids, ...]
"""The premises of each justification of a head, sorted."""

MAX_HEADS = 200_000
"""Heads kept at most (about 100 bytes each besides the premise lists, which the members of a
group share): a read that would keep more starts afresh (:meth:`LeanKept.room`)."""


@dataclass
class LeanKept:
    """The premises and plainness of heads, as of one state of the store (:data:`At`).

    Attributes:
        at: the state of the store the answers hold for.
        heads: each head's premises and whether every justification it has is plain (no
            ``unless``, not ``recovered``, an ``extra`` column of rules alone).
    """

    at: At
    heads: dict[str, tuple[Premises, bool]] = field(default_factory=dict)

    def room(self, more: int) -> bool:
        """Whether ``more`` heads can be kept besides these within :data:`MAX_HEADS` (a read
        that asks for more starts afresh, so nothing it needs is dropped while it reads)."""
        return len(self.heads) + more <= MAX_HEADS

    def keep(self, head: str, premises: Premises, plain: bool) -> None:
        """Keep a head's answer as read from the store at :attr:`at`."""
        self.heads[head] = (premises, plain)

    def moved(
        self,
        at: At,
        removed: Sequence[tuple[str, Ids, Ids]],
        added: Iterable[Justification],
    ) -> None:
        """Move the kept answers by one commit: its statements delete ``removed`` and then
        insert (or replace) ``added``, and the store is then at ``at``.

        Args:
            at: the state of the store after the commit.
            removed: the identities the commit deletes.
            added: the justifications it inserts or replaces.

        A head that is not plain, or that gets a justification that is not, is dropped (its
        plainness may come back with a deletion, which only a read can tell).
        """
        gone: dict[str, set[Ids]] = {}
        for head, ids, _unless in removed:
            if head in self.heads:
                gone.setdefault(head, set()).add(ids)
        came: dict[str, set[Ids]] = {}
        spoilt: set[str] = set()
        for j in added:
            if j.head not in self.heads:
                continue
            came.setdefault(j.head, set()).add(j.premises)
            # as the read tells it: an extra column of rules alone is one with nothing else
            if j.unless or j.origin is Origin.recovered or j.checked or j.notes or j.proposed:
                spoilt.add(j.head)
        shared: dict[tuple[Premises, frozenset[Ids], frozenset[Ids]], Premises] = {}
        for head in gone.keys() | came.keys():
            premises, plain = self.heads[head]
            if not plain or head in spoilt:
                del self.heads[head]
                continue
            out, into = frozenset(gone.get(head, ())), frozenset(came.get(head, ()))
            moved = shared.get((premises, out, into))
            if moved is None:  # the members of a group move alike: one list for them all
                moved = tuple(sorted(set(premises).difference(out) | into))
                shared[premises, out, into] = moved
            self.heads[head] = (moved, True)
        self.at = at
