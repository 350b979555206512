"""The MCP client's own model as the judge: the judge's questions asked through sampling.

An agent in an MCP client already has a model. With ``stategraph mcp --judge sampling`` (or
``--judge auto``), a revision that a tool call starts asks that model what logic leaves
undecided, through MCP sampling (``sampling/createMessage``), when the client declared the
capability. The judge is :class:`~stategraph.judge.ChatJudge`: the same questions, answer
format, several questions to a request, basis check, revision deadline, request and token
budget, and cache as :class:`~stategraph.judge.OpenAIJudge`. A client that declared no sampling
gets what a server without a judge gives (``--judge auto``: the environment's judge, if one is
configured): the reason is logged once per client.

The revision runs in a worker thread (:class:`~stategraph.service.runner.TenantRunner`), and
sampling is a request on the server's event loop. So a tool call records its client here
(:func:`serving`: the session, the request it answers, and the loop's token) in a context
variable that the worker thread inherits; the judge submits each sampling request to that loop
from the thread (``anyio.from_thread.run``) under a cancel scope of the seconds the request may
take, so the revision's deadline cancels a request in flight (the client is told, as MCP
cancels any request).

Sampling asks the client's model, never the client's user, and a client may show a request to
its user for approval: a declined request is a ``refused`` answer, and the memory goes to
confirmation.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError

from stategraph.judge.chat import ChatFailure, ChatJudge, ChatReply

__all__ = ["NAME", "SamplingJudge", "client_judge", "serving"]

NAME = "stategraph.mcp_sampling_judge.v1"
"""The sampling judge's versioned name, logged with every revision it judged."""

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Client:
    """The MCP request a tool call answers: whom to ask, and on which event loop."""

    session: Any  # mcp.server.session.ServerSession
    request_id: types.RequestId
    token: Any  # anyio.lowlevel.EventLoopToken
    name: str


_CLIENT: ContextVar[_Client | None] = ContextVar("stategraph_mcp_client", default=None)


@contextmanager
def serving(ctx: Context[Any, Any]) -> Iterator[None]:
    """Record the client of the tool call ``ctx`` answers, for the revisions it starts."""
    params = ctx.session.client_params
    name = params.client_info.name if params is not None else "unnamed client"
    client = _Client(ctx.session, ctx.request_id, anyio.lowlevel.current_token(), name[:100])
    token = _CLIENT.set(client)
    try:
        yield
    finally:
        _CLIENT.reset(token)


_told: set[str] = set()
_told_lock = threading.Lock()


def _tell_once(client: str, why: str) -> None:
    with _told_lock:
        if client in _told:
            return
        _told.add(client)
    logger.warning("stategraph: MCP client %r: %s", client, why)


def client_judge(fallback: str = "nothing leaves it to confirmation") -> SamplingJudge | None:
    """The judge of the tool call being served: its client's model, if the client declared
    sampling; else None, the reason logged once per client.

    Args:
        fallback: what decides instead, for the log line (the configured judge, or nothing).
    """
    client = _CLIENT.get()
    if client is None:
        return None
    wanted = types.ClientCapabilities(sampling=types.SamplingCapability())
    if not client.session.check_client_capability(wanted):
        why = "the client declared no sampling"
    elif not client.session.can_send_request:
        why = "this connection cannot carry a request to the client"
    else:
        return SamplingJudge(client)
    _tell_once(client.name, f"{why}: its model cannot judge; what logic leaves open, {fallback}")
    return None


class SamplingJudge(ChatJudge):
    """A :class:`~stategraph.judge.ChatJudge` that asks an MCP client's model by sampling.

    Its ``model`` (part of every cache key) is ``mcp-sampling:`` and the client's name: the
    server never learns which model will answer before it does.

    Args:
        client: the tool call's client (recorded by :func:`serving`).
        timeout: seconds one request may take (the revision's deadline may cut it shorter;
            a client may wait for its user's approval).
        **options: any other keyword of :class:`~stategraph.judge.ChatJudge`.
    """

    def __init__(self, client: _Client, timeout: float = 120.0, **options: Any) -> None:
        self.client = client
        super().__init__(
            self._complete,
            name=NAME,
            model=f"mcp-sampling:{client.name}",
            timeout=timeout,
            **options,
        )

    def _complete(self, messages: list[dict[str, str]], seconds: float, cap: int) -> ChatReply:
        system = "\n".join(m["content"] for m in messages if m["role"] == "system")
        said = [m["content"] for m in messages if m["role"] != "system"]
        reply: ChatReply = anyio.from_thread.run(
            self._sample, system, said, seconds, cap, token=self.client.token
        )
        return reply

    async def _sample(self, system: str, said: list[str], seconds: float, cap: int) -> ChatReply:
        asked = [
            types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))
            for text in said
        ]
        with anyio.fail_after(seconds):  # TimeoutError: the request is cancelled
            try:
                with warnings.catch_warnings():  # deprecated from protocol 2026-07-28 on
                    warnings.simplefilter("ignore")
                    result = await self.client.session.create_message(
                        asked,
                        max_tokens=cap,
                        system_prompt=system,
                        temperature=0.0,
                        include_context="none",
                        related_request_id=self.client.request_id,
                    )
            except MCPError as exc:
                raise ChatFailure(f"refused: the client answered {exc.message}"[:300]) from None
        content = result.content
        if not isinstance(content, types.TextContent):
            raise ChatFailure(f"malformed: the client's model answered with {content.type}")
        if result.stop_reason == "maxTokens":
            raise ChatFailure(f"truncated: the answer reached {cap} tokens")
        return ChatReply(content.text)
