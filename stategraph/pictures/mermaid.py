"""A picture as a Mermaid flowchart: renders on GitHub, GitLab and in many editors with no
tool installed.

Mermaid's grammar is looser than DOT's, so nothing a memory wrote reaches it as syntax: nodes
get generated names (``s0``, ``j0``), and labels are quoted with the characters that could end
the quote or be read as markup written as HTML entities (``&quot;``, ``&lt;``), which Mermaid
passes to the label's HTML as they are. Mermaid's own ``#NN;`` codes are not used: Mermaid 11
shows them as garbage in flowchart labels, and ``#`` itself is written ``&num;`` so that a
memory's ``#35;`` stays text; ``%`` is ``&percnt;``, so no text can hold a ``%%{init}%%``
directive (Mermaid looks for those anywhere in the chart, comments included). Dashed and
dotted lines are set by ``linkStyle`` on the edge's index, the only way Mermaid styles one
edge.
"""

from __future__ import annotations

from stategraph.model import Truth
from stategraph.pictures.labels import clean, lines
from stategraph.pictures.scene import Picture, StateNode, Support
from stategraph.pictures.style import (
    CHANGED,
    MUTED,
    ORIGINS,
    ROLE_COLOURS,
    VERDICT_COLOURS,
    Colours,
    colours,
    shape,
)

__all__ = ["to_mermaid"]

_SHAPES = {
    "box": ('["', '"]'),
    "round": ('(["', '"])'),
    "hexagon": ('{{"', '"}}'),
    "flag": ('>"', '"]'),
    "octagon": ('[["', '"]]'),
}
_ENTITIES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "#": "&num;",
    "`": "&grave;",
    "%": "&percnt;",
}
_DASH = {"dotted": "stroke-dasharray:2 3", "dashed": "stroke-dasharray:6 4"}


def text(value: str) -> str:
    """Text safe inside a quoted Mermaid label: quotes and markup as HTML entities."""
    return "".join(_ENTITIES.get(c, c) for c in clean(value))


def _class_def(c: Colours, wide: bool) -> str:
    width = ",stroke-width:2px" if wide else ""
    return f"  classDef {c.name} fill:{c.fill},stroke:{c.stroke},color:{c.text}{width}"


def _state(name: str, n: StateNode) -> str:
    left, right = _SHAPES[shape(n.kind)]
    return f"  {name}{left}{'<br/>'.join(text(line) for line in lines(n))}{right}"


def _support(name: str, j: Support) -> str:
    look = ORIGINS[j.origin]
    ring = ("(((", ")))") if look.double else ("((", "))")
    return f'  {name}{ring[0]}"{look.label}"{ring[1]}'


def to_mermaid(p: Picture) -> str:
    """The picture as a Mermaid ``flowchart`` (deterministic)."""
    names = {n.id: f"s{i}" for i, n in enumerate(p.states)}
    names.update({j.key: f"j{i}" for i, j in enumerate(p.supports)})
    out = [f"%% {text(p.title)}"]
    if p.change:
        out.append(f"%% {text(p.change)}")
    scope = p.scope + (f"; {p.left_out} more next to these not drawn" if p.left_out else "")
    out += [f"%% {text(scope)}", "flowchart LR"]
    out.extend(_state(names[n.id], n) for n in p.states)
    out.extend(_support(names[j.key], j) for j in p.supports)
    styles: list[str] = []
    for i, e in enumerate(p.edges()):
        src, dst = names[e.src], names[e.dst]
        if e.kind == "unless":
            out.append(f"  {src} --x|unless| {dst}")
            styles.append(f"  linkStyle {i} {_DASH['dashed']}")
        elif e.kind == "candidate":
            out.append(f"  {src} -.-> {dst}")
            styles.append(f"  linkStyle {i} {_DASH['dotted']}")
        elif e.kind == "independent":
            out.append(f"  {src} -.->|independent| {dst}")
            styles.append(f"  linkStyle {i} {_DASH['dotted']},stroke:{MUTED}")
        else:
            out.append(f"  {src} --> {dst}")
    if p.left_out:
        out.append(f'  more["{p.left_out} more states next to these are not drawn"]')
    out += styles
    out += _classes(p, names)
    return "\n".join(out) + "\n"


def _classes(p: Picture, names: dict[str, str]) -> list[str]:
    """``classDef`` lines for the looks in use, and ``class`` lines assigning them."""
    members: dict[str, list[str]] = {}
    defs: dict[str, str] = {}
    for n in p.states:
        c = colours(n)
        wide = c is CHANGED or c in VERDICT_COLOURS.values()
        defs[c.name] = _class_def(c, wide)
        members.setdefault(c.name, []).append(names[n.id])
        if not n.active:
            defs["inactive"] = f"  classDef inactive {_DASH['dashed']}"
            members.setdefault("inactive", []).append(names[n.id])
    for j in p.supports:
        look = ORIGINS[j.origin]
        holds = j.value is Truth.true
        name = "_".join(
            [j.origin.value, *([j.role] if j.role else []), *([] if holds else ["off"])]
        )
        stroke = ROLE_COLOURS.get(j.role or "", look.colour)
        dash = f",{_DASH[look.dash]}" if look.dash else ""
        fill = "#ffffff" if holds else "#eeeeee"
        defs[name] = f"  classDef {name} fill:{fill},stroke:{stroke},color:{look.colour}{dash}"
        members.setdefault(name, []).append(names[j.key])
    out = [defs[k] for k in sorted(defs)]
    out += [f"  class {','.join(members[k])} {k}" for k in sorted(members)]
    return out
