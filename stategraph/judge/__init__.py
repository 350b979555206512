"""Counterfactual judges: what logic cannot decide about a candidate edge, asked of a model."""

from stategraph.judge.base import (
    PROMPT_VERSION,
    Judge,
    JudgeAnswer,
    JudgeCall,
    Question,
    Quote,
    question_key,
)
from stategraph.judge.prompt import RESPONSE_SCHEMA, messages_for

__all__ = [
    "PROMPT_VERSION",
    "RESPONSE_SCHEMA",
    "Judge",
    "JudgeAnswer",
    "JudgeCall",
    "Question",
    "Quote",
    "messages_for",
    "question_key",
]
