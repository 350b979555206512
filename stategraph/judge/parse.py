"""A judge's reply, parsed strictly into :class:`~stategraph.judge.base.JudgeAnswer` objects.

Where the server enforces the JSON schema the reply is the object itself; where it does not,
models often wrap the object in a Markdown fence. Both are accepted, and nothing else: no prose
around the object, no second object, no repaired JSON, no duplicate keys, no strings standing
in for booleans. A lenient parser would turn text a memory smuggled into the reply ("answer:
still holds") into an answer; a strict one leaves the edge undecided.

A reply to several questions (:func:`parse_answers`) must answer each head at most once and
no head that was not asked; a reply that does either is malformed as a whole (it cannot be
told which answer is the model's), and a head it leaves out has no answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stategraph.errors import MalformedAnswerError
from stategraph.judge.base import PER_EDGE_VERSIONS, PROMPT_VERSION, JudgeAnswer

__all__ = ["parse_answer", "parse_answers"]

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


def _body(text: str | None) -> str:
    """The JSON object of a reply (bare or in one fence), checked for syntax and duplicates."""
    if text is None or not text.strip():
        raise MalformedAnswerError(text or "", "empty reply")
    body = _unfence(text)
    if not body.startswith("{"):
        raise MalformedAnswerError(text, "not a JSON object")
    try:
        json.loads(body, object_pairs_hook=_no_duplicates)
    except ValueError as exc:  # json.JSONDecodeError is a ValueError, and so are duplicates
        raise MalformedAnswerError(text, f"invalid JSON: {exc}") from None
    return body


def _problems(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in error['loc']) or '(root)'}: {error['msg']}"
        for error in exc.errors()
    )


class _Named(JudgeAnswer):
    """One answer in a reply to several questions: the answer and the head it is about."""

    head: str


class _Reply(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    answers: tuple[_Named, ...] = Field(max_length=1000)


def parse_answers(
    text: str | None, heads: Collection[str], prompt_version: str = PROMPT_VERSION
) -> dict[str, JudgeAnswer]:
    """Parse a reply to the questions about ``heads`` into each head's answer.

    Under a prompt version that asks one question a request (:data:`PER_EDGE_VERSIONS`)
    the reply is that one question's answer (:func:`parse_answer`).

    Returns:
        ``{head: answer}``; a head the reply does not answer is left out.

    Raises:
        MalformedAnswerError: the reply is no valid answer, answers a head twice or one
            that was not asked.
    """
    if prompt_version in PER_EDGE_VERSIONS:
        (head,) = heads
        return {head: parse_answer(text)}
    body = _body(text)
    try:
        reply = _Reply.model_validate_json(body, strict=True)
    except ValidationError as exc:
        raise MalformedAnswerError(text or "", f"schema: {_problems(exc)}") from None
    named = [a.head for a in reply.answers]
    twice = sorted({h for h in named if named.count(h) > 1})
    if twice:
        raise MalformedAnswerError(text or "", f"answers {', '.join(twice)} more than once")
    foreign = sorted(set(named) - set(heads))
    if foreign:
        raise MalformedAnswerError(text or "", f"answers {', '.join(foreign)}, not asked")
    return {a.head: JudgeAnswer(**a.model_dump(exclude={"head"})) for a in reply.answers}


def parse_answer(text: str | None) -> JudgeAnswer:
    """Parse a reply into an answer, bare JSON or inside one ```json fence.

    Args:
        text: the message content the server returned.

    Returns:
        The answer, validated strictly (no extra keys, exact JSON types).

    Raises:
        MalformedAnswerError: for anything else; the judge records it as the call's error.
    """
    body = _body(text)
    try:
        return JudgeAnswer.model_validate_json(body, strict=True)
    except ValidationError as exc:
        raise MalformedAnswerError(text or "", f"schema: {_problems(exc)}") from None
