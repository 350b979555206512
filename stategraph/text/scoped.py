"""Candidate proposal kept inside a scope of ids: one user's memories never become candidate
premises of another's, though both live in one store.

A framework integration keeps many namespaces in one memory, each a prefix of ids
(``memories/u1/move``: :mod:`stategraph.integrations.ids`). Left alone, the proposer would
offer one user's "moves to Shenzhen" as the candidate basis of another user's "find a gym in
Shenzhen", and the question asked when it changed would quote it to the wrong user.
:class:`ScopedProposer` wraps a proposer so that it sees only the memories of the new memory's
scope: the labels of its id before the key, or the first ``depth`` of them.

The term statistics (document counts and frequencies) stay the store's: they only weigh
terms. The postings, recent and holding memories are read a few times deeper than the inner
proposer asks and filtered, so a scope crowded out of the store's newest memories may get
fewer candidates than the proposer's ``k`` (a memory with no candidate holds as an
assumption, as it would in a store of its own), never another scope's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from stategraph.model import Justification, State, Truth
from stategraph.text.candidates import Candidate, Proposer, TermIndex

__all__ = ["ScopedProposer", "scope_of"]

_WIDEN = 8
"""How many times deeper than asked a scoped read looks before filtering."""


def scope_of(state_id: str, separator: str = "/", depth: int | None = None) -> tuple[str, ...]:
    """The scope of an id: its labels before the last ``separator`` (the first ``depth`` of
    them); ``()`` for an id without one."""
    labels = state_id.split(separator)[:-1]
    return tuple(labels if depth is None else labels[:depth])


class _ScopedIndex:
    """A store's term index that answers only with memories of one scope."""

    def __init__(self, index: TermIndex, scope: tuple[str, ...], separator: str, depth: int | None):
        self.index = index
        self.scope = scope
        self.separator = separator
        self.depth = depth

    def _in(self, rows: list[tuple[int, str, int]], limit: int) -> list[tuple[int, str, int]]:
        kept = [r for r in rows if scope_of(r[1], self.separator, self.depth) == self.scope]
        return kept[:limit]

    def doc_count(self) -> int:
        return self.index.doc_count()

    def term_df(self, terms: Iterable[str]) -> dict[str, int]:
        return self.index.term_df(terms)

    def postings(self, term: str, limit: int) -> list[tuple[int, str, int]]:
        return self._in(self.index.postings(term, limit * _WIDEN), limit)

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        return self.index.truths(ids)

    def kinds(self, ids: Iterable[str]) -> dict[str, str]:
        return self.index.kinds(ids)

    def recent(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        return self._in(self.index.recent(limit * _WIDEN, kinds), limit)

    def holding(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        return self._in(self.index.holding(limit * _WIDEN, kinds), limit)

    def latest(self, limit: int) -> list[tuple[int, str, int, str]]:
        # the latest memories of the store, not of the scope: the turn is what was written
        # just before, whoever it was for; another scope's are left out
        rows = self.index.latest(limit)
        return [r for r in rows if scope_of(r[1], self.separator, self.depth) == self.scope]

    def in_session(
        self, session: str, limit: int, kinds: Iterable[str]
    ) -> list[tuple[int, str, int]]:
        return self._in(self.index.in_session(session, limit * _WIDEN, kinds), limit)

    def justifications_for(self, heads: Iterable[str]) -> list[Justification]:
        return self.index.justifications_for(heads)


class ScopedProposer:
    """A proposer that proposes, and names as blockers, only memories of the new memory's
    scope (:func:`scope_of`).

    Args:
        inner: the proposer to scope (``CandidateProposer()`` for the default one).
        separator: what separates an id's labels.
        depth: how many leading labels make a scope (None: all of them, the whole namespace).
    """

    name: ClassVar[str] = "scoped"

    def __init__(self, inner: Proposer, separator: str = "/", depth: int | None = None) -> None:
        if not separator:
            raise ValueError("a scope's separator is a non-empty string")
        if depth is not None and depth < 1:
            raise ValueError("a scope's depth is None or at least 1")
        self.inner = inner
        self.separator = separator
        self.depth = depth

    @property
    def k(self) -> int:
        """At most this many candidates per memory (the inner proposer's)."""
        return self.inner.k

    def config(self) -> dict[str, object]:
        """What the log records: the scope and the inner proposer's configuration."""
        return {
            "name": self.name,
            "separator": self.separator,
            "depth": self.depth,
            "inner": self.inner.config(),
        }

    def _index(self, index: TermIndex, state: State) -> Any:
        return _ScopedIndex(
            index, scope_of(state.id, self.separator, self.depth), self.separator, self.depth
        )

    def propose(
        self, index: TermIndex, state: State, exclude: Iterable[str] = (), limit: int | None = None
    ) -> list[Candidate]:
        """The inner proposer's candidates for ``state``, among its scope's memories."""
        return self.inner.propose(self._index(index, state), state, exclude, limit)

    def blockers(self, index: TermIndex, fact: State) -> list[Candidate]:
        """The memories of its scope a new fact may defeat."""
        return self.inner.blockers(self._index(index, fact), fact)
