"""Held gates: candidate edges a change cannot pass doubt along.

On a dense store the memories of one template are each other's candidates: a weekly plan
written again guesses it may rest on the copies before it (issue 41's derived peers), so the
copies form a chain, each a candidate of the next. Superseding one move reached the first
copies through their guesses, and from them the whole chain, twenty-four candidates deep: the
walk (:class:`~stategraph.engine.graph.Cone`) follows every open edge. Solving it found what
:mod:`stategraph.engine.doubt` says: the copies that guessed the moved fact fall into doubt,
and a gate whose premise is only in doubt holds, so nothing past them moves. A revision that
flagged three memories solved six hundred, in rounds.

That is known before solving. A gate ``c`` of candidate premise ``x`` (``c :- x``,
``c :- not c``) is true while ``x`` holds or is undefined, and undefined once ``x`` is false.
So it keeps its value when ``x`` is not false before the change and cannot be false after it.
A state cannot be false after the change when one of its justifications, which the change
does not remove, has no ``unless`` and cites only its own unchecked candidates (each a gate,
true or undefined, never false) and states that keep holding (outside what the change moves,
holding, or anchored: :mod:`stategraph.engine.anchors`). Such a rule is never false, and
neither is its head. An edge from such a state ``x`` to a head ``h`` that cites ``x`` only as
an unchecked candidate, in every justification of ``h``, is *held*: the cone is narrowed as if
it were closed, and ``h`` is graded, not solved, as any state whose support keeps holding
while something it cites moved. The narrowing walks the cone again from its seeds, reading
the justifications of the states it reaches and, for those that can only fall into doubt, of
the heads they reach, nothing else: of a chain of copies, the first two.

The rounds of :mod:`stategraph.engine.doubt` make a gate true only when its premise depends on
no gate still in doubt, and leave the gates of a cycle of doubt undefined, so a held gate must
be one the rounds would make true. It is when the states left to solve cite each other in no
cycle, and none of them cites a state the narrowing left out: then every gate in doubt among
them is made true in its round, the held gates next, and what was left out keeps the value it
had. When either fails, the cone is solved whole (but for its anchored nodes).

Only a cone with more than :data:`WIDE` states to solve is looked at, and only a cone walked
whole (a bounded walk grades its frontier in its own way, :mod:`stategraph.engine.bounded`):
below that size solving costs less than reading justifications to narrow it; and a narrowing
that meets no state that can only fall into doubt in its first :data:`PATIENCE` states gives
up. The values are the same either way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import replace

from stategraph.engine.derivation import body
from stategraph.engine.graph import Cone
from stategraph.model import Change, Justification
from stategraph.values import FALSE, TRUE, Truth

__all__ = ["WIDE", "past_held_gates"]

WIDE = 64
"""A cone with more states to solve than this is looked at for held gates."""

PATIENCE = 256
"""A narrowing that has read this many states and met no state that can only fall into doubt
gives up: a cone of declared support (the hub of a store of ``because=`` memories) has none,
and reading it twice would only cost time."""


def past_held_gates(
    cone: Cone,
    kept: Collection[str],
    change: Change,
    seeds: Collection[str],
    justifications_for: Callable[[list[str]], list[Justification]],
    truths: Callable[[list[str]], Mapping[str, Truth]],
) -> Cone:
    """``cone`` narrowed past the states of ``kept`` and its held gates (module docstring),
    or past ``kept`` alone when the gates cannot be held.

    Args:
        cone: a cone walked whole.
        kept: the states of the cone known to keep their value (anchored nodes).
        change: the change (what it removes is no witness; what it adds is an edge).
        seeds: the states it acts on: none is a held gate's head or premise.
        justifications_for: reads the stored justifications of some heads.
        truths: reads the stored values of some states.
    """
    removed = {j.key for j in change.remove_justifications}
    added: dict[str, list[Justification]] = {}
    for j in change.add_justifications:
        added.setdefault(j.head, []).append(j)
    gone = {*change.retract, *(s.id for s in change.supersede)}
    justs: dict[str, list[Justification]] = {}
    truth: dict[str, Truth] = {}

    def read(heads: Iterable[str]) -> None:
        missing = sorted({h for h in heads if h not in justs})
        for h in missing:
            justs[h] = [j for j in added.get(h, ()) if j.key not in removed]
        for j in justifications_for(missing):
            if j.key not in removed:
                justs[j.head].append(j)
        cited = {p for h in missing for j in justs[h] for p in (h, *j.premises)}
        truth.update(truths(sorted(cited - truth.keys())))

    def holds(p: str) -> bool:
        return p in kept or (p not in cone.solve and p not in gone and truth.get(p) is TRUE)

    def never_false(j: Justification) -> bool:
        open_ = set(j.candidates())
        return not j.unless and all(p in open_ or holds(p) for p in body(j))

    def source(x: str) -> bool:
        """Whether ``x`` is not false before the change and cannot be false after it."""
        before = truth.get(x)
        return x not in seeds and before not in (None, FALSE) and any(map(never_false, justs[x]))

    def gate_only(x: str, h: str) -> bool:
        """Whether ``h`` cites ``x`` only as an unchecked candidate."""
        return h not in seeds and all(
            x not in j.unless and (x not in body(j) or x in j.candidates()) for j in justs[h]
        )

    seen = {s for s, d in cone.depth.items() if d == 0}
    level = sorted(s for s in seen if s not in kept)
    met = False
    while level:
        read(level)
        sources = {src for src in level if source(src)}
        heads = {src: [h for h in cone.opened.get(src, ()) if h not in seen] for src in level}
        read(h for src in sources for h in heads[src])  # gate_only reads the heads' bodies
        met = met or bool(sources)
        nxt: list[str] = []
        for src in level:
            for h in heads[src]:
                if h not in seen and not (src in sources and gate_only(src, h)):
                    seen.add(h)
                    if h not in kept:
                        nxt.append(h)
        level = sorted(nxt)
        if not met and len(justs) > PATIENCE:
            return cone.narrowed(kept) if kept else cone
    solve = seen & cone.solve
    left_out = cone.solve - solve
    read(solve)
    cites = {h: {p for j in justs[h] for p in (*j.premises, *j.unless)} for h in solve}
    if any(not c.isdisjoint(left_out) for c in cites.values()) or _cyclic(solve, cites):
        return cone.narrowed(kept) if kept else cone
    return replace(cone, solve=frozenset(solve))


def _cyclic(nodes: Collection[str], cites: Mapping[str, set[str]]) -> bool:
    """Whether the states cite each other in a cycle (Kahn's algorithm)."""
    users: dict[str, list[str]] = {}
    waiting = dict.fromkeys(nodes, 0)
    for h in nodes:
        for p in cites[h]:
            if p in waiting:
                users.setdefault(p, []).append(h)
                waiting[h] += 1
    ready = [n for n, k in waiting.items() if k == 0]
    done = 0
    while ready:
        done += 1
        for h in users.get(ready.pop(), ()):
            waiting[h] -= 1
            if waiting[h] == 0:
                ready.append(h)
    return done < len(waiting)
