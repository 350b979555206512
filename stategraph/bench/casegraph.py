"""The dependency edges a case states, as the baselines and the depth rule read them.

Baselines see every edge a case gives, whatever its origin: ``because`` premises, ``unless``
conditions and ``context`` candidates alike. Each edge points from the state depended on to the
dependent state. Text-track cases give no edges at all.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

from stategraph.bench.cases import Case

__all__ = ["Alternative", "alternatives", "dependents", "hop_distances"]

Alternative = tuple[frozenset[str], frozenset[str]]
"""``(premises, unless)`` of one way a state is supported."""


def alternatives(case: Case) -> dict[str, list[Alternative]]:
    """Each memory's alternatives; a ``context`` list counts as one alternative (all premises)."""
    out: dict[str, list[Alternative]] = {}
    for m in case.memories:
        alts = [(frozenset(a.all), frozenset(a.unless)) for a in m.because]
        if m.context:
            alts.append((frozenset(m.context), frozenset()))
        out[m.id] = alts
    return out


def dependents(case: Case) -> dict[str, set[str]]:
    """``{id: ids that cite it}`` along every edge kind."""
    out: dict[str, set[str]] = {}
    for head, alts in alternatives(case).items():
        for premises, unless in alts:
            for src in premises | unless:
                out.setdefault(src, set()).add(head)
    return out


def hop_distances(case: Case, roots: Iterable[str] | None = None) -> dict[str, int]:
    """Shortest hop count from the changed states (or ``roots``) to every reachable state."""
    return _bfs(dependents(case), case.change.changed_ids() if roots is None else roots)


def _bfs(children: Mapping[str, set[str]], roots: Iterable[str]) -> dict[str, int]:
    dist = dict.fromkeys(roots, 0)
    queue = deque(sorted(dist))
    while queue:
        node = queue.popleft()
        for child in sorted(children.get(node, ())):
            if child not in dist:
                dist[child] = dist[node] + 1
                queue.append(child)
    return dist
