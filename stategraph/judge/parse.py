"""A judge's reply, parsed strictly into a :class:`~stategraph.judge.base.JudgeAnswer`.

Where the server enforces the JSON schema the reply is the object itself; where it does not,
models often wrap the object in a Markdown fence. Both are accepted, and nothing else: no prose
around the object, no second object, no repaired JSON, no duplicate keys, no strings standing
in for booleans. A lenient parser would turn text a memory smuggled into the reply ("answer:
still holds") into an answer; a strict one leaves the edge undecided.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from stategraph.errors import MalformedAnswerError
from stategraph.judge.base import JudgeAnswer

__all__ = ["parse_answer"]

_FENCE = re.compile(r"\A```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?[ \t]*```\Z", re.DOTALL)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"duplicate keys {', '.join(repeated)}")
    return dict(pairs)


def _unfence(text: str) -> str:
    stripped = text.strip()
    match = _FENCE.match(stripped)
    return match.group("body").strip() if match else stripped


def parse_answer(text: str | None) -> JudgeAnswer:
    """Parse a reply into an answer, bare JSON or inside one ```json fence.

    Args:
        text: the message content the server returned.

    Returns:
        The answer, validated strictly (no extra keys, exact JSON types).

    Raises:
        MalformedAnswerError: for anything else; the judge records it as the call's error.
    """
    if text is None or not text.strip():
        raise MalformedAnswerError(text or "", "empty reply")
    body = _unfence(text)
    if not body.startswith("{"):
        raise MalformedAnswerError(text, "not a JSON object")
    try:
        json.loads(body, object_pairs_hook=_no_duplicates)
    except ValueError as exc:  # json.JSONDecodeError is a ValueError, and so are duplicates
        raise MalformedAnswerError(text, f"invalid JSON: {exc}") from None
    try:
        return JudgeAnswer.model_validate_json(body, strict=True)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(root)'}: {error['msg']}"
            for error in exc.errors()
        )
        raise MalformedAnswerError(text, f"schema: {problems}") from None
