"""Pictures of the support graph: Graphviz DOT, Mermaid, SVG and a self-contained HTML page.

Every format draws the same :class:`~stategraph.pictures.scene.Picture`, built from a store
(:func:`~stategraph.pictures.build.build_picture`): states shaped by kind, each justification
an AND-node, ``unless`` edges dashed, candidate edges dotted, and for a revision every state it
touched coloured by its verdict. :func:`draw` is the one call the command line makes::

    from stategraph import Memory
    from stategraph.pictures import draw

    with Memory("agent.db") as mem:
        page = draw(mem, "html", revision=5)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from stategraph.errors import InvalidInputError
from stategraph.pictures.build import build_picture
from stategraph.pictures.details import details
from stategraph.pictures.dot import to_dot
from stategraph.pictures.html import to_html
from stategraph.pictures.mermaid import to_mermaid
from stategraph.pictures.scene import Picture
from stategraph.pictures.select import DEFAULT_LIMIT
from stategraph.pictures.svg import to_svg

if TYPE_CHECKING:
    from stategraph.memory import Memory

__all__ = [
    "FORMATS",
    "Picture",
    "build_picture",
    "draw",
    "picture_of",
    "render",
    "to_dot",
    "to_html",
    "to_mermaid",
]

Format = Literal["dot", "mermaid", "svg", "html", "json"]
FORMATS: tuple[Format, ...] = ("dot", "mermaid", "svg", "html", "json")
"""What :func:`draw` writes: ``json`` is the picture itself, as data for other tools."""


def picture_of(
    memory: Memory,
    *,
    revision: int | None = None,
    around: str | None = None,
    hops: int | None = None,
    limit: int = DEFAULT_LIMIT,
) -> Picture:
    """What to draw of a memory's store (:func:`~stategraph.pictures.build.build_picture`,
    named after the store's file)."""
    name = getattr(memory.store, "path", "")
    return build_picture(
        memory.store,
        name="" if name == ":memory:" else str(name),
        revision=revision,
        around=around,
        hops=hops,
        limit=limit,
    )


def render(memory: Memory, picture: Picture, fmt: Format = "dot") -> str:
    """A picture as text in one format (the HTML page reads each drawn state's details).

    Raises:
        ToolNotFoundError: ``svg`` without Graphviz installed.
        InvalidInputError: an unknown format.
    """
    if fmt not in FORMATS:
        raise InvalidInputError("picture", [("format", f"one of {', '.join(FORMATS)}")])
    if fmt == "json":
        return picture.model_dump_json(indent=2) + "\n"
    if fmt == "mermaid":
        return to_mermaid(picture)
    if fmt == "html":
        return to_html(picture, details(memory, picture))
    text = to_dot(picture)
    return to_svg(text) if fmt == "svg" else text


def draw(
    memory: Memory,
    fmt: Format = "dot",
    *,
    revision: int | None = None,
    around: str | None = None,
    hops: int | None = None,
    limit: int = DEFAULT_LIMIT,
) -> str:
    """A picture of a memory's store, as text in one format.

    Args:
        memory: the memory to draw (only the part drawn is read from its store).
        fmt: ``dot``, ``mermaid``, ``svg`` (needs Graphviz), ``html`` or ``json``.
        revision, around, hops, limit: what to draw
            (:func:`~stategraph.pictures.build.build_picture`); ``limit`` counts the nodes
            drawn, states and justifications together.

    Raises:
        ToolNotFoundError: ``svg`` without Graphviz installed.
        InvalidInputError: an unknown format, or what ``build_picture`` refuses.
    """
    if fmt not in FORMATS:
        raise InvalidInputError("picture", [("format", f"one of {', '.join(FORMATS)}")])
    picture = picture_of(memory, revision=revision, around=around, hops=hops, limit=limit)
    return render(memory, picture, fmt)
