"""A LangChain chat model as the judge: the model a LangGraph agent already has.

:class:`ChatModelJudge` wraps any LangChain ``BaseChatModel`` (what ``init_chat_model(...)``
returns, or a provider's class, or one of ``langchain_core``'s fake chat models in a test)
as a :class:`~stategraph.judge.ChatJudge`: the same questions, answer format, several
questions to a request, basis check, revision deadline, request and token budget, and cache as
:class:`~stategraph.judge.OpenAIJudge`. Give it to a memory or a LangGraph store::

    from langchain.chat_models import init_chat_model
    judge = ChatModelJudge(init_chat_model("openai:gpt-4o-mini", temperature=0, timeout=30))
    store = StategraphStore.from_url("sqlite:///memory.db", judge=judge)

The model is called with ``invoke`` in a worker thread that the judge waits on for no longer
than the request may take; past that the request is recorded as ``timeout`` (or ``deadline``)
and left to finish on its own, so give the model a timeout of its own too. Its answer's
length, temperature and retries are the model's own settings (temperature 0 keeps answers
repeatable). Tokens are those the model reports (``usage_metadata``), else estimated.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from stategraph.judge.chat import ChatFailure, ChatJudge, ChatReply

try:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'stategraph.integrations.chat_model needs LangChain: pip install "stategraph[langgraph]"'
    ) from exc

__all__ = ["NAME", "ChatModelJudge"]

NAME = "stategraph.chat_model_judge.v1"
"""The judge's versioned name, logged with every revision it judged."""

_CUT_SHORT = {"length", "max_tokens", "MAX_TOKENS"}
"""Finish reasons (OpenAI's, Anthropic's, Google's) that say the answer was cut at its cap."""


def _model_name(chat: BaseChatModel) -> str:
    """The model's own name, as precisely as it says (its class, when it says none)."""
    params = chat._identifying_params
    for field in ("model_name", "model", "model_id"):
        value = params.get(field) if isinstance(params, Mapping) else None
        if isinstance(value, str) and value.strip():
            return f"{chat._llm_type}:{value}"
    return chat._llm_type or type(chat).__name__


def _text(message: BaseMessage) -> str:
    """A reply's text: its content, or the text parts of content blocks."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


class ChatModelJudge(ChatJudge):
    """A :class:`~stategraph.judge.ChatJudge` over a LangChain chat model.

    Args:
        chat: the chat model (``init_chat_model(...)``, ``ChatOpenAI(...)``, a fake model).
        model: the name calls are keyed and logged under; None: the model's own type and
            name (``openai-chat:gpt-4o-mini``).
        timeout: seconds one request may take (the revision's deadline may cut it shorter).
        **options: any other keyword of :class:`~stategraph.judge.ChatJudge`.
    """

    def __init__(
        self,
        chat: BaseChatModel,
        *,
        model: str | None = None,
        timeout: float = 60.0,
        **options: Any,
    ) -> None:
        self.chat = chat
        super().__init__(
            self._complete,
            name=NAME,
            model=model if model is not None else _model_name(chat),
            timeout=timeout,
            **options,
        )

    def _complete(self, messages: list[dict[str, str]], seconds: float, cap: int) -> ChatReply:
        pool = ThreadPoolExecutor(1, thread_name_prefix="stategraph-chat-model")
        try:
            answer = pool.submit(self.chat.invoke, messages).result(timeout=seconds)
        except FutureTimeout:
            raise TimeoutError from None
        finally:
            pool.shutdown(wait=False)
        if not isinstance(answer, BaseMessage):
            raise ChatFailure(f"unexpected: the model returned {type(answer).__name__}")
        refusal = answer.additional_kwargs.get("refusal")
        if refusal:
            raise ChatFailure(f"refused: {refusal}"[:300])
        finish = answer.response_metadata.get("finish_reason") or answer.response_metadata.get(
            "stop_reason"
        )
        if finish in _CUT_SHORT:
            raise ChatFailure(f"truncated: finish reason {finish}")
        usage = getattr(answer, "usage_metadata", None) or {}
        return ChatReply(_text(answer), usage.get("input_tokens"), usage.get("output_tokens"))
