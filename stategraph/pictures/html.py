"""A picture as one self-contained HTML page for reviewing a revision.

A person reviewing a revision wants what it touched first: the page opens on every memory
the revision touched, grouped by verdict (:data:`GROUPS`), with tiles its script sizes so
that all of them fit on the first screen; a search box filters them by id or text; a click
shows a memory's verdict, what it rests on, its proof and why-not. Below, the support graph
draws memories only, each justification folded into lines that meet at a small junction
beside its head (:mod:`stategraph.pictures.fold`), so a store linked by rule packs is not a
column of rule nodes, and a tall column continues alongside (:mod:`stategraph.pictures.layout`).

The page holds everything it needs: its style, a small script that draws the graph as SVG
(laid out here) and the picture's data as JSON, including each memory's justifications,
``why``, ``why-not`` and verdict (:mod:`stategraph.pictures.details`). It loads nothing from
anywhere: no CDN, no network, so it opens from a file, offline, years later.

Memory texts are untrusted, and the page is built so that none can run script: the data sits
in a ``<script type="application/json">`` block with ``<``, ``>`` and ``&`` written as JSON
escapes (so no text can close the block), the script puts every text into the page through
``textContent`` (never as markup), and a Content-Security-Policy allows only the page's own
script and style, by hash, so even markup that got in some other way could not run.

The template, style and script are package data (``stategraph/pictures/page/``), read through
:mod:`importlib.resources`.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib.resources import files
from typing import Any

from stategraph.model import Truth, Verdict
from stategraph.pictures.details import Details, support_line
from stategraph.pictures.fold import Folded, fold
from stategraph.pictures.labels import clean, columns, lines, marks, support_tip
from stategraph.pictures.layout import Box, layered
from stategraph.pictures.scene import Picture, StateNode
from stategraph.pictures.style import (
    CHANGED,
    EDGE_DASH,
    MUTED,
    ORIGINS,
    ROLE_COLOURS,
    VERDICT_COLOURS,
    Colours,
    colours,
    legend,
    shape,
)

__all__ = ["GROUPS", "page_data", "to_html"]

_LINE = 14.0  # pixels per line of text in a state
_CHAR = 6.4  # pixels per display column at the page's 11px font
_JOIN = 9.0  # diameter of a justification's junction
_JOIN_GAP = 18.0  # from a junction to its head's left edge
_ROWS = 12  # states stacked in one column of the drawing before it continues alongside
_DASHES = {"dotted": "2 3", "dashed": "6 4"}
_PLACEHOLDER = re.compile(r"@@([A-Z]+)@@")

GROUPS: tuple[tuple[Colours, str], ...] = (
    (CHANGED, "what the change itself did"),
    (VERDICT_COLOURS[Verdict.invalidated], "lost every justification; pending actions cancelled"),
    (
        VERDICT_COLOURS[Verdict.needs_confirmation],
        "logic cannot decide: confirm or reject each (stategraph review)",
    ),
    (VERDICT_COLOURS[Verdict.restored], "hold again"),
    (VERDICT_COLOURS[Verdict.kept], "lost a justification; another still carries them"),
)
"""The page's groups of touched memories, in the order a reviewer reads them, each with a
line on what it means."""


def _asset(name: str) -> str:
    return files("stategraph.pictures").joinpath("page", name).read_text(encoding="utf-8")


def _size(n: StateNode) -> tuple[float, float]:
    text = lines(n)
    extra = 28.0 if shape(n.kind) in ("hexagon", "flag", "octagon") else 20.0
    width = max(columns(line) for line in text) * _CHAR + extra
    return max(width, 90.0), len(text) * _LINE + 12.0


def _meta(n: StateNode) -> str:
    status = f" ({n.status.value})" if n.status is not None else ""
    now = {Truth.true: "holds now", Truth.false: "does not hold now", Truth.undefined: "undecided"}
    parts = [f"{n.kind}{status}", now[n.truth]]
    if not n.active:
        parts.append(f"superseded by {n.superseded_by}" if n.superseded_by else "retracted")
    return clean(" · ".join(parts))


def _touched(n: StateNode) -> bool:
    return n.changed is not None or n.verdict is not None


def _state(n: StateNode, box: Box, about: Details, rests: list[dict[str, Any]]) -> dict[str, Any]:
    c = colours(n)
    return {
        "id": n.id,
        "kind": n.kind,
        "text": n.text,
        "meta": _meta(n),
        "marks": marks(n),
        "verdict": n.verdict.value if n.verdict is not None else None,
        "shape": shape(n.kind),
        "lines": lines(n),
        "x": box.x,
        "y": box.y,
        "w": box.w,
        "h": box.h,
        "fill": c.fill,
        "stroke": c.stroke,
        "textColour": c.text,
        "bold": _touched(n),
        "dashed": not n.active,
        "double": n.consequence is not None,
        "hidden": n.hidden,
        "details": about.model_dump(),
        "rests": rests,
    }


def _joins(folded: list[Folded], boxes: dict[str, Box]) -> dict[str, Box]:
    """Where each justification's junction goes: just left of its head, those of one head
    spread over its height."""
    by_head: dict[str, list[str]] = {}
    for f in folded:
        by_head.setdefault(f.support.head, []).append(f.support.key)
    out = {}
    for head, keys in by_head.items():
        b = boxes[head]
        step = min(12.0, (b.h - _JOIN) / max(len(keys) - 1, 1))
        for i, key in enumerate(keys):
            y = b.y + (i - (len(keys) - 1) / 2) * step
            out[key] = Box(b.x - b.w / 2 - _JOIN_GAP, y, _JOIN, _JOIN)
    return out


def _join(f: Folded, box: Box, drawn: frozenset[str]) -> dict[str, Any]:
    j = f.support
    look = ORIGINS[j.origin]
    beyond = [v for v in f.via if v not in j.rules]  # the internal nodes passed, and theirs
    via = f" (through {clean(', '.join(beyond))})" if beyond else ""
    return {
        "key": j.key,
        "head": j.head,
        "title": support_tip(j, drawn) + via,
        "x": box.x,
        "y": box.y,
        "w": box.w,
        "colour": look.colour,
        "stroke": ROLE_COLOURS.get(j.role or "", look.colour),
        "fill": "#ffffff" if j.value is Truth.true else "#d5d8dc",
        "dash": _DASHES[look.dash] if look.dash else None,
        "double": look.double,
        "role": j.role,
    }


def _edges(f: Folded) -> list[dict[str, Any]]:
    """The lines of one folded justification: from each memory it rests on to its junction,
    then one to its head, coloured by what the revision did to it."""
    j = f.support
    colour = ROLE_COLOURS.get(j.role or "", "#566573")
    out = []
    for i in f.inputs:
        dash = EDGE_DASH.get(i.kind)
        out.append(
            {
                "src": f"s:{i.src}",
                "dst": f"j:{j.key}",
                "kind": i.kind,
                "dash": _DASHES[dash] if dash else None,
                "colour": MUTED if i.kind == "independent" else colour,
            }
        )
    out.append({"src": f"j:{j.key}", "dst": f"s:{j.head}", "kind": "head", "colour": colour})
    return out


def page_data(picture: Picture, about: dict[str, Details]) -> dict[str, Any]:
    """Everything the page's script draws and shows, positions included.

    Only memories are drawn: each justification is folded into lines that meet at a small
    junction beside its head (:mod:`stategraph.pictures.fold`), and internal nodes are
    folded away; the states a revision touched are also listed in ``groups``, by verdict.
    """
    memories = [n for n in picture.states if not n.internal]
    folded = fold(picture)
    layout = layered(
        {n.id: _size(n) for n in memories},
        [(i.src, f.support.head) for f in folded for i in f.inputs],
        rows=_ROWS,
        left=_JOIN_GAP + _JOIN,
    )
    joins = _joins(folded, layout.boxes)
    drawn = picture.ids()
    rests: dict[str, list[dict[str, Any]]] = {n.id: [] for n in memories}
    for f in folded:
        j = f.support
        undrawn = [(p, "premise") for p in j.premises] + [(u, "unless") for u in j.unless]
        rests[j.head].append(
            {
                "text": support_line(j),
                "inputs": [{"id": i.src, "kind": i.kind} for i in f.inputs]
                + [{"id": p, "kind": k} for p, k in undrawn if p not in drawn],
            }
        )
    touched: dict[str, list[StateNode]] = {}
    for n in memories:
        if _touched(n):
            touched.setdefault(colours(n).name, []).append(n)
    groups = [
        {
            "name": c.name,
            "label": c.meaning,
            "note": note,
            "fill": c.fill,
            "stroke": c.stroke,
            "ids": [n.id for n in sorted(touched[c.name], key=lambda n: (n.depth or 0, n.id))],
        }
        for c, note in GROUPS
        if c.name in touched
    ]
    return {
        "title": clean(picture.title),
        "change": clean(picture.change),
        "scope": clean(picture.scope),
        "leftOut": picture.left_out,
        "revision": picture.revision,
        "focus": picture.focus,
        "width": layout.width,
        "height": layout.height,
        "legend": [
            {"fill": c.fill, "stroke": c.stroke, "meaning": c.meaning}
            for c in legend(tuple(memories))
        ],
        "groups": groups,
        "states": [
            _state(n, layout.boxes[n.id], about.get(n.id, Details()), rests[n.id]) for n in memories
        ],
        "joins": [_join(f, joins[f.support.key], drawn) for f in folded],
        "edges": [e for f in folded for e in _edges(f)],
    }


def _json_block(value: Any) -> str:
    """JSON that cannot end the ``<script>`` element holding it, nor open a comment in it."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def to_html(picture: Picture, about: dict[str, Details] | None = None) -> str:
    """The picture as one HTML page (deterministic: the same picture gives the same bytes).

    Args:
        picture: what to draw.
        about: each state's side panel (:func:`~stategraph.pictures.details.details`); states
            missing from it show no explanations.
    """
    script, style = _asset("page.js"), _asset("page.css")
    csp = (
        f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    values = {
        "CSP": csp,
        "TITLE": html.escape(clean(picture.title)),
        "STYLE": style,
        "DATA": _json_block(page_data(picture, about or {})),
        "SCRIPT": script,
    }
    # one pass: a value is never searched for placeholders itself
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _asset("page.html"))
