"""The cone walk, and where it stops when a revision is bounded (``max_depth``, ``max_cone``).

An unbounded revision walks the whole affected cone and solves the part of it the change can
move (:class:`~stategraph.engine.graph.Cone`). A bounded one walks only as far as its bound: the
states within it (``inside``) and the states one hop past it (the *rim*), whose edges it does
not follow. Past the bound it reads nothing, so its work follows the bound, not the cone.

Stopping early leaves two questions, answered here before anything is solved:

- Which states inside the bound can the change still move? Those reached along open edges
  inside the bound, as before, and also those reached along an open path that leaves the bound
  and comes back (a long way round to a near state). A state of the second kind rests, through
  its support, on a state the walk solves, so a search *backwards* along the open edges into
  it, from the state towards the change, finds one: :class:`_Reach`.
- Which states that the solved ones cite may be moved by the change? The same search tells:
  a cited state whose open edges lead back to a solved state may change value past the bound,
  so it is *uncertain* and solved as undefined, never at a value that may be stale (a state
  with no justification, a fact among them, or a retracted one, changes only when named).

The search is bounded too (:data:`REACH_BUDGET` states an outside state, :data:`REACH_FLOOR` at
least): a state it could not finish with counts as reaching the change, which only flags more.
``docs/revision.md`` ("A bounded revision") says what is then reported, and why it is sound.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from stategraph.engine.derivation import justification_value
from stategraph.engine.graph import Cone, SupportGraph
from stategraph.engine.policy import Policy
from stategraph.model import Truth
from stategraph.nodes import is_internal

__all__ = ["REACH_BUDGET", "REACH_FLOOR", "EdgeReader", "frontier_outcome", "tainted", "walk"]

REACH_BUDGET = 4
"""States the backwards search may expand per state the walk reached."""
REACH_FLOOR = 1024
"""The least it may expand: a search that gives up only flags more, but should seldom have to."""


class EdgeReader(Protocol):
    """What the walk reads from a store's ``edges`` index and justifications."""

    def out_edges(self, srcs: Sequence[str]) -> Iterable[tuple[str, str, int]]:
        """``(src, head, follow)`` for every edge out of these states."""
        ...

    def cited_by(self, heads: Sequence[str]) -> dict[str, set[str]]:
        """The states the justifications of each head cite (premises and ``unless``)."""
        ...

    def open_into(self, heads: Sequence[str]) -> dict[str, set[str]]:
        """For each head, the states whose edges into it are open."""
        ...

    def changeable(self, ids: Sequence[str]) -> set[str]:
        """The stored states among ``ids`` that are active and have a justification: the
        others (retracted, superseded, facts, derived states with no justification) keep
        their value unless a change names them."""
        ...


@dataclass
class _Walk:
    """The breadth-first walk's result: hop distances, the open edges followed, the rim."""

    depth: dict[str, int]
    opened: dict[str, list[str]]
    rim: list[str]
    limit: str | None


def _bfs(
    reader: EdgeReader, seeds: Iterable[str], max_depth: int | None, max_cone: int | None
) -> _Walk:
    """Every hop distance up to the bound, and the states one hop past it.

    A hop is one memory further: the atom nodes of rule links (:mod:`stategraph.nodes`) sit at
    the distance of the state they are reached from, so a memory linked through three atom
    steps is still one hop from the fact it rests on.

    A level is past the bound if it is deeper than ``max_depth``, or if taking it would make
    the walk reach more than ``max_cone`` states (the seeds are always taken).
    """
    depth = dict.fromkeys(seeds, 0)
    opened: dict[str, list[str]] = {}
    frontier = sorted(depth)
    d = 0
    while frontier:
        found: list[str] = []
        level = frontier
        while level:  # an atom node is no hop: it is walked at its source's distance
            inner: list[str] = []
            for src, head, follow in reader.out_edges(level):
                if head not in depth:
                    if is_internal(head):
                        depth[head] = d
                        inner.append(head)
                    else:
                        depth[head] = d + 1
                        found.append(head)
                if follow:
                    opened.setdefault(src, []).append(head)
            level = sorted(inner)
        if found and max_depth is not None and d + 1 > max_depth:
            limit: str | None = "depth_limit"
        elif found and max_cone is not None and len(depth) > max_cone:
            limit = "cone_limit"
        else:
            frontier = sorted(found)
            d += 1
            continue
        for head in found:  # one hop past the bound: its distance is known, its edges unread
            del depth[head]
        return _Walk(depth, opened, sorted(found), limit)
    return _Walk(depth, opened, [], None)


def _closure(starts: Iterable[str], opened: dict[str, list[str]], within: set[str]) -> set[str]:
    """The states of ``within`` reached from ``starts`` along open edges (starts included)."""
    seen = set(starts)
    stack = list(seen)
    while stack:
        for head in opened.get(stack.pop(), ()):
            if head in within and head not in seen:
                seen.add(head)
                stack.append(head)
    return seen


class _Reach:
    """Which states may reach the solved ones along open edges, searched backwards.

    A state reaches the solved set if one of the states whose edges into it are open is
    solved or reaches it. Results are kept between calls: the solved set only grows by states
    that reach it, so a state found not to reach it never will, and one found to reach it
    always does.
    """

    def __init__(self, reader: EdgeReader, budget: int) -> None:
        self.reader = reader
        self.budget = budget
        self.known: dict[str, bool] = {}

    def reaching(self, starts: Iterable[str], solved: set[str]) -> set[str]:
        """The starts that reach ``solved`` (or that the budget left undecided)."""
        todo = sorted(s for s in set(starts) if s not in solved and s not in self.known)
        parents: dict[str, set[str]] = {}
        hit: set[str] = set()
        frontier = todo
        while frontier:
            if self.budget < len(frontier):  # out of budget: undecided counts as reaching
                hit.update(frontier)
                break
            self.budget -= len(frontier)
            found = self.reader.open_into(frontier)
            nxt: set[str] = set()
            for node in frontier:
                parents[node] = found.get(node, set())
                for p in parents[node]:
                    if p in solved or self.known.get(p):
                        hit.add(node)
                    elif p not in parents and p not in self.known:
                        nxt.add(p)
            frontier = sorted(nxt - parents.keys())
        children: dict[str, list[str]] = {}
        for node, ps in parents.items():
            for p in ps:
                children.setdefault(p, []).append(node)
        stack = list(hit)
        while stack:
            for child in children.get(stack.pop(), ()):
                if child not in hit:
                    hit.add(child)
                    stack.append(child)
        for node in parents.keys() | hit:
            self.known[node] = node in hit
        return {s for s in starts if s not in solved and self.known.get(s, False)}


def walk(
    reader: EdgeReader,
    seeds: Iterable[str],
    max_depth: int | None = None,
    max_cone: int | None = None,
    cited: Iterable[str] = (),
) -> Cone:
    """The cone of the seeds, as far as the bounds let the walk go.

    Args:
        reader: the store.
        seeds: the states the change acts on.
        max_depth: the deepest hop distance walked (None: no bound).
        max_cone: the most states walked, level by level (None: no bound).
        cited: states the change's new justifications cite (the store does not know them).
    """
    w = _bfs(reader, seeds, max_depth, max_cone)
    seeds = [s for s, d in w.depth.items() if d == 0]
    inside = set(w.depth)
    solve = _closure(seeds, w.opened, inside)
    if w.limit is None:
        return Cone(w.depth, frozenset(solve), opened=w.opened)
    bound = max(w.depth.values())
    rim = set(w.rim)
    reach = _Reach(reader, max(REACH_FLOOR, REACH_BUDGET * (len(inside) + len(rim))))
    uncertain: set[str] = set()
    extra = set(cited)
    checked: set[str] = set()
    outside = sorted(inside - solve)
    while True:
        frontier = _frontier(solve, w.opened, rim)
        heads = sorted((solve | frontier.keys()) - checked)
        checked.update(heads)
        starts = set(outside) | extra
        for ids in reader.cited_by(heads).values():
            starts |= ids
        outside, extra = [], set()
        found = reach.reaching(starts, solve)
        back = found & inside
        uncertain |= found - inside
        if not back:
            break
        solve |= _closure(back, w.opened, inside)
    frontier = _frontier(solve, w.opened, rim)
    uncertain |= frontier.keys()
    depth = {**w.depth, **dict.fromkeys(w.rim, bound + 1)}
    return Cone(
        depth,
        frozenset(solve),
        frontier={z: tuple(sorted(s)) for z, s in sorted(frontier.items())},
        uncertain=frozenset(reader.changeable(sorted(uncertain - solve))),
        limit=w.limit,
    )


def _frontier(solve: set[str], opened: dict[str, list[str]], rim: set[str]) -> dict[str, set[str]]:
    """The rim states with an open edge from a solved state, and those solved states."""
    out: dict[str, set[str]] = {}
    for src in solve:
        for head in opened.get(src, ()):
            if head in rim:
                out.setdefault(head, set()).add(src)
    return out


def tainted(
    graph: SupportGraph, solve: Iterable[str], uncertain: frozenset[str], new: dict[str, Truth]
) -> set[str]:
    """The solved states left undefined because of an uncertain state.

    An uncertain state is solved as undefined, which is no more than its true value says
    (the well-founded model only loses information when a frozen value does), so a solved
    state that comes out true or false has that value exactly. One that comes out undefined
    through a chain of undefined states from an uncertain one may owe it to the bound: its
    value is not known. Undefined states no such chain reaches are undefined anyway.
    """
    citing: dict[str, list[str]] = {}
    for head in solve:
        if new.get(head) is Truth.undefined:
            for x in graph.supporters(head):
                citing.setdefault(x, []).append(head)
    out: set[str] = set()
    stack = [x for x in uncertain if x in citing]
    while stack:
        for head in citing.get(stack.pop(), ()):
            if head not in out:
                out.add(head)
                stack.append(head)
    return out


def frontier_outcome(
    graph: SupportGraph,
    policy: Policy,
    cone: Cone,
    reached: Iterable[str],
    new: dict[str, Truth],
) -> tuple[set[str], set[str]]:
    """Which states one hop past the bound must be flagged, and which provably keep holding.

    A state past the bound that an open edge from a moved state reaches may change value. It
    does not when what is known settles it: a justification that holds whatever the uncertain
    states turn out to be keeps it true (a state true before stays true), and a state false
    before whose every justification fails whatever they turn out to be stays false. Every
    other one is flagged: its value is not known, so it is stored as undefined and reported.

    Args:
        graph: the working graph, holding the justifications of ``reached``.
        policy: kinds (facts are never flagged: they change only by being named).
        cone: the bounded cone.
        reached: the frontier states an open edge from a moved (or undecided) solved state
            reaches.
        new: the solved states' new values.

    Returns:
        The states to flag, and those that keep holding though a state they cite moved.
    """

    def known(sid: str) -> Truth:
        if sid in new:
            return new[sid]
        return Truth.undefined if sid in cone.uncertain else graph.value(sid)

    flagged: set[str] = set()
    kept: set[str] = set()
    for z in reached:
        if not graph.is_active(z) or policy.is_exogenous(graph.states[z]):
            continue
        # a candidate the walk left uncertain may be false: no gate is held in doubt
        values = {justification_value(j, known, None) for j in graph.justifications_of(z)}
        old = graph.value(z)
        if old is Truth.true and Truth.true in values:
            kept.add(z)
        elif not (old is Truth.false and values <= {Truth.false}):
            flagged.add(z)
    return flagged, kept
