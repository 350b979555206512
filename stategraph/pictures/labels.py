"""The words on a drawn state: its header, its text cut to a few lines, and its marks.

Every format draws the same lines, so a state reads the same in DOT, Mermaid and the page.
Memory text is untrusted and may be long: it is flattened to one paragraph, characters that
could forge or reorder a line (controls, bidi overrides, zero-width marks) are shown as
escapes, and it is wrapped by display width (a Chinese character takes two columns) and cut
with an ellipsis. Escaping for each output syntax is the renderers' job, not this module's.
"""

from __future__ import annotations

import unicodedata

from stategraph.engine.proof_text import confirmed_by
from stategraph.model import Origin, Truth
from stategraph.pictures.scene import StateNode, Support

__all__ = ["COLUMNS", "clean", "columns", "lines", "marks", "support_tip", "wrap"]

COLUMNS = 30
"""Display columns per line of a state's text."""
MAX_LINES = 3
"""Lines of text per state; the rest is cut (the page and tooltips show it whole)."""


def clean(text: str) -> str:
    """One paragraph, with invisible and control characters shown as escapes.

    Unicode categories ``C*`` (controls, format characters such as bidi overrides and
    zero-width joiners, unassigned and private-use code points) are written as their Python
    escapes, so a memory cannot hide text or reverse the order of what a reader sees.
    """
    flat = " ".join(text.split())
    return "".join(ascii(c)[1:-1] if unicodedata.category(c).startswith("C") else c for c in flat)


def columns(text: str) -> int:
    """How many display columns a string takes (wide East Asian characters count two)."""
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def wrap(text: str, width: int = COLUMNS, max_lines: int = MAX_LINES) -> list[str]:
    """Break cleaned text into lines of at most ``width`` columns, at spaces where there are
    any (Chinese text has none: it breaks between characters), and cut it to ``max_lines``."""
    out: list[str] = []
    line, used = "", 0
    for c in clean(text):
        w = columns(c)
        if used + w > width and line:
            cut = line.rfind(" ")
            if c != " " and cut > 0:
                out.append(line[:cut])
                line = line[cut + 1 :]
            else:
                out.append(line.rstrip())
                line = ""
            used = columns(line)
            if c == " " and not line:
                continue
        line += c
        used += w
    if line.strip():
        out.append(line.rstrip())
    if len(out) > max_lines:
        last = out[max_lines - 1]
        while last and columns(last) > width - 1:
            last = last[:-1]
        out = [*out[: max_lines - 1], last.rstrip() + "…"]
    return out


def marks(node: StateNode) -> str:
    """What happened to the state, in a few words: the revision's verdict or change, else
    whether it holds now."""
    parts: list[str] = []
    if node.changed:
        by = f" by {node.superseded_by}" if node.changed == "superseded" else ""
        parts.append(f"{node.changed.replace('_', ' ')}{by}")
    elif node.verdict is not None:
        parts.append(node.verdict.value.replace("_", " "))
    elif not node.active:
        parts.append(f"superseded by {node.superseded_by}" if node.superseded_by else "retracted")
    elif node.truth is Truth.false:
        parts.append("does not hold")
    elif node.truth is Truth.undefined:
        parts.append("undecided")
    if node.consequence is not None:
        parts.append(node.consequence.value)
    return clean(" · ".join(parts))


def lines(node: StateNode) -> list[str]:
    """Every line drawn on a state: ``id · kind``, its wrapped text, and its marks."""
    status = f" ({node.status.value})" if node.status is not None else ""
    header = wrap(f"{node.id} · {node.kind}{status}", COLUMNS, 1)
    mark = marks(node)
    return [*header, *wrap(node.text), *([mark] if mark else [])]


def support_tip(j: Support, drawn: frozenset[str]) -> str:
    """What an AND-node's tooltip says: whose justification, and what is not drawn of it."""
    via = f" via {', '.join(j.rules)}" if j.rules else ""
    n = j.undrawn(drawn)
    more = f" ({n} premise{'s' if n > 1 else ''} or condition{'s' if n > 1 else ''} not drawn)"
    who = f": {confirmed_by(j.ref())}" if j.origin is Origin.review else ""
    return clean(f"{j.origin.value} justification of {j.head}{via}{who}{more if n else ''}")
