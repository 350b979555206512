"""Who may write what: the justifications and records a caller's change may carry.

A justification's ``origin`` tells ``why`` (and a reader of the log) whose word a state rests
on: a ``review`` is a person's confirmation, a ``judge`` one the model's answer, a ``rule``
one a rule pack's derivation, an ``assumed`` one the engine's stand-in for a missing basis.
Each is written by one path of the engine, under its own checks (only a state waiting for
review can be confirmed; a judge's answer must cite support the question offered). Were a
caller free to write them, ``POST /v1/revise`` with a premise-less ``review`` justification
would confirm any state on anyone's word, and a ``judge`` one with invented notes would print
as the model's.

So what a caller gives (``Memory.revise`` and ``Memory.bulk_load``, and every surface over
them: the command line, change and import files, HTTP, MCP) is checked here: its
justifications are ``declared`` (its own basis) or ``recovered`` (candidates, as ``context``
makes them), and carry none of the fields only the engine fills in (``checked``, ``notes``,
``rules``, ``proposed``: a candidate marked checked is a verification that never happened);
and it carries no ``reviews``. The engine's own writes (a review's change, a rebuild or replay
of stored justifications) go round this check, by :class:`~stategraph.memory.Memory`'s
internal path.
"""

from __future__ import annotations

from stategraph.errors import InvalidInputError
from stategraph.model import Change, Justification, Origin
from stategraph.nodes import ATOM_KIND, is_internal

__all__ = ["CALLER_ORIGINS", "check_change", "check_justification"]

CALLER_ORIGINS = frozenset({Origin.declared, Origin.recovered})
"""The origins a caller may write."""

_WRITTEN_BY = {
    Origin.rule: "linking, from the rule packs",
    Origin.judge: "the judge, for an edge a revision put to it",
    Origin.review: "confirm, for a state waiting for review",
    Origin.assumed: "the engine, for a derived state written with no basis",
}

_ENGINE_FIELDS = ("checked", "notes", "rules", "proposed")
"""Fields only the engine fills in: the candidates it checked and why, the rules that linked,
how each candidate was found."""


def _faults(j: Justification, where: str) -> list[tuple[str, str]]:
    faults = []
    if j.origin not in CALLER_ORIGINS:
        faults.append(
            (
                f"{where}.origin",
                f"a {j.origin.value} justification is written by {_WRITTEN_BY[j.origin]}, "
                "never given: give 'declared' (or 'recovered' for candidates)",
            )
        )
    for field in _ENGINE_FIELDS:
        if getattr(j, field):
            faults.append((f"{where}.{field}", "filled in by the engine, never given: drop it"))
    return faults


def check_justification(j: Justification, where: str) -> Justification:
    """``j``, if a caller may write it (``where`` names it in the error).

    Raises:
        InvalidInputError: naming each field a caller may not give.
    """
    faults = _faults(j, where)
    if faults:
        raise InvalidInputError("justification", faults)
    return j


def check_change(change: Change) -> Change:
    """``change``, if a caller may make it.

    Raises:
        InvalidInputError: naming every justification a caller may not write, and
            ``reviews`` (a review is made by confirm or reject).
    """
    faults: list[tuple[str, str]] = []
    if change.reviews:
        faults.append(
            (
                "reviews",
                "a review is made by confirm or reject (Memory.confirm, POST "
                "/v1/review/confirm, 'stategraph confirm'), for a state waiting for review",
            )
        )
    for i, j in enumerate(change.add_justifications):
        faults.extend(_faults(j, f"add_justifications.{i}"))
    faults.extend(_atom_nodes(change))
    if faults:
        raise InvalidInputError("change", faults)
    return change


def _atom_nodes(change: Change) -> list[tuple[str, str]]:
    """What a change may not say of atom nodes (:mod:`stategraph.nodes`): linking writes
    them, and no memory is one."""
    faults = []
    new = [("assert", s) for s in change.assert_]
    new += [("supersede", s.with_) for s in change.supersede]
    for where, st in new:
        if st.kind == ATOM_KIND:
            faults.append((f"{where}.kind", f"{ATOM_KIND!r} is reserved for atom nodes"))
        if is_internal(st.id):
            faults.append((f"{where}.id", f"{st.id!r}: {_RESERVED}"))
    named = [("retract", sid) for sid in change.retract]
    named += [("supersede", s.id) for s in change.supersede]
    for field, justs in (
        ("add_justifications", change.add_justifications),
        ("remove_justifications", change.remove_justifications),
    ):
        named += [(field, x) for j in justs for x in (j.head, *j.premises, *j.unless)]
    for where, sid in named:
        if is_internal(sid):
            faults.append((where, f"{sid!r} is an atom node, which linking writes: name memories"))
    return faults


_RESERVED = "ids starting with 'atom:' or 'rule:' are reserved for atom nodes; choose another"
