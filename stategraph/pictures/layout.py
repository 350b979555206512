"""Where each node of the HTML page's drawing goes: a small layered layout.

The page must work with nothing installed, so it cannot ask Graphviz; and laying the graph
out here, not in the browser, keeps the page's script a plain renderer and the positions
testable and deterministic. The method is the classic one in its simplest form (Sugiyama et
al. 1981): drop back edges found by a depth-first search so the graph is acyclic (support
cycles exist), give each node a column by longest path from the sources (sources moved next
to what they feed), order each column by the barycentre of its neighbours for a few sweeps,
and stack the columns left to right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Box", "Layout", "layered"]

GAP_X = 56.0
GAP_Y = 16.0
MARGIN = 16.0
SWEEPS = 6


@dataclass(frozen=True)
class Box:
    """A node's centre and size."""

    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Layout:
    """Every node's box, and the size of the drawing."""

    boxes: dict[str, Box]
    width: float
    height: float


def layered(
    sizes: Mapping[str, tuple[float, float]],
    edges: Sequence[tuple[str, str]],
    rows: int | None = None,
    left: float = 0.0,
) -> Layout:
    """Lay out nodes of the given (width, height) along directed edges, left to right.

    Edges naming unknown nodes, and self-loops, are ignored. Deterministic: nodes are visited
    in sorted order and ties keep the earlier order.

    Args:
        sizes: each node's width and height.
        edges: (from, to) pairs.
        rows: the most nodes stacked in one column: a longer column (a fact that a few
            hundred memories rest on puts them all in the next one) is laid out as several
            side by side, in its order, so the drawing grows wider instead of thousands of
            pixels tall.
        left: room to keep free left of every node (for what the caller draws there), on
            top of the gap between columns.
    """
    names = sorted(sizes)
    succ: dict[str, list[str]] = {n: [] for n in names}
    for a, b in edges:
        if a in succ and b in succ and a != b and b not in succ[a]:
            succ[a].append(b)
    dag, topo = _acyclic(names, succ)
    column = _columns(names, dag, topo)
    columns = _order(column, dag, topo)
    if rows is not None:
        columns = [col[i : i + rows] for col in columns for i in range(0, len(col), rows)]
    boxes: dict[str, Box] = {}
    heights = [sum(sizes[n][1] for n in col) + GAP_Y * max(len(col) - 1, 0) for col in columns]
    tallest = max(heights, default=0.0)
    x = MARGIN + left
    for col, height in zip(columns, heights, strict=True):
        width = max((sizes[n][0] for n in col), default=0.0)
        y = MARGIN + (tallest - height) / 2
        for n in col:
            w, h = sizes[n]
            boxes[n] = Box(x + width / 2, y + h / 2, w, h)
            y += h + GAP_Y
        x += width + GAP_X + left
    return Layout(boxes, max(x - GAP_X - left + MARGIN, 2 * MARGIN), tallest + 2 * MARGIN)


def _acyclic(
    names: list[str], succ: dict[str, list[str]]
) -> tuple[dict[str, list[str]], list[str]]:
    """The edges minus the back edges of a depth-first search, and a topological order."""
    mark: dict[str, int] = {}  # 1: on the stack, 2: finished
    dag: dict[str, list[str]] = {n: [] for n in names}
    finished: list[str] = []
    for root in names:
        if root in mark:
            continue
        mark[root] = 1
        stack = [(root, iter(sorted(succ[root])))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                mark[node] = 2
                finished.append(node)
                stack.pop()
            elif mark.get(nxt) != 1:  # an edge back onto the stack closes a cycle: dropped
                dag[node].append(nxt)
                if nxt not in mark:
                    mark[nxt] = 1
                    stack.append((nxt, iter(sorted(succ[nxt]))))
    return dag, finished[::-1]


def _columns(names: list[str], dag: dict[str, list[str]], topo: list[str]) -> dict[str, int]:
    """Longest path from the sources; then each source just before its nearest successor."""
    column = dict.fromkeys(names, 0)
    has_pred = set()
    for n in topo:
        for m in dag[n]:
            column[m] = max(column[m], column[n] + 1)
            has_pred.add(m)
    for n in reversed(topo):
        if n not in has_pred and dag[n]:
            column[n] = min(column[m] for m in dag[n]) - 1
    return column


def _order(column: dict[str, int], dag: dict[str, list[str]], topo: list[str]) -> list[list[str]]:
    """The nodes of each column, top to bottom, ordered to cross few edges."""
    pred: dict[str, list[str]] = {n: [] for n in dag}
    for n, outs in dag.items():
        for m in outs:
            pred[m].append(n)
    count = max(column.values(), default=-1) + 1
    columns: list[list[str]] = [[] for _ in range(count)]
    for n in topo:
        columns[column[n]].append(n)
    rank = {n: i for col in columns for i, n in enumerate(col)}
    for sweep in range(SWEEPS):
        down = sweep % 2 == 0
        for col in columns if down else reversed(columns):
            near = pred if down else dag

            def centre(n: str, near: dict[str, list[str]] = near) -> float:
                others = near[n]
                if not others:
                    return float(rank[n])
                return sum(rank[o] for o in others) / len(others)

            col.sort(key=centre)
            rank.update({n: i for i, n in enumerate(col)})
    return columns
