"""Which states a picture draws: the whole store when it is small, otherwise a part of it.

A picture of part of a large store must cost what that part costs, not what the store holds:
the neighbourhood is found by walking out from its seeds through the store's indexes
(``justifications_for`` for what a state rests on, ``heads_citing`` for what rests on it),
one ring at a time, and one ring further than drawn so that the picture can say how much
next to it was left out. Nothing here reads every state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from stategraph.model import Justification
from stategraph.store.sqlite import Store

__all__ = ["DEFAULT_LIMIT", "Selection", "neighbourhood", "whole"]

DEFAULT_LIMIT = 150
"""The most states one picture draws (more is unreadable, and slow to lay out)."""


@dataclass(frozen=True)
class Selection:
    """The states to draw and what was left out.

    Attributes:
        ids: the states to draw, most important first.
        left_out: stored states next to the drawn ones (within one more hop, or cut by the
            limit) that are not drawn.
        hidden: for each drawn state, how many of its stored neighbours are not drawn.
        cut: how many states within the requested hops the limit cut.
    """

    ids: tuple[str, ...]
    left_out: int = 0
    hidden: Mapping[str, int] = field(default_factory=dict)
    cut: int = 0


def whole(store: Store, limit: int = DEFAULT_LIMIT) -> Selection | None:
    """Every state, or None when the store holds more than ``limit`` (read no further)."""
    ids = store.ids(limit + 1)
    return Selection(tuple(ids)) if len(ids) <= limit else None


def neighbourhood(
    store: Store,
    seeds: Sequence[str],
    hops: int,
    limit: int = DEFAULT_LIMIT,
) -> Selection:
    """The seeds and every state within ``hops`` of them along premise and ``unless`` edges,
    either way, cut to ``limit`` states (seeds first, in the order given, then by distance
    and id).

    Args:
        store: where to read.
        seeds: the states at the centre (a revision's cone, or one state), most important
            first.
        hops: how far out to draw.
        limit: the most states to draw.
    """
    rank = {s: i for i, s in enumerate(seeds)}
    dist, adjacent = _explore(store, seeds, hops)
    stored = store.truths(dist).keys()  # an ``unless`` may name a state not yet asserted
    within = sorted(
        (s for s, d in dist.items() if d <= hops and s in stored),
        key=lambda s: (dist[s], rank.get(s, len(rank)), s),
    )
    drawn = within[:limit]
    shown = set(drawn)
    hidden = {s: len((adjacent.get(s, set()) & stored) - shown) for s in drawn}
    return Selection(
        ids=tuple(drawn),
        left_out=len(stored) - len(drawn),
        hidden={s: n for s, n in hidden.items() if n},
        cut=len(within) - len(drawn),
    )


def _explore(
    store: Store, seeds: Iterable[str], hops: int
) -> tuple[dict[str, int], dict[str, set[str]]]:
    """Hop distances from the seeds out to ``hops + 1``, and who is next to whom (for every
    state within ``hops``)."""
    dist = dict.fromkeys(seeds, 0)
    adjacent: dict[str, set[str]] = {}
    justs: dict[str, list[Justification]] = {}

    def load(heads: Iterable[str]) -> None:
        missing = sorted(set(heads) - justs.keys())
        for h in missing:
            justs[h] = []
        for j in store.justifications_for(missing):
            justs[j.head].append(j)

    def link(a: str, b: str) -> None:
        adjacent.setdefault(a, set()).add(b)
        adjacent.setdefault(b, set()).add(a)

    frontier = sorted(dist)
    for d in range(1, hops + 2):
        if not frontier:
            break
        ring = set(frontier)
        dependents = store.heads_citing(frontier)
        load([*frontier, *dependents])
        found: set[str] = set()
        for h in frontier:
            for j in justs[h]:
                for p in (*j.premises, *j.unless):
                    link(h, p)
                    found.add(p)
        for h in sorted(dependents):
            for j in justs[h]:
                for p in (*j.premises, *j.unless):
                    if p in ring:
                        link(h, p)
            found.add(h)
        frontier = sorted(found - dist.keys())
        dist.update(dict.fromkeys(frontier, d))
    return dist, adjacent
