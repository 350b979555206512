"""The pictures' visual vocabulary, shared by every format: a shape per kind, colours per
verdict, a look per justification origin.

Kept in one place so that the DOT drawing, the Mermaid chart and the HTML page say the same
thing the same way, and a legend can be written once.
"""

from __future__ import annotations

from dataclasses import dataclass

from stategraph.model import Origin, Truth, Verdict
from stategraph.pictures.scene import StateNode

__all__ = [
    "EDGE_DASH",
    "KIND_SHAPES",
    "ORIGINS",
    "Colours",
    "OriginLook",
    "colours",
    "legend",
    "shape",
]

KIND_SHAPES = {"fact": "box", "belief": "round", "plan": "hexagon", "action": "flag"}
"""Abstract shapes by kind (each format maps them to its own); other kinds are octagons."""
DEFAULT_SHAPE = "octagon"


def shape(kind: str) -> str:
    """The shape a state of this kind is drawn as."""
    return KIND_SHAPES.get(kind, DEFAULT_SHAPE)


@dataclass(frozen=True)
class Colours:
    """Fill, border and text colour of a state, a name for them (a CSS class), and the words
    a legend gives them."""

    name: str
    fill: str
    stroke: str
    text: str
    meaning: str


VERDICT_COLOURS = {
    Verdict.invalidated: Colours("invalidated", "#fadbd8", "#c0392b", "#000000", "invalidated"),
    Verdict.kept: Colours("kept", "#d5f5e3", "#1e8449", "#000000", "kept"),
    Verdict.restored: Colours("restored", "#d6eaf8", "#2471a3", "#000000", "restored"),
    Verdict.needs_confirmation: Colours(
        "needs_confirmation", "#fcf3cf", "#b7950b", "#000000", "needs confirmation"
    ),
}
CHANGED = Colours("changed", "#e8daef", "#6c3483", "#000000", "changed by the revision")
HOLDS = Colours("holds", "#ffffff", "#34495e", "#000000", "holds")
NOT_HOLDING = Colours("not_holding", "#f4f6f6", "#95a5a6", "#7f8c8d", "does not hold")
UNDECIDED = Colours("undecided", "#fef9e7", "#b7950b", "#7f8c8d", "undecided")


def colours(node: StateNode) -> Colours:
    """A state's colours: what the revision did to it, else whether it holds now."""
    if node.changed is not None:
        return CHANGED
    if node.verdict is not None:
        return VERDICT_COLOURS[node.verdict]
    if node.truth is Truth.true:
        return HOLDS
    return UNDECIDED if node.truth is Truth.undefined else NOT_HOLDING


@dataclass(frozen=True)
class OriginLook:
    """How an AND-node of one origin looks: its label, colour, outline and whether it is
    doubled (a judge's or a person's word)."""

    label: str
    colour: str
    dash: str | None
    double: bool


ORIGINS = {
    Origin.declared: OriginLook("and", "#2c3e50", None, False),
    Origin.rule: OriginLook("rule", "#2471a3", None, False),
    Origin.recovered: OriginLook("cand", "#7f8c8d", "dotted", False),
    Origin.judge: OriginLook("judge", "#7d3c98", None, True),
    Origin.assumed: OriginLook("assumed", "#7f8c8d", "dashed", False),
    Origin.review: OriginLook("review", "#ca6f1e", None, True),
}
ROLE_COLOURS = {"lost": "#c0392b", "carries": "#1e8449"}
"""The outline of a justification the revision lost, or that carries its head."""

EDGE_DASH = {"candidate": "dotted", "independent": "dotted", "unless": "dashed"}
"""Edge kinds drawn other than solid (see :class:`~stategraph.pictures.scene.Edge`)."""
MUTED = "#95a5a6"


def legend(nodes: tuple[StateNode, ...]) -> list[Colours]:
    """The colours used in a picture, in a fixed order, for its legend."""
    used = {colours(n) for n in nodes}
    order = [CHANGED, *VERDICT_COLOURS.values(), HOLDS, UNDECIDED, NOT_HOLDING]
    return [c for c in order if c in used]
