"""Integer indexes over a workload and the whole-graph least fixpoint several systems share.

The alternatives work on state numbers and plain lists, the fastest representation pure Python
has, so that they are measured at their best and the comparison with the engine is fair.
"""

from __future__ import annotations

from collections import deque

from stategraph.bench.perf.workload import FACT, Workload

__all__ = ["Index", "least_fixpoint"]


class Index:
    """Reverse indexes of a workload's justifications (by justification number).

    Attributes:
        head: the head of each justification.
        premises: the premises of each justification.
        unless: the ``unless`` facts of each justification.
        by_premise: for each state, the justifications citing it as a premise.
        by_unless: for each state, the justifications citing it in ``unless``.
        by_head: for each state, its justifications.
    """

    def __init__(self, wl: Workload) -> None:
        n = wl.n
        self.n = n
        self.head = [j[0] for j in wl.justs]
        self.premises = [j[1] for j in wl.justs]
        self.unless = [j[2] for j in wl.justs]
        self.by_premise: list[list[int]] = [[] for _ in range(n)]
        self.by_unless: list[list[int]] = [[] for _ in range(n)]
        self.by_head: list[list[int]] = [[] for _ in range(n)]
        for k, (h, ps, us) in enumerate(wl.justs):
            self.by_head[h].append(k)
            for p in ps:
                self.by_premise[p].append(k)
            for u in us:
                if wl.kind[u] != FACT:
                    raise ValueError(f"unless must cite a fact; justification {k} cites {u}")
                self.by_unless[u].append(k)


def least_fixpoint(ix: Index, active: bytearray) -> tuple[bytearray, list[int]]:
    """Which states hold when exactly the ``active`` facts do (linear-time counting).

    Because ``unless`` only cites facts, a justification is blocked or not from the start, and
    the well-founded model is the least fixpoint of the unblocked rules (Dowling-Gallier).

    Returns:
        ``(true, support)``: a 0/1 flag per state, and per derived state that holds the
        justification that first derived it (``-1`` otherwise), which is a well-founded support
        pointer (the JTMS starts from it).
    """
    true = bytearray(ix.n)
    support = [-1] * ix.n
    missing = [len(p) for p in ix.premises]
    for k, us in enumerate(ix.unless):
        if any(active[u] for u in us):
            missing[k] = -1
    queue: deque[int] = deque(i for i in range(ix.n) if active[i])
    for i in queue:
        true[i] = 1
    head, by_premise = ix.head, ix.by_premise
    while queue:
        x = queue.popleft()
        for k in by_premise[x]:
            left = missing[k] - 1
            missing[k] = left
            if left == 0:
                h = head[k]
                if not true[h]:
                    true[h] = 1
                    support[h] = k
                    queue.append(h)
    return true, support
