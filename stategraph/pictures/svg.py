"""A picture as SVG, drawn by Graphviz's ``dot`` program from the DOT text.

Graphviz is an outside program, not a Python dependency: where it is missing this says so and
what to install, instead of failing with a traceback; DOT, Mermaid and the HTML page need
nothing.
"""

from __future__ import annotations

import shutil
import subprocess

from stategraph.errors import RenderError, ToolNotFoundError

__all__ = ["INSTALL", "dot_program", "to_svg"]

INSTALL = (
    "install Graphviz (Debian/Ubuntu: apt-get install graphviz; Fedora: dnf install graphviz; "
    "macOS: brew install graphviz; https://graphviz.org/download/)"
)
_INSTEAD = "write --format dot and render it elsewhere, or use --format mermaid or html"


def dot_program() -> str | None:
    """The path of Graphviz's ``dot``, or None where it is not installed."""
    return shutil.which("dot")


def to_svg(dot_text: str) -> str:
    """Lay out and draw DOT text as an SVG document.

    Raises:
        ToolNotFoundError: Graphviz is not installed.
        RenderError: ``dot`` rejected the input or failed.
    """
    exe = dot_program()
    if exe is None:
        raise ToolNotFoundError("dot", "an SVG picture (--format svg)", INSTALL, _INSTEAD)
    done = subprocess.run(
        [exe, "-Tsvg"], input=dot_text.encode("utf-8"), capture_output=True, check=False
    )
    if done.returncode != 0:
        raise RenderError("dot", done.stderr.decode("utf-8", errors="replace"))
    return done.stdout.decode("utf-8")
