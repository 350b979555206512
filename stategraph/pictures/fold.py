"""Justifications folded into lines between memories, for a drawing a person can read.

A store linked by rule packs gives a memory many justifications, and each is an AND-node of
its own: drawn as nodes they crowd out the memories (a revision of a few hundred memories
became a column of a hundred "rule" circles). Folded, each justification of a drawn memory
is a set of lines from the memories it rests on to its head, meeting at a small junction
when there are several (all of them are needed) and marked with what it went through (its
rules). Nothing is lost: the junction still says "all of these", two junctions into one
memory still say "either way", and the page shows each justification in full beside the
memory.

Folding goes through nodes that are not memories: a state marked ``internal`` (an atom's
support node, say, between the memories that carry the atom and the rule instances that use
it) is never drawn as a memory; a line runs from the memories behind it, marked ``via`` it
and its rules. An ``unless`` on the way turns what lies behind it into a condition (two
turn it back into a premise).
"""

from __future__ import annotations

from dataclasses import dataclass

from stategraph.pictures.scene import Edge, Picture, Support

__all__ = ["Folded", "Input", "fold"]


@dataclass(frozen=True)
class Input:
    """One line into a folded justification: from a drawn memory, of an edge kind
    (:class:`~stategraph.pictures.scene.Edge`: ``premise``, ``candidate``, ``independent``
    or ``unless``)."""

    src: str
    kind: str


@dataclass(frozen=True)
class Folded:
    """One justification of a drawn memory, with what it rests on traced to memories.

    Attributes:
        support: the justification itself.
        inputs: the drawn memories it rests on (or is blocked by), each once, in the order
            of its premises.
        via: the rules and internal nodes it goes through, in order, each once.
    """

    support: Support
    inputs: tuple[Input, ...]
    via: tuple[str, ...]


def _kind(outer: str, inner: str) -> str:
    """The kind of a line that runs through an internal node: ``outer`` into the node,
    ``inner`` from behind it."""
    if (outer == "unless") != (inner == "unless"):
        return "unless"
    for weaker in ("candidate", "independent"):
        if weaker in (outer, inner):
            return weaker
    return "premise"


def fold(picture: Picture) -> list[Folded]:
    """Every justification of every drawn memory (not of internal nodes), folded.

    Deterministic: justifications in the picture's order, inputs in premise order.
    """
    internal = {s.id for s in picture.states if s.internal}
    into: dict[str, list[Edge]] = {}
    for e in picture.edges():
        if e.kind != "head":
            into.setdefault(e.dst, []).append(e)
    by_head: dict[str, list[Support]] = {}
    for j in picture.supports:
        by_head.setdefault(j.head, []).append(j)

    def trace(j: Support, outer: str, seen: set[str], inputs: dict[Input, None]) -> list[str]:
        via = list(j.rules)
        for e in into.get(j.key, ()):
            kind = _kind(outer, e.kind)
            if e.src not in internal:
                inputs[Input(e.src, kind)] = None
            elif e.src not in seen:
                seen.add(e.src)
                via.append(e.src)
                for k in by_head.get(e.src, ()):
                    via += trace(k, kind, seen, inputs)
        return via

    out = []
    for j in picture.supports:
        if j.head in internal:
            continue
        inputs: dict[Input, None] = {}
        via = trace(j, "premise", set(), inputs)
        out.append(Folded(j, tuple(inputs), tuple(dict.fromkeys(via))))
    return out
