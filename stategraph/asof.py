"""The memory as it was: a read-only view after one revision (:meth:`Memory.as_of
<stategraph.memory.Memory.as_of>`).

"When the agent executed action m3, what did it hold, and on what basis?" The view answers
the memory's queries (``truth``, ``holding``, ``states``, ``why``, ``why_not``, ``recall``,
``pending_review``) exactly as they were after that revision: the same answers a memory
rebuilt by replaying the log up to it would give. It does not replay: the store keeps the
versions revisions replaced (:mod:`stategraph.store.past`), and the view reads them
(:class:`~stategraph.store.asof.PastStore`), so a past read costs about what a present one
does.

The view has no method that writes; the memory goes on being revised meanwhile, and the view
keeps showing the revision it was made for.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from stategraph.engine.explain import Proof, WhyNot, why, why_not
from stategraph.engine.policy import Policy
from stategraph.errors import InvalidInputError, UnknownStateError
from stategraph.model import Justification, State, Truth, normalise_id
from stategraph.nodes import is_internal
from stategraph.review.confirm import PendingReview, pending_review
from stategraph.store.asof import PastStore

if TYPE_CHECKING:
    from stategraph.recall import Recalled

__all__ = ["MemoryAsOf"]


def _id(state_id: str) -> str:
    try:
        return normalise_id(state_id)
    except ValueError as exc:
        raise InvalidInputError("id", [("id", str(exc))]) from None


class MemoryAsOf:
    """A memory as it was after revision :attr:`seq` (read-only).

    Attributes:
        seq: the revision shown.
        store: the past reads (:class:`~stategraph.store.asof.PastStore`).
        policy: the memory's policy (kinds and grading are not revised).
        grounder: the memory's grounder (recall grounds queries with it).
    """

    def __init__(self, store: PastStore, policy: Policy, grounder: str | None) -> None:
        self.store = store
        self.seq = store.seq
        self.policy = policy
        self.grounder = grounder

    @functools.cached_property
    def at(self) -> str:
        """When the revision shown was committed (UTC, ISO 8601)."""
        conn = self.store.conn
        row = conn.execute("SELECT at FROM revisions WHERE seq=?", (self.seq,)).fetchone()
        return str(row[0]) if row is not None else ""

    def __repr__(self) -> str:
        return f"<MemoryAsOf revision {self.seq} at {self.at}>"

    def _row(self, state_id: str) -> tuple[State, bool, Truth]:
        state_id = _id(state_id)
        found = self.store.state(state_id)
        if found is None:
            raise UnknownStateError(state_id, f"as of revision {self.seq}")
        return found

    def truth(self, state_id: str) -> Truth:
        """A state's value then.

        Raises:
            UnknownStateError: the state did not exist then.
        """
        return self._row(state_id)[2]

    def holding(self) -> frozenset[str]:
        """Ids of every memory that held then (atom nodes left out, as :class:`Memory`'s)."""
        return frozenset(s for s in self.store.ids_with_truth(Truth.true) if not is_internal(s))

    def undefined(self) -> frozenset[str]:
        """Ids of every memory undecided then."""
        ids = self.store.ids_with_truth(Truth.undefined)
        return frozenset(s for s in ids if not is_internal(s))

    def state(self, state_id: str) -> State:
        """One state that existed then (a state's content is never revised)."""
        return self._row(state_id)[0]

    def states(self) -> list[State]:
        """Every memory that existed then, active or not, sorted by id."""
        return [s for s in self.store.states() if not is_internal(s.id)]

    def is_active(self, state_id: str) -> bool:
        """Whether the state was neither retracted nor superseded then."""
        return self._row(state_id)[1]

    def justifications(self, head: str | None = None) -> list[Justification]:
        """Every justification then (or those of one head), sorted."""
        if head is not None:
            head = self._row(head)[0].id
        return self.store.justifications(head)

    def why(self, state_id: str) -> Proof:
        """The proof the state held by then."""
        state_id = _id(state_id)
        return why(self.store.ancestors(state_id), self.policy, state_id)

    def why_not(self, state_id: str) -> WhyNot:
        """What stopped each of the state's justifications then."""
        state_id = _id(state_id)
        return why_not(self.store.subgraph([state_id]), self.policy, state_id)

    def pending_review(self) -> list[PendingReview]:
        """The states that were waiting for a person then, oldest flag first."""
        return pending_review(self.store, self.policy)

    def recall(
        self,
        query: str,
        k: int = 10,
        *,
        kinds: Sequence[str] | None = None,
        include_doubtful: bool = True,
        include_invalidated: bool = False,
    ) -> list[Recalled]:
        """:meth:`Memory.recall <stategraph.memory.Memory.recall>` with each memory's status
        as it was then, and only the memories that existed then.

        The ranking is the present full-text index's: a memory's text is never revised, so
        the match is the same, but the index's word statistics (BM25's document frequencies)
        are today's, so scores, and the order of close matches, can differ from a recall made
        at the time. Which memories come back, and their statuses, are the past's.
        """
        from stategraph.recall import recall

        return recall(
            self,
            query,
            k,
            kinds=kinds,
            include_doubtful=include_doubtful,
            include_invalidated=include_invalidated,
        )
