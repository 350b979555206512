"""A judge that answers from recorded calls: a logged revision replayed with the model off.

Every call a judge makes is logged with its key (model, prompt version and every text asked),
so the same question asked again has the same key and the recorded call is its answer. A
replay never reaches a model: a question the log does not hold gets a call with an error,
and the engine leaves that edge undecided exactly as it would for a failed request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from stategraph.errors import JudgeConfigError
from stategraph.judge.base import PROMPT_VERSION, JudgeCall, Question, question_key

__all__ = ["NOT_IN_LOG", "ReplayJudge"]

NOT_IN_LOG = "not in the replay log"
"""The error of a call for a question no recorded call answers."""

_NAME = "stategraph.replay_judge.v1"


class ReplayJudge:
    """A :class:`~stategraph.judge.base.Judge` that serves recorded calls by key.

    A served call is the recorded one, marked ``cached=True`` with ``attempts=0``; its
    answer or error, tokens and latency are those recorded, so a replayed revision sees what
    the original saw. Where the log holds several calls for one key, an answer beats an
    error (a later revision may have asked again after a timeout) and, among equals, the
    earliest wins.

    Args:
        calls: the recorded calls, in log order.
        name: the judge's versioned name.
        model: the model whose answers to serve (part of every key). None takes the one
            model of ``calls`` (an empty log then answers nothing, under model ``""``).
        prompt_version: the prompt version whose answers to serve.

    Raises:
        JudgeConfigError: when ``model`` is None and the calls name several models, or
            when a recorded call's key is not the key of its own question (the log was
            edited, or written by another key scheme).
    """

    def __init__(
        self,
        calls: Iterable[JudgeCall],
        name: str = _NAME,
        model: str | None = None,
        prompt_version: str = PROMPT_VERSION,
    ) -> None:
        recorded = list(calls)
        self.name = name
        self.model = model if model is not None else _one_model(name, recorded)
        self.prompt_version = prompt_version
        self._calls: dict[str, JudgeCall] = {}
        for call in recorded:
            _check_key(name, call)
            held = self._calls.get(call.key)
            if held is None or (held.answer is None and call.answer is not None):
                self._calls[call.key] = call

    def __len__(self) -> int:
        """The number of distinct questions the log answers."""
        return len(self._calls)

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        """Serve each question from the log, in order; never reaches a model."""
        return [self._serve(question) for question in questions]

    def _serve(self, question: Question) -> JudgeCall:
        key = question_key(question, self.model, self.prompt_version)
        recorded = self._calls.get(key)
        if recorded is None:
            return JudgeCall(
                key=key,
                question=question,
                judge=self.name,
                model=self.model,
                prompt_version=self.prompt_version,
                error=NOT_IN_LOG,
            )
        return recorded.model_copy(update={"cached": True, "attempts": 0})


def _one_model(name: str, calls: list[JudgeCall]) -> str:
    models = sorted({call.model for call in calls})
    if len(models) > 1:
        raise JudgeConfigError(
            name,
            f"pass model= to pick whose answers to serve: the log holds calls to "
            f"{', '.join(models)}",
            ("model",),
        )
    return models[0] if models else ""


def _check_key(name: str, call: JudgeCall) -> None:
    if question_key(call.question, call.model, call.prompt_version) != call.key:
        raise JudgeConfigError(
            name,
            f"recorded call {call.key[:12]}... does not carry the key of its own question: "
            "the log was edited or written by another version; replay the original log",
            ("calls",),
        )
