"""Which states a picture draws: the whole store when it is small, otherwise a part of it.

The limit counts what is drawn: each state, and each of its justifications (an AND-node of
its own). A picture of part of a large store costs what that part costs, not what the store
holds: the neighbourhood is found by walking out from its seeds through the store's indexes
(``justifications_for`` for what a state rests on, ``dependents`` for what rests on it, at
most ``limit + 1`` of them a state), one ring at a time, and the walk stops at the first state
whose drawing would pass the limit. Nothing here reads every state, nor every dependent of a
state cited everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from stategraph.nodes import is_internal
from stategraph.store.sqlite import Store

__all__ = ["DEFAULT_LIMIT", "Selection", "neighbourhood", "whole"]

_CHUNK = 256
"""How many states of a ring are checked at once (a ring can be far larger than a picture)."""

DEFAULT_LIMIT = 150
"""The most nodes one picture draws, states and justifications together (more is
unreadable, and slow to lay out)."""


@dataclass(frozen=True)
class Selection:
    """The states to draw and what was left out.

    Attributes:
        ids: the states to draw, most important first.
        nodes: how many nodes drawing them takes (the states and their justifications).
        left_out: stored states next to the drawn ones that are not drawn (counted up to
            ``limit + 1`` dependents a state).
        hidden: for each drawn state, how many of its stored neighbours are not drawn.
        cut: the limit stopped the walk before every state within the hops was drawn.
    """

    ids: tuple[str, ...]
    nodes: int = 0
    left_out: int = 0
    hidden: Mapping[str, int] = field(default_factory=dict)
    cut: bool = False


def whole(store: Store, limit: int = DEFAULT_LIMIT) -> Selection | None:
    """Every state, or None when the store's states and justifications are more than
    ``limit`` nodes (read no further)."""
    ids = store.ids(limit + 1)
    if len(ids) > limit:
        return None
    nodes = len(ids) + len(store.justifications_for(ids))
    return Selection(tuple(ids), nodes) if nodes <= limit else None


def neighbourhood(
    store: Store,
    seeds: Sequence[str],
    hops: int,
    limit: int = DEFAULT_LIMIT,
    *,
    all_seeds: bool = False,
) -> Selection:
    """The seeds and the states within ``hops`` of them along premise and ``unless`` edges,
    either way, nearest first (seeds in the order given, then ring by ring, by id), until the
    next state and its justifications would pass ``limit`` nodes.

    Args:
        store: where to read.
        seeds: the states at the centre (a revision's cone, or one state), most important
            first.
        hops: how far out to draw.
        limit: the most nodes to draw: states and their justifications.
        all_seeds: draw every seed whatever the limit (a revision's cone: a picture of a
            revision that leaves out states it touched misleads), and only what is around
            them within the limit; their nodes count towards it.
    """
    drawn: list[str] = []
    used, cut = 0, False
    adjacent: dict[str, set[str]] = {}
    ring = list(dict.fromkeys(seeds))
    seen = set(ring)
    for step in range(hops + 1):
        bounded = step > 0 or not all_seeds
        for chunk in (ring[i : i + _CHUNK] for i in range(0, len(ring), _CHUNK)):
            stored = store.truths(chunk).keys()
            for sid in (s for s in chunk if s in stored):
                justs = store.justifications_for([sid])
                cost = 1 + len(justs)
                if bounded and used + cost > limit:
                    cut = True
                    break
                drawn.append(sid)
                used += cost
                near = {p for j in justs for p in (*j.premises, *j.unless)}
                near.update(store.dependents(sid, limit + 1))
                adjacent[sid] = near
            if cut:
                break
        if cut:
            break
        found = set().union(*(adjacent[s] for s in ring if s in adjacent)) - seen
        seen.update(found)
        # an atom node of a rule link is no hop: what it links is as near as it is
        inner = sorted(s for s in found if is_internal(s))
        while inner and not cut:
            stored = store.truths(inner).keys()
            for sid in (s for s in inner if s in stored):
                justs = store.justifications_for([sid])
                used += 1 + len(justs)
                drawn.append(sid)
                near = {p for j in justs for p in (*j.premises, *j.unless)}
                near.update(store.dependents(sid, limit + 1))
                adjacent[sid] = near
            more = set().union(*(adjacent.get(s, set()) for s in inner)) - seen
            seen.update(more)
            found = (found - set(inner)) | more
            inner = sorted(s for s in more if is_internal(s))
            cut = used > limit
        ring = sorted(s for s in found if not is_internal(s))
        if not ring or cut:
            break
    shown = set(drawn)
    around = set().union(*adjacent.values()) - shown if adjacent else set()
    stored = store.truths(around).keys()  # an ``unless`` may name a state not yet asserted
    hidden = {s: len((adjacent[s] - shown) & stored) for s in drawn}
    return Selection(
        ids=tuple(drawn),
        nodes=used,
        left_out=len(stored),
        hidden={s: n for s, n in hidden.items() if n},
        cut=cut,
    )
