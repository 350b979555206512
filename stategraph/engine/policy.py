"""Per-kind policy: which kinds are exogenous, and how a lost action is graded.

Logic decides what holds; policy decides what a change in truth *means* for a kind. A pending
action that lost its support must be cancelled; an executed one cannot be undone by deleting a
record, so a person or agent has to review it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from stategraph.errors import InvalidInputError, InvalidKindError
from stategraph.nodes import ATOM_KIND
from stategraph.values import ActionStatus

if TYPE_CHECKING:
    from stategraph.model import State

__all__ = ["KindPolicy", "Kinded", "Policy"]


class Kinded(Protocol):
    """What the policy reads of a state (a :class:`~stategraph.model.State`, or a row read
    without the models)."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...


@dataclass(frozen=True, slots=True)
class KindPolicy:
    """How one kind of state behaves.

    Attributes:
        exogenous: the state holds because the world said so (a fact), not by justification.
        action: the state is an action with a pending/executed status that grades its loss.
    """

    exogenous: bool = False
    action: bool = False


_ATOM = KindPolicy()
"""The policy of the atom nodes rule links go through (:mod:`stategraph.nodes`): derived,
holding while justified, whatever kinds a memory accepts."""


def _default_kinds() -> dict[str, KindPolicy]:
    return {
        "fact": KindPolicy(exogenous=True),
        "belief": KindPolicy(),
        "plan": KindPolicy(),
        "action": KindPolicy(action=True),
    }


@dataclass(frozen=True)
class Policy:
    """The kinds a memory accepts and how each behaves. Extend with ``Policy.with_kind``."""

    kinds: Mapping[str, KindPolicy] = field(default_factory=_default_kinds)

    def __post_init__(self) -> None:
        if ATOM_KIND in self.kinds:
            raise InvalidInputError(
                "policy", [("kind", f"{ATOM_KIND!r} is reserved for the atom nodes of rule links")]
            )

    def of(self, state: Kinded) -> KindPolicy:
        """The policy of a state's kind.

        Raises:
            InvalidKindError: if the kind is not registered.
        """
        try:
            return self.kinds[state.kind]
        except KeyError:
            if state.kind == ATOM_KIND:
                return _ATOM
            raise InvalidKindError(state.kind, self.kinds, state.id) from None

    def is_exogenous(self, state: Kinded) -> bool:
        """True for facts: states that hold while active, without justification."""
        return self.of(state).exogenous

    def normalise(self, state: State) -> State:
        """Check the kind, and give actions their default status (pending)."""
        kp = self.of(state)
        if kp.action and state.status is None:
            return state.model_copy(update={"status": ActionStatus.pending})
        if not kp.action and state.status is not None:
            return state.model_copy(update={"status": None})
        return state

    def with_kind(self, name: str, kind: KindPolicy) -> Policy:
        """A copy of this policy that also accepts ``name``.

        Raises:
            InvalidInputError: for the kind reserved for atom nodes.
        """
        if name == ATOM_KIND:
            raise InvalidInputError(
                "policy", [("kind", f"{ATOM_KIND!r} is reserved for the atom nodes of rule links")]
            )
        return Policy({**self.kinds, name: kind})
