"""Access to the data folders that ship with the package: ``rules/`` and ``grounding/``.

In a built wheel both folders live inside the package (``stategraph/_data/``, mapped in
``pyproject.toml``) and are read through :mod:`importlib.resources`. In a source checkout or an
editable install they are the top-level folders beside the package. Either way the location is
found from the package itself, never from the current working directory.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

from stategraph.errors import ResourceNotFoundError

__all__ = ["DataFolder", "data_root", "list_resources", "read_text"]

DataFolder = Literal["rules", "grounding"]


def data_root(folder: DataFolder) -> Traversable:
    """The root of a shipped data folder.

    Args:
        folder: ``"rules"`` (ASP encodings and rule packs) or ``"grounding"`` (pattern packs).
    """
    packaged = files("stategraph").joinpath("_data").joinpath(folder)
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / folder
    if checkout.is_dir():
        return checkout
    raise ResourceNotFoundError(f"{folder}/")


def _resolve(folder: DataFolder, name: str) -> Traversable:
    node = data_root(folder)
    for part in name.split("/"):
        node = node.joinpath(part)
    return node


def read_text(folder: DataFolder, name: str) -> str:
    """Read one shipped file as UTF-8 text.

    Args:
        folder: the data folder.
        name: a ``/``-separated path inside it, e.g. ``"core/stable.lp"``.

    Raises:
        ResourceNotFoundError: when the file is not shipped.
    """
    node = _resolve(folder, name)
    if not node.is_file():
        parent = name.rsplit("/", 1)[0] if "/" in name else ""
        raise ResourceNotFoundError(f"{folder}/{name}", list_resources(folder, parent))
    return str(node.read_text(encoding="utf-8"))


def list_resources(folder: DataFolder, under: str = "", suffix: str = "") -> list[str]:
    """Names (``/``-separated, relative to the folder) of the shipped files below ``under``."""
    root = _resolve(folder, under) if under else data_root(folder)
    if not root.is_dir():
        return []
    prefix = f"{under.rstrip('/')}/" if under else ""
    out: list[str] = []
    stack: list[tuple[str, Traversable]] = [(prefix, root)]
    while stack:
        rel, node = stack.pop()
        for child in node.iterdir():
            if child.is_dir():
                stack.append((f"{rel}{child.name}/", child))
            elif child.name.endswith(suffix):
                out.append(f"{rel}{child.name}")
    return sorted(out)
