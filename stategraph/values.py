"""The model's value sets: the enumerations its fields take, importable on their own.

They are plain ``StrEnum`` classes, so the paths that only read a store and print (``stategraph
show``, ``why``) can compare and print them without importing pydantic and clingo, which
:mod:`stategraph.model` needs and which cost most of a command's start-up. The model re-exports
every name here: ``stategraph.model.Truth`` is this ``Truth``.
"""

from __future__ import annotations

import enum

__all__ = [
    "FALSE",
    "TRUE",
    "TRUTH_OF",
    "UNDEFINED",
    "ActionStatus",
    "Consequence",
    "DecidedBy",
    "Decision",
    "EdgeCheck",
    "Origin",
    "ReversalPolicy",
    "Source",
    "Truth",
    "Verdict",
]


class Source(enum.StrEnum):
    """Who wrote a state."""

    user = "user"
    agent = "agent"
    tool = "tool"


class ActionStatus(enum.StrEnum):
    """Whether an action has been carried out; decides how a lost action is graded."""

    pending = "pending"
    executed = "executed"


class Origin(enum.StrEnum):
    """Where a justification came from.

    ``recovered`` justifications are candidates (the memories that were in context when a
    state was written, or that the engine proposed for a state written without a basis):
    until each premise is checked they support their head only as far as the unchecked
    premises still hold; when one fails, the head becomes undecided. ``judge``
    justifications rest on the support a counterfactual judge named; ``assumed`` ones have no
    premises at all (a derived state written with no basis and nothing to propose holds as an
    assumption of its source); ``review`` ones record a person's confirmation.
    """

    declared = "declared"
    rule = "rule"
    recovered = "recovered"
    judge = "judge"
    assumed = "assumed"
    review = "review"


class EdgeCheck(enum.StrEnum):
    """The outcome of checking one candidate premise of a ``recovered`` justification."""

    dependency = "dependency"
    independent = "independent"


class Truth(enum.StrEnum):
    """A state's value in the well-founded model."""

    true = "true"
    false = "false"
    undefined = "undefined"


# For the hot loops of revision: on Python 3.11 reading a member off its enum (``Truth.true``)
# costs about 60 ns, a module global 6 ns, and a large cone compares truth values millions of
# times.
TRUE, FALSE, UNDEFINED = Truth.true, Truth.false, Truth.undefined
TRUTH_OF = {t.value: t for t in Truth}
"""A stored truth value's member (a dict lookup: calling ``Truth(text)`` costs ten times as
much)."""


class Verdict(enum.StrEnum):
    """What a revision concluded about a touched state."""

    invalidated = "invalidated"
    kept = "kept"
    needs_confirmation = "needs_confirmation"
    restored = "restored"


class DecidedBy(enum.StrEnum):
    """Which layer decided a verdict."""

    logic = "logic"
    judge = "judge"
    policy = "policy"


class Consequence(enum.StrEnum):
    """What must happen to an action whose support changed."""

    cancel = "cancel"
    review = "review"


class ReversalPolicy(enum.StrEnum):
    """What a memory does with a new fact that reads as reversing or replacing a holding one
    (``Memory(reversals=...)``, kept in the store; :mod:`stategraph.text.reversals`)."""

    supersede = "supersede"
    """Supersede the old fact when the reading is clean; ask otherwise (the default)."""
    ask = "ask"
    """Always ask: the old fact and what rests on it wait for a person, values kept."""
    check = "check"
    """As ``supersede``; and, with a judge, every new fact is put to it beside the holding
    facts it shares the most evidence with, whether or not its reading finds a turn (a judge
    request for most new facts)."""


class Decision(enum.StrEnum):
    """What a person decided about a state flagged ``needs_confirmation``."""

    confirmed = "confirmed"
    rejected = "rejected"
