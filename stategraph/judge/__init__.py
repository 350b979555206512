"""Counterfactual judges: what logic cannot decide about a candidate edge, asked of a model.

:class:`OpenAIJudge` is imported on first use: it pulls in the ``openai`` SDK, which more than
doubles the import time of stategraph, and a memory with no judge never needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stategraph.judge.base import (
    PROMPT_VERSION,
    Changed,
    Judge,
    JudgeAnswer,
    JudgeCall,
    Question,
    Quote,
    question_key,
)
from stategraph.judge.chat import ChatFailure, ChatJudge, ChatReply
from stategraph.judge.parse import parse_answer, parse_answers
from stategraph.judge.prompt import RESPONSE_SCHEMA, messages_for, messages_for_batch
from stategraph.judge.replay import ReplayJudge

if TYPE_CHECKING:
    from stategraph.judge.openai_judge import OpenAIJudge

__all__ = [
    "PROMPT_VERSION",
    "RESPONSE_SCHEMA",
    "Changed",
    "ChatFailure",
    "ChatJudge",
    "ChatReply",
    "Judge",
    "JudgeAnswer",
    "JudgeCall",
    "OpenAIJudge",
    "Question",
    "Quote",
    "ReplayJudge",
    "messages_for",
    "messages_for_batch",
    "parse_answer",
    "parse_answers",
    "question_key",
]


def __getattr__(name: str) -> Any:
    if name == "OpenAIJudge":
        from stategraph.judge.openai_judge import OpenAIJudge

        return OpenAIJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
