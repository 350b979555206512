"""Explanations as models: why a state holds (a proof of minimal height) and why another does not.

The proof itself is found by :func:`~stategraph.engine.derivation.lowest_proof` (never round a
cycle: each step rests on premises strictly lower) and printed by
:func:`~stategraph.engine.proof_text.render_proof`; this module gives them the models the API,
the service and the reports return. ``body``, ``derivation_levels``, ``justification_value``
and ``confirmed_by`` are re-exported from where they live.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from stategraph.engine.derivation import (
    UNFOUNDED,
    body,
    candidate_notes,
    derivation_levels,
    failures,
    justification_value,
    lowest_proof,
)
from stategraph.engine.proof_text import confirmed_by, render_proof
from stategraph.errors import InconsistentStoreError, NotHoldingError
from stategraph.escaping import LINE_ESCAPES
from stategraph.model import JustificationRef, Origin, Truth
from stategraph.nodes import is_internal, node_atom

if TYPE_CHECKING:
    from stategraph.engine.graph import SupportGraph
    from stategraph.engine.policy import Policy

__all__ = [
    "Proof",
    "ProofStep",
    "WhyNot",
    "WhyNotItem",
    "body",
    "confirmed_by",
    "derivation_levels",
    "justification_value",
    "why",
    "why_not",
]


class ProofStep(BaseModel):
    """One state in a proof, with the justification it rests on (None for a fact)."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str
    text: str
    height: int
    by: JustificationRef | None


class Proof(BaseModel):
    """A well-founded derivation of ``root``: every step's premises appear at lower height."""

    model_config = ConfigDict(frozen=True)

    root: str
    steps: tuple[ProofStep, ...]
    """Sorted by height then id; the root is last among its height."""
    checks: dict[str, str] = {}
    """How the root's candidate (``context``) premises were classified, and why."""

    def step(self, state_id: str) -> ProofStep:
        """The step that proves one state."""
        return next(s for s in self.steps if s.id == state_id)

    def render(self) -> str:
        """The proof as an indented tree (:func:`~stategraph.engine.proof_text.render_proof`):
        a state proved earlier is printed once, and no id or text can forge a line."""
        return render_proof(self.root, self.steps, self.checks)


def why(graph: SupportGraph, policy: Policy, state_id: str) -> Proof:
    """The lowest well-founded derivation of a holding state.

    Raises:
        UnknownStateError: if the id is unknown.
        NotHoldingError: if the state does not hold (use :func:`why_not`).
    """
    graph.state(state_id)
    if graph.value(state_id) is not Truth.true:
        raise NotHoldingError(state_id, graph.value(state_id).value)

    def is_base(s: str) -> bool:
        return graph.is_active(s) and policy.is_exogenous(graph.states[s])

    steps = []
    for sid, height, by in lowest_proof(
        state_id, graph.justifications_of, is_base, graph.value, graph.states.__contains__
    ):
        st = graph.states[sid]
        ref = None if by is None else by.ref().model_copy(update={"premises": body(by)})
        steps.append(ProofStep(id=sid, kind=st.kind, text=st.text, height=height, by=ref))
    checks = candidate_notes(graph.justifications_of(state_id))
    return Proof(root=state_id, steps=tuple(steps), checks=checks)


class WhyNotItem(BaseModel):
    """One justification of a non-holding state and what stops it."""

    model_config = ConfigDict(frozen=True)

    justification: JustificationRef
    value: Truth
    first_failed: str | None
    """The first premise (in sorted order) that does not hold."""
    blocked_by: str | None
    """The first ``unless`` state that holds (or is undecided)."""


class WhyNot(BaseModel):
    """Why a state does not hold."""

    model_config = ConfigDict(frozen=True)

    id: str
    truth: Truth
    status: str
    """``retracted``, ``superseded by <id>``, ``no justification`` or ``unsupported``."""
    items: tuple[WhyNotItem, ...]
    below: tuple[WhyNot, ...] = ()
    """The same for each atom node (:mod:`stategraph.nodes`) an item names as the premise that
    fails or the blocker that holds: the atom steps down to the memories that decide them."""

    def render(self) -> str:
        """Human-readable lines."""
        return "\n".join(self._lines(0))

    def _lines(self, depth: int) -> list[str]:
        pad = "    " * depth
        name = f"{node_atom(self.id)} (atom)" if is_internal(self.id) else self.id
        lines = [f"{pad}{name} is {self.truth.value}: {self.status}"]
        for it in self.items:
            ref = it.justification
            if ref.origin is Origin.review:
                lines.append(f"{pad}  <- {confirmed_by(ref)} ({it.value.value})")
                continue
            why_ = []
            if it.first_failed:
                why_.append(f"premise {it.first_failed} does not hold")
            if it.blocked_by:
                why_.append(f"blocked by {it.blocked_by}")
            rules = f" via {', '.join(ref.rules)}" if ref.rules else ""
            lines.append(
                f"{pad}  <- [{', '.join(ref.premises)}]"
                + (f" unless [{', '.join(ref.unless)}]" if ref.unless else "")
                + f" ({ref.origin.value}{rules}): {'; '.join(why_) or it.value.value}"
            )
            lines.extend(f"{pad}      ({note})" for _, note in sorted(ref.notes.items()))
        for below in self.below:
            lines.extend(below._lines(depth + 1))
        return [line.translate(LINE_ESCAPES) for line in lines]


def why_not(graph: SupportGraph, policy: Policy, state_id: str) -> WhyNot:
    """For each justification of a state, the first premise that fails or the ``unless`` that
    blocks it. Works for holding states too (then every item says what would break it)."""
    st = graph.state(state_id)
    truth = graph.value(state_id)
    if state_id in graph.inactive:
        by = graph.inactive[state_id]
        status = f"superseded by {by}" if by else "retracted"
    elif policy.is_exogenous(st):
        status = "active fact"
    else:
        status = "unsupported" if graph.justifications_of(state_id) else "no justification"
        if truth is not Truth.false:
            status = "holds" if truth is Truth.true else "undecided"
    _check_consistent(graph, policy, state_id)
    items = []
    for j in graph.justifications_of(state_id):
        failed, blocked = failures(j, graph.value)
        items.append(
            WhyNotItem(
                justification=j.ref(),
                value=justification_value(j, graph.value),
                first_failed=failed[0] if failed else None,
                blocked_by=blocked[0] if blocked else None,
            )
        )
    return WhyNot(id=state_id, truth=truth, status=status, items=tuple(items))


def _check_consistent(graph: SupportGraph, policy: Policy, state_id: str) -> None:
    """Refuse to explain a state whose stored value its own record contradicts: a retracted or
    superseded state that holds, an active fact that does not, a derived state that holds
    though every justification of it fails (each is what an edit of the tables leaves).

    Raises:
        InconsistentStoreError: naming the state.
    """
    truth = graph.value(state_id)
    if state_id in graph.inactive:
        if truth is not Truth.false:
            raise InconsistentStoreError(
                state_id, f"is retracted or superseded, but stored as {truth.value}"
            )
    elif policy.is_exogenous(graph.states[state_id]):
        if truth is not Truth.true:
            raise InconsistentStoreError(state_id, f"is an active fact stored as {truth.value}")
    elif truth is Truth.true and all(
        justification_value(j, graph.value) is Truth.false
        for j in graph.justifications_of(state_id)
    ):
        raise InconsistentStoreError(state_id, UNFOUNDED)
