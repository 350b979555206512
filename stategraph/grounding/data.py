"""Reading the shipped JSONL pattern packs, always through :mod:`stategraph.resources`."""

from __future__ import annotations

import json
from typing import Any

from stategraph.errors import ResourceNotFoundError
from stategraph.resources import list_resources, read_text

__all__ = ["read_jsonl", "read_jsonl_folder"]


def read_jsonl(name: str) -> list[dict[str, Any]]:
    """Read one JSONL file of the ``grounding`` data folder.

    Blank lines are skipped so the files can be grouped by hand; every other line must be a
    JSON object.

    Args:
        name: a ``/``-separated path inside ``grounding/``, e.g. ``"en/cues.jsonl"``.

    Raises:
        ResourceNotFoundError: when the file is not shipped.
        ValueError: when a line is not a JSON object (the message names file and line).
    """
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(read_text("grounding", name).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"grounding/{name}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise ValueError(f"grounding/{name}:{number}: expected a JSON object per line")
        rows.append(row)
    return rows


def read_jsonl_folder(under: str) -> list[dict[str, Any]]:
    """Read and concatenate every ``.jsonl`` file below ``grounding/<under>``, in name order.

    Raises:
        ResourceNotFoundError: when the folder holds no JSONL file at all.
    """
    names = list_resources("grounding", under, ".jsonl")
    if not names:
        raise ResourceNotFoundError(f"grounding/{under}/*.jsonl")
    rows: list[dict[str, Any]] = []
    for name in names:
        rows.extend(read_jsonl(name))
    return rows
