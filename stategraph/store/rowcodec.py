"""The ``justifications`` table's columns decoded, without the models.

Both readers of a justification row use these: the store (:mod:`.sqlite`, which builds
:class:`~stategraph.model.Justification` objects from them) and the command line's reading of
a proof without pydantic (:mod:`.ancestry`), so the two cannot decode a row differently.
"""

from __future__ import annotations

import json
from typing import Any

from stategraph.values import EdgeCheck

__all__ = ["decode_extra", "decode_ids"]


def decode_ids(text: str) -> tuple[str, ...]:
    """Decode a stored JSON array of ids; the common case (no escapes) without the parser."""
    if text == "[]":
        return ()
    if "\\" in text:
        return tuple(json.loads(text))
    return tuple(text[2:-2].split('","'))


def decode_extra(extra: str) -> dict[str, Any]:
    """The ``checked``, ``notes``, ``rules`` and ``proposed`` fields a non-empty ``extra``
    column holds (``proposed`` is absent from rows written before candidates were proposed)."""
    more = json.loads(extra)
    return {
        "checked": {k: EdgeCheck(v) for k, v in more["checked"].items()},
        "notes": more["notes"],
        "rules": tuple(more["rules"]),
        "proposed": more.get("proposed", {}),
    }
