"""A picture as one self-contained HTML page for browsing a revision.

The page holds everything it needs: its style, a small script that draws the graph as SVG
(laid out here: :mod:`stategraph.pictures.layout`) and the picture's data as JSON, including
each state's justifications, ``why``, ``why-not`` and verdict (:mod:`stategraph.pictures.details`).
It loads nothing from anywhere: no CDN, no network, so it opens from a file, offline, years
later.

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

from stategraph.model import Truth
from stategraph.pictures.details import Details
from stategraph.pictures.labels import clean, columns, lines, support_tip
from stategraph.pictures.layout import layered
from stategraph.pictures.scene import Picture, StateNode, Support
from stategraph.pictures.style import (
    EDGE_DASH,
    MUTED,
    ORIGINS,
    ROLE_COLOURS,
    colours,
    legend,
    shape,
)

__all__ = ["page_data", "to_html"]

_LINE = 14.0  # pixels per line of text in a state
_CHAR = 6.4  # pixels per display column at the page's 11px font
_SUPPORT = 36.0  # diameter of an AND-node
_DASHES = {"dotted": "2 3", "dashed": "6 4"}
_PLACEHOLDER = re.compile(r"@@([A-Z]+)@@")


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


def _state(n: StateNode, box: Any, about: Details) -> dict[str, Any]:
    c = colours(n)
    return {
        "id": n.id,
        "kind": n.kind,
        "text": n.text,
        "meta": _meta(n),
        "shape": shape(n.kind),
        "lines": lines(n),
        "x": box.x,
        "y": box.y,
        "w": box.w,
        "h": box.h,
        "fill": c.fill,
        "stroke": c.stroke,
        "textColour": c.text,
        "bold": n.changed is not None or n.verdict is not None,
        "dashed": not n.active,
        "double": n.consequence is not None,
        "hidden": n.hidden,
        "details": about.model_dump(),
    }


def _support(j: Support, box: Any, drawn: frozenset[str]) -> dict[str, Any]:
    look = ORIGINS[j.origin]
    return {
        "key": j.key,
        "label": look.label,
        "title": support_tip(j, drawn),
        "x": box.x,
        "y": box.y,
        "w": box.w,
        "colour": look.colour,
        "stroke": ROLE_COLOURS.get(j.role or "", look.colour),
        "fill": "#ffffff" if j.value is Truth.true else "#eeeeee",
        "dash": _DASHES[look.dash] if look.dash else None,
        "double": look.double,
        "bold": j.role is not None,
    }


def page_data(picture: Picture, about: dict[str, Details]) -> dict[str, Any]:
    """Everything the page's script draws and shows, positions included."""
    sizes = {f"s:{n.id}": _size(n) for n in picture.states}
    sizes.update({f"j:{j.key}": (_SUPPORT, _SUPPORT) for j in picture.supports})
    edges: list[dict[str, Any]] = []
    pairs: list[tuple[str, str]] = []
    for e in picture.edges():
        src = f"j:{e.src}" if e.kind == "head" else f"s:{e.src}"
        dst = f"s:{e.dst}" if e.kind == "head" else f"j:{e.dst}"
        dash = EDGE_DASH.get(e.kind)
        label = e.kind if e.kind in ("unless", "independent") else None
        colour = MUTED if e.kind == "independent" else "#566573"
        pairs.append((src, dst))
        edges.append(
            {
                "src": src,
                "dst": dst,
                "kind": e.kind,
                "dash": _DASHES[dash] if dash else None,
                "label": label,
                "colour": colour,
            }
        )
    layout = layered(sizes, pairs)
    drawn = picture.ids()
    box = layout.boxes
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
            for c in legend(picture.states)
        ],
        "states": [_state(n, box[f"s:{n.id}"], about.get(n.id, Details())) for n in picture.states],
        "supports": [_support(j, box[f"j:{j.key}"], drawn) for j in picture.supports],
        "edges": edges,
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
