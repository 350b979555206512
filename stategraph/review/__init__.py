"""Human review: the states the engine could not settle, and a person's answer to each.

Owns the pending-review listing and confirm/reject (:mod:`.confirm`) and the checks on what a
caller's change may carry (:mod:`.provenance`). The queue's index itself is kept by the store
(:mod:`stategraph.store.review_queue`); exporting and verifying the log is
:mod:`stategraph.audit`, one layer above the memory.

May import: the root's ``errors``, ``model``, :mod:`stategraph.engine`, :mod:`stategraph.store`
and the layers below it.
"""

from stategraph.review.confirm import PendingReview, pending_review, review_change

__all__ = ["PendingReview", "pending_review", "review_change"]
