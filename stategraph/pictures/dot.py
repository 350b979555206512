"""A picture as Graphviz DOT text.

States are nodes shaped by kind and coloured by verdict; each justification is a small
AND-node between its premises and its head, so a state with two justifications visibly has
two ways to hold. Every name and label is a quoted DOT string (backslashes and quotes
escaped, so a memory's text cannot end the string or inject an attribute, nor use Graphviz's
``\\N``-style escapes); the caption is an HTML-like label, entity-escaped.
"""

from __future__ import annotations

import html

from stategraph.pictures.labels import clean, lines, support_tip
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

__all__ = ["to_dot"]

_SHAPES = {
    "box": "box",
    "round": "ellipse",
    "hexagon": "hexagon",
    "flag": "cds",
    "octagon": "octagon",
}
_TOOLTIP = 500  # characters of a memory's text kept in its tooltip


def quote(text: str) -> str:
    """A DOT quoted string: nothing inside can end it or act as an escape."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(parts: list[str]) -> str:
    """Lines as one quoted label, joined by DOT's centred line break."""
    return '"' + "\\n".join(quote(p)[1:-1] for p in parts) + '"'


def _attrs(pairs: list[tuple[str, str]]) -> str:
    return ", ".join(f"{k}={v}" for k, v in pairs)


def _state(n: StateNode) -> str:
    c = colours(n)
    style = ["filled"]
    if not n.active:
        style.append("dashed")
    pairs = [
        ("shape", _SHAPES[shape(n.kind)]),
        ("label", _label(lines(n))),
        ("style", quote(",".join(style))),
        ("fillcolor", quote(c.fill)),
        ("color", quote(c.stroke)),
        ("fontcolor", quote(c.text)),
    ]
    if n.changed is not None or n.verdict is not None:
        pairs.append(("penwidth", "2"))
    if n.consequence is not None:
        pairs.append(("peripheries", "2"))
    more = f" ({n.hidden} neighbour{'s' if n.hidden > 1 else ''} not drawn)" if n.hidden else ""
    tip = clean(n.text)[:_TOOLTIP] + more
    pairs.append(("tooltip", quote(tip or n.id)))
    return f"  {quote('state:' + n.id)} [{_attrs(pairs)}];"


def _support(j: Support, drawn: frozenset[str]) -> str:
    look = ORIGINS[j.origin]
    style = ["filled"] + ([look.dash] if look.dash else [])
    pairs = [
        ("shape", "doublecircle" if look.double else "circle"),
        ("label", quote(look.label)),
        ("style", quote(",".join(style))),
        ("fillcolor", quote("#ffffff" if j.value.value == "true" else "#eeeeee")),
        ("color", quote(ROLE_COLOURS.get(j.role or "", look.colour))),
        ("fontcolor", quote(look.colour)),
    ]
    if j.role is not None:
        pairs.append(("penwidth", "2"))
    pairs.append(("tooltip", quote(support_tip(j, drawn))))
    return f"  {quote(_support_name(j.key))} [{_attrs(pairs)}];"


def _support_name(key: str) -> str:
    return "support:" + key


def _caption(p: Picture) -> str:
    """The graph's caption: title, change, scope, what was left out, and a colour key."""
    rows = [f"<b>{html.escape(clean(p.title))}</b>"]
    if p.change:
        rows.append(html.escape(clean(p.change)))
    scope = p.scope + (f"; {p.left_out} more next to these not drawn" if p.left_out else "")
    rows.append(html.escape(clean(scope)))
    # Coloured squares in one line of text: Graphviz would stretch a row of table cells to
    # the caption's widest line.
    rows.append(
        "   ".join(
            f'<font color="{c.stroke}">■</font> {html.escape(c.meaning)}' for c in legend(p.states)
        )
    )
    key = (
        "circles: justifications (all premises hold, no 'unless' holds); "
        "dashed: unless; dotted: candidate premise; double: judge or review"
    )
    rows.append(f'<font point-size="8">{html.escape(key)}</font>')
    out = "".join(f"<tr><td>{r}</td></tr>" for r in rows)
    return f'<<table border="0" cellspacing="0" cellpadding="2">{out}</table>>'


def to_dot(p: Picture) -> str:
    """The picture as DOT text (deterministic: the same picture gives the same bytes)."""
    out = [
        "digraph stategraph {",
        f"  graph [rankdir=LR, fontname=Helvetica, fontsize=10, labelloc=t, nodesep=0.25, "
        f"ranksep=0.4, label={_caption(p)}];",
        '  node [fontname=Helvetica, fontsize=10, margin="0.12,0.06"];',
        "  edge [fontname=Helvetica, fontsize=8, arrowsize=0.7];",
    ]
    out.extend(_state(n) for n in p.states)
    drawn = p.ids()
    out.extend(_support(j, drawn) for j in p.supports)
    for e in p.edges():
        src = _support_name(e.src) if e.kind == "head" else "state:" + e.src
        dst = e.dst if e.kind == "head" else _support_name(e.dst)
        pairs: list[tuple[str, str]] = []
        if e.kind in EDGE_DASH:
            pairs.append(("style", EDGE_DASH[e.kind]))
        if e.kind == "unless":
            pairs += [("arrowhead", "tee"), ("label", quote("unless"))]
        if e.kind == "independent":
            pairs += [("color", quote(MUTED)), ("label", quote("independent"))]
        if e.kind == "head":
            dst = "state:" + dst
        attrs = f" [{_attrs(pairs)}]" if pairs else ""
        out.append(f"  {quote(src)} -> {quote(dst)}{attrs};")
    out.append("}")
    return "\n".join(out) + "\n"
