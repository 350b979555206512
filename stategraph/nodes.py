"""Atom support nodes: the ground atoms rule links go through, kept as internal states.

Rule packs derive atoms from atoms (``commute_city(P,C) :- home_city(P,C).``), and memories
carry atoms. A rule link used to be a justification from memory to memory, one per way the
rules derive a memory's atoms from other memories: seventy memories carrying
``home_city(user,shenzhen)`` made seventy justifications in every memory derived from it, and
a cap on them (``max_alternatives``) changed truth values. Now every ground atom a rule link
goes through is a node of the support graph of its own, so what rests on an atom costs one
justification however many memories carry it:

- ``atom:A`` (:func:`atom_node`) holds while atom ``A`` holds: it is justified once per
  memory that carries ``A`` (``atom:A <- m``), and by ``rule:A`` when the rules derive ``A``;
- ``rule:A`` (:func:`rule_node`) holds while the rules derive ``A``: it is justified once per
  ground rule instance with head ``A``, whose premises are the ``atom:`` nodes of the
  instance's positive body and whose ``unless`` are those of its negated atoms;
- a derived memory whose every atom the rules derive is justified by the ``rule:`` nodes of
  its atoms (``m <- rule:A1, ..., rule:An``).

Both are states of the reserved kind :data:`ATOM_KIND` with the atom as their text. They are
derived (they hold only while justified), take part in revision like any other state, and are
what proofs show as the atom steps; but they are not memories: they are never returned by
recall, never reviewed, never counted as touched memories, and a change that names one is
refused. Their ids start with :data:`ATOM_PREFIX` or :data:`RULE_PREFIX`, which no memory's id
may (:func:`check_memory_id`).
"""

from __future__ import annotations

import hashlib

__all__ = [
    "ATOM_KIND",
    "ATOM_PREFIX",
    "INTERNAL_PREFIXES",
    "RULE_PREFIX",
    "atom_node",
    "check_memory_id",
    "is_atom_node",
    "is_internal",
    "is_rule_node",
    "node_atom",
    "rule_node",
]

ATOM_KIND = "atom"
"""The kind of both atom nodes: reserved, never a memory's."""

ATOM_PREFIX = "atom:"
"""The id prefix of a node that holds while its atom holds."""

RULE_PREFIX = "rule:"
"""The id prefix of a node that holds while the rules derive its atom."""

INTERNAL_PREFIXES = (ATOM_PREFIX, RULE_PREFIX)

_MAX_ID = 512
"""A state id's longest length (:func:`stategraph.model.normalise_id`)."""


def _node(prefix: str, atom: str) -> str:
    """``prefix + atom``, or, for an atom too long for an id, ``prefix`` and a digest of it
    (the node's text keeps the atom itself)."""
    node = prefix + atom
    if len(node) <= _MAX_ID:
        return node
    digest = hashlib.sha256(atom.encode()).hexdigest()
    return f"{prefix}{atom[: _MAX_ID - len(prefix) - 70]}…#{digest}"


def atom_node(atom: str) -> str:
    """The id of the node holding while ``atom`` (as clingo prints it) holds."""
    return _node(ATOM_PREFIX, atom)


def rule_node(atom: str) -> str:
    """The id of the node holding while the rules derive ``atom``."""
    return _node(RULE_PREFIX, atom)


def is_internal(state_id: str) -> bool:
    """True for an atom node's id (of either prefix)."""
    return state_id.startswith(INTERNAL_PREFIXES)


def is_atom_node(state_id: str) -> bool:
    """True for an ``atom:`` node's id."""
    return state_id.startswith(ATOM_PREFIX)


def is_rule_node(state_id: str) -> bool:
    """True for a ``rule:`` node's id."""
    return state_id.startswith(RULE_PREFIX)


def node_atom(state_id: str) -> str:
    """The atom an internal node's id names (shortened for an atom too long for an id: the
    node's text is the atom whole)."""
    for prefix in INTERNAL_PREFIXES:
        if state_id.startswith(prefix):
            return state_id[len(prefix) :]
    raise ValueError(f"{state_id!r} is no atom node")


def check_memory_id(state_id: str) -> str:
    """Return ``state_id`` if a memory may take it.

    Raises:
        ValueError: for an id that starts with a prefix reserved for atom nodes.
    """
    if is_internal(state_id):
        raise ValueError(
            f"ids starting with {ATOM_PREFIX!r} or {RULE_PREFIX!r} are reserved for the "
            f"atom nodes of rule links; give the memory another id than {state_id!r}"
        )
    return state_id
