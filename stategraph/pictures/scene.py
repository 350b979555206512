"""What a picture shows, as data: the states drawn, their justifications, and a revision's
verdicts.

Every renderer (DOT, Mermaid, the HTML page) draws the same :class:`Picture`, so the formats
cannot disagree about what is in it: they differ only in how they draw it. A picture is built
from the store as it is now (:mod:`stategraph.pictures.build`); for a revision it also carries
that revision's report, read from the log, which colours the states it touched.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from stategraph.model import (
    ActionStatus,
    Consequence,
    DecidedBy,
    EdgeCheck,
    JustificationRef,
    Origin,
    Reason,
    Truth,
    Verdict,
)

__all__ = ["Edge", "Picture", "StateNode", "Support"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class StateNode(BaseModel):
    """One state as drawn: what it is now, and what the pictured revision did to it."""

    model_config = _FROZEN

    id: str
    kind: str
    text: str
    truth: Truth
    """Its value in the store's current well-founded model."""
    active: bool
    superseded_by: str | None = None
    status: ActionStatus | None = None
    changed: str | None = None
    """What the revision's change itself did to it (``retracted``, ``superseded``,
    ``asserted``, ``justification_added``, ``justification_removed``)."""
    verdict: Verdict | None = None
    consequence: Consequence | None = None
    depth: int | None = None
    decided_by: DecidedBy | None = None
    reason: Reason | None = None
    hidden: int = 0
    """Neighbours (premises, conditions, dependents) of this state that are not drawn."""
    internal: bool = False
    """A support node that is not a memory (a ground atom's, between the memories that carry
    it and the rule instances that use it): the page folds it into the lines between
    memories (:mod:`stategraph.pictures.fold`) and never lists it as a memory."""


class Support(BaseModel):
    """One justification, drawn as an AND-node: all premises in, none of ``unless``, and the
    head holds. A head with several is visibly supported several ways."""

    model_config = _FROZEN

    key: str
    """``j0``, ``j1``, ... in the order of the justifications' identities (stable)."""
    head: str
    origin: Origin
    premises: tuple[str, ...]
    unless: tuple[str, ...] = ()
    checked: dict[str, EdgeCheck] = {}
    """For candidate (``recovered``) justifications: the premises already checked."""
    rules: tuple[str, ...] = ()
    notes: dict[str, str] = {}
    """Why each checked candidate was classified so; for ``review``: who, when and why."""
    value: Truth
    """Whether its body holds now."""
    role: str | None = None
    """In the pictured revision: ``lost`` (it held before and not after) or ``carries`` (the
    justification that keeps or restores its head)."""

    def ref(self) -> JustificationRef:
        """The justification as reports name it (what the shared wording takes)."""
        return JustificationRef(
            premises=self.premises,
            unless=self.unless,
            origin=self.origin,
            rules=self.rules,
            notes=self.notes,
        )

    def undrawn(self, drawn: frozenset[str]) -> int:
        """How many of its premises and conditions a picture drawing ``drawn`` leaves out."""
        return sum(s not in drawn for s in (*self.premises, *self.unless))

    def candidates(self) -> tuple[str, ...]:
        """Premises that are unverified candidates (drawn dotted)."""
        if self.origin is not Origin.recovered:
            return ()
        return tuple(p for p in self.premises if p not in self.checked)


@dataclass(frozen=True)
class Edge:
    """One line of the drawing, between a state and an AND-node.

    Attributes:
        src: a state id (``premise``, ``candidate``, ``independent``, ``unless``) or a
            support key (``head``).
        dst: a support key, or (for ``head``) the state it supports.
        kind: ``premise`` (solid), ``candidate`` (an unverified candidate premise: dotted),
            ``independent`` (a candidate checked and found not needed: dotted, grey),
            ``unless`` (dashed, ending in a bar) or ``head`` (from the AND-node to its head).
    """

    src: str
    dst: str
    kind: str


class Picture(BaseModel):
    """The part of a store a picture draws.

    Attributes:
        title: what the picture is of (the store's name, the revision).
        scope: which part of the store it draws, in words.
        states: the states drawn, sorted by id.
        supports: the justifications of the drawn states, sorted by head then identity.
            Premises and conditions outside ``states`` are not drawn (each state's ``hidden``
            counts them).
        left_out: states next to the drawn ones (within one more hop) that are not drawn.
        cut: the limit stopped the picture before everything within its hops was drawn.
        revision: the revision whose verdicts colour the states, if any.
        change: that revision's change in words.
        focus: the state a neighbourhood is drawn around.
    """

    model_config = _FROZEN

    title: str
    scope: str
    states: tuple[StateNode, ...]
    supports: tuple[Support, ...]
    left_out: int = 0
    cut: bool = False
    revision: int | None = None
    change: str = ""
    focus: str | None = None

    def ids(self) -> frozenset[str]:
        """The ids of the drawn states."""
        return frozenset(s.id for s in self.states)

    def edges(self) -> list[Edge]:
        """The lines to draw, support by support: premises and conditions that are drawn,
        then the line to the head."""
        drawn = self.ids()
        out: list[Edge] = []
        for j in self.supports:
            candidates = set(j.candidates())
            for p in j.premises:
                if p not in drawn:
                    continue
                if p in candidates:
                    kind = "candidate"
                elif j.checked.get(p) is EdgeCheck.independent:
                    kind = "independent"
                else:
                    kind = "premise"
                out.append(Edge(p, j.key, kind))
            out.extend(Edge(u, j.key, "unless") for u in j.unless if u in drawn)
            out.append(Edge(j.key, j.head, "head"))
        return out
