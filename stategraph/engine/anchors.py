"""Anchored nodes: the atom and rule nodes of a cone that keep holding whatever the change does.

A dense atom (issue 40) is carried by hundreds of memories and derived by hundreds of firings.
Retracting one move into Shenzhen reaches ``atom:home_city(user,shenzhen)`` through the move's
own atom node, and from it every commute, broadband and restaurant memory of the city: the
walk (:meth:`~stategraph.engine.graph.Cone`) follows open edges, and whether the node keeps
holding is only known once the whole cone is solved. At 10^4 dense memories that cone held
thousands of states, and a revision took seconds where it moved nothing.

A node is *anchored* when it held before the change and one of its stored justifications,
which the change does not remove, has no ``unless`` and is not a candidate's, and cites only
states the change cannot move (outside the cone, holding) or anchored nodes. In the
well-founded model such a node holds after the change (a rule without negation whose body
holds), so nothing that rests on it moves *through* it: the cone is narrowed past it
(:meth:`~stategraph.engine.graph.Cone.narrowed`, as for steady heads), and the node itself is
still solved with its justifications, so what the change writes of it is written as before.
Only internal nodes (:mod:`stategraph.nodes`) are looked at: they are where one atom gathers
many memories, and a memory's own support is the engine's ordinary business.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from stategraph.model import Change, Justification, Origin
from stategraph.nodes import is_internal
from stategraph.values import TRUE, Truth

__all__ = ["anchor_candidates", "anchored"]


def anchor_candidates(solve: Iterable[str], seeds: Collection[str]) -> list[str]:
    """The internal nodes of a cone that may be anchored (its seeds never are), sorted."""
    return sorted(n for n in solve if is_internal(n) and n not in seeds)


def anchored(
    candidates: Iterable[str],
    justifications: Iterable[Justification],
    truth: Mapping[str, Truth],
    moving: Collection[str],
    change: Change,
) -> set[str]:
    """The anchored nodes among ``candidates`` (see the module docstring).

    Args:
        candidates: internal nodes of the cone (:func:`anchor_candidates`).
        justifications: their stored justifications.
        truth: the stored value of each candidate and of every state those cite.
        moving: what the change may move (the cone's states to solve, and the states it acts
            on): a premise among them holds afterwards only if it is anchored itself.
        change: the change (the justifications it removes are no witness).
    """
    removed = {j.key for j in change.remove_justifications}
    gone = {*change.retract, *(s.id for s in change.supersede)}
    witnesses: dict[str, list[tuple[str, ...]]] = {}
    wanted = {n for n in candidates if truth.get(n) is TRUE}
    for j in justifications:
        if j.head not in wanted or j.unless or j.origin is Origin.recovered or j.key in removed:
            continue
        witnesses.setdefault(j.head, []).append(j.premises)

    def steady(p: str, found: set[str]) -> bool:
        if p in found:
            return True
        return p not in moving and p not in gone and truth.get(p) is TRUE

    found: set[str] = set()
    grew = True
    while grew:  # a node anchored by another anchored one: rounds until nothing is added
        grew = False
        for head, bodies in witnesses.items():
            if head not in found and any(all(steady(p, found) for p in b) for b in bodies):
                found.add(head)
                grew = True
    return found
