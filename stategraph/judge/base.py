"""What a counterfactual judge is asked, what it answers, and the interface every judge meets.

Logic settles most candidate edges; what it cannot settle goes to a judge as one
:class:`Question` per derived memory: "these memories it may rest on changed; does it still
hold?", covering every open candidate edge of that memory at once. The memories a question
carries are quoted *data*: a judge is told never to follow instructions found in them, and
whatever it answers is checked by the engine afterwards (:mod:`stategraph.judge.settle`), so a
judge can only ever settle the edges it was asked about.

A judge is anything with a versioned ``name``, a ``model`` and an ``ask`` method
(:class:`Judge`): the OpenAI-compatible client, the benchmark's gold oracle, a replay of
logged answers, or a user's own. Every answer comes back as a :class:`JudgeCall` that records
the question, the parsed answer (or why there is none), the tokens and the latency, so a
revision can be logged in full and replayed without the model.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from stategraph.model import State

__all__ = [
    "MAX_QUOTE_CHARS",
    "PER_EDGE_VERSIONS",
    "PROMPT_VERSION",
    "Changed",
    "Judge",
    "JudgeAnswer",
    "JudgeCall",
    "Question",
    "Quote",
    "clip_text",
    "question_key",
]

PROMPT_VERSION = "counterfactual.v3"
"""The version of the question and its prompt; part of every cache key, so answers given to
another wording are never reused. (v2: memory texts are cut at :data:`MAX_QUOTE_CHARS`, and
the prompt says so. v3: one question per derived memory, covering all its changed
candidates, and several questions to a request, each memory quoted once.)"""

PER_EDGE_VERSIONS = frozenset({"counterfactual.v1", "counterfactual.v2"})
"""The prompt versions that asked one question per candidate edge: a revision logged under
one of them is asked edge by edge again when it is replayed."""

MAX_QUOTE_CHARS = 2000
"""The most of one memory's text a question quotes: one huge memory can neither fill a prompt
nor spend a revision's token budget on its own."""


def clip_text(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    """``text``, cut to at most ``limit`` characters, the marker saying how much was cut
    included (so a text cut once is never cut again)."""
    if len(text) <= limit:
        return text
    marker = f" [... {len(text)} characters, the rest cut]"
    return text[: max(0, limit - len(marker))] + marker


_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Quote(BaseModel):
    """A memory as a judge sees it: quoted data, never an instruction."""

    model_config = _FROZEN

    id: str
    kind: str
    text: str

    @classmethod
    def of(cls, state: State) -> Quote:
        """A memory quoted: a long text is cut (and marked), so one memory cannot fill a
        prompt or the budget."""
        return cls(id=state.id, kind=state.kind, text=clip_text(state.text))


ChangeKind = Literal["retracted", "superseded", "no_longer_holds", "asserted"]
"""How a memory in a question changed: ``retracted``, ``superseded`` (by a replacement),
``no_longer_holds`` (it lost its own support), or ``asserted`` (it is new)."""


class Changed(BaseModel):
    """One memory a question's head may rest on (or be defeated by), and how it changed."""

    model_config = _FROZEN

    memory: Quote
    change: ChangeKind
    replacement: Quote | None = None


def _empty(value: tuple[Changed, ...]) -> bool:
    return not value


class Question(BaseModel):
    """One derived memory in question: memories it may rest on changed; does it still hold?

    Two situations are asked the same way. Usually ``premise`` is a candidate premise of the
    head that stopped holding. With ``premise_change="asserted"`` it is a fact the change
    just asserted that may defeat the head (a *candidate blocker*): does the head still hold
    now that it holds? A question covers every open candidate of its head: the first is
    ``premise``, the others are in ``also`` (:attr:`changed` lists them all).

    Attributes:
        head: the derived memory in question.
        premise: the (first) candidate premise that stopped holding, or the asserted fact.
        premise_change: how it changed: ``retracted``, ``superseded`` (see ``replacement``),
            ``no_longer_holds`` (it lost its own support), or ``asserted`` (it is new).
        replacement: for ``superseded``, the memory that replaced the premise.
        holding: memories that still hold and were not moved by the change (or that the
            change asserted): the only ids a "still holds" answer may cite as support.
        also: the head's other changed candidates, after ``premise`` (left out of the JSON
            when empty, so a question of one edge keeps the form and key it always had).
    """

    model_config = _FROZEN

    head: Quote
    premise: Quote
    premise_change: ChangeKind
    replacement: Quote | None = None
    holding: tuple[Quote, ...] = ()
    also: tuple[Changed, ...] = Field(default=(), exclude_if=_empty)

    @property
    def changed(self) -> tuple[Changed, ...]:
        """Every changed memory the question covers, ``premise`` first."""
        first = Changed(
            memory=self.premise, change=self.premise_change, replacement=self.replacement
        )
        return (first, *self.also)


def question_key(question: Question, model: str, prompt_version: str = PROMPT_VERSION) -> str:
    """The cache key of a question: model, prompt version and every text involved.

    Two questions with the same key would be sent the same prompt, so an answer recorded for
    one is the answer to the other.
    """
    payload = json.dumps(
        [model, prompt_version, question.model_dump(mode="json")],
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class JudgeAnswer(BaseModel):
    """The structured answer a judge must give (its JSON schema is sent to the model).

    Attributes:
        still_holds: True if the head holds without the premise.
        support: for ``still_holds``, the ids (from ``Question.holding``) it rests on instead.
            A "still holds" with no support is a rubber stamp and is rejected.
        reason: one or two sentences a reviewer can check.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    still_holds: bool
    support: tuple[str, ...] = ()
    reason: str = Field(default="", max_length=2000)


class JudgeCall(BaseModel):
    """One question put to a judge and what came of it: the log's record of the call.

    A judge may send several questions in one request (:mod:`stategraph.judge.batch`). The
    request's cost (attempts, tokens, latency) is then recorded on the call of its first
    question, and the others record none, so that sums over calls count each request once.

    Attributes:
        key: :func:`question_key` of the question for this judge's model.
        question: what was asked.
        judge: the judge's versioned name.
        model: the model that answered.
        prompt_version: the prompt the question was sent with.
        answer: the parsed answer, or None when there is none (see ``error``).
        error: why there is no answer (timeout, refusal, malformed JSON, budget, ...).
        attempts: requests made (retries included); 0 for an answer served from a cache, or
            one sent in a request whose cost another call records.
        prompt_tokens: tokens sent, as the server reported them (0 if it did not).
        completion_tokens: tokens received, likewise.
        latency_ms: wall time of all attempts.
        cached: True when the answer came from a cache or a replay, not from the model.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    question: Question
    judge: str
    model: str
    prompt_version: str = PROMPT_VERSION
    answer: JudgeAnswer | None = None
    error: str | None = None
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    cached: bool = False

    @property
    def tokens(self) -> int:
        """Tokens sent and received."""
        return self.prompt_tokens + self.completion_tokens


@runtime_checkable
class Judge(Protocol):
    """A counterfactual judge.

    Attributes:
        name: the implementation's versioned name (``"stategraph.openai_judge.v1"``).
        model: the model it asks; part of every cache key.
    """

    name: str
    model: str

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        """Answer each question; one call per question, in the same order.

        A judge never raises for a failed or malformed answer: it returns a call with
        ``answer=None`` and the ``error``, and the edge stays undecided. It may answer the
        questions concurrently (bounded), or several in one request, and must not ask the
        model twice for questions with the same key in one batch.

        A judge may also say which prompt version it asks with (a ``prompt_version``
        attribute; :data:`PROMPT_VERSION` when it has none): under one of
        :data:`PER_EDGE_VERSIONS` it is asked one question per edge, as logs written under
        them were.
        """
        ...
