"""Asking the user first, through the MCP client's elicitation.

A memory in doubt (``needs_confirmation``, or undefined), or resting on one
(``rests_on_doubt``), comes back from ``recall`` with ``ask_first``: the question to put to the
user before relying on it, and ``ask_about``: the memory the answer settles (for one that rests
on doubt, the memory in doubt it rests on; several resting on one are asked once). When the
client declared elicitation, the server puts it to the user itself (``elicitation/create``,
form mode), with a small schema: the answer (still holds, no longer holds, don't know) and an
optional note. The answer is recorded through the review path (:meth:`Memory.confirm
<stategraph.memory.Memory.confirm>` or :meth:`Memory.reject <stategraph.memory.Memory.reject>`:
logged, cascading, replayed by ``audit verify``) as the user's, with the note; "don't know", a
declined or cancelled form, or no answer in time leave the memory in doubt, and its
``ask_first`` stays in the result for the agent. A client that declared no elicitation gets the
question in the result, as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

from stategraph.memory import Memory
from stategraph.recall import Recalled

__all__ = ["ASK_AT_MOST", "BY", "NOTE", "SECONDS", "Answer", "ask_first", "can_ask"]

ASK_AT_MOST = 3
"""The most memories one tool call asks the user about: the rest keep their ``ask_first``."""

SECONDS = 600.0
"""How long the server waits for the user's answer to one question."""

BY = "user"
"""Who a review made through elicitation is recorded as made by (its note says how)."""

NOTE = "asked through the MCP client's elicitation"
"""The start of such a review's note; the user's own note follows."""

STILL_HOLDS, NO_LONGER, DONT_KNOW = "still holds", "no longer holds", "don't know"


class Answer(BaseModel):
    """The form the user fills in (its JSON schema is the elicitation's requested schema)."""

    answer: Literal["still holds", "no longer holds", "don't know"] = Field(
        description="does the memory still hold?"
    )
    note: str = Field(default="", max_length=2000, description="anything to add (recorded)")


Run = Callable[..., Awaitable[Any]]
"""Runs a job on the caller's tenant: ``run(write, job, ctx)``."""


def can_ask(ctx: Context[Any, Any]) -> bool:
    """True when the tool call's client declared elicitation and can be sent a request."""
    wanted = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    return bool(ctx.session.check_client_capability(wanted) and ctx.session.can_send_request)


async def _ask(ctx: Context[Any, Any], question: str) -> Answer | None:
    """The user's answer to ``question``, or None: declined, cancelled, not in time, or the
    client failed."""
    try:
        with anyio.fail_after(SECONDS):
            result = await ctx.elicit(question, Answer)
    except (MCPError, TimeoutError, ValueError):
        return None
    return result.data if result.action == "accept" else None


async def ask_first(ctx: Context[Any, Any], found: Sequence[Recalled], run: Run) -> bool:
    """Ask the user about the memories in doubt among ``found`` (at most
    :data:`ASK_AT_MOST`), and record each answer as the user's review.

    Args:
        ctx: the tool call (its client must be able to elicit: :func:`can_ask`).
        found: what the tool is about to return.
        run: runs a job on the caller's tenant (``run(write, job, ctx)``).

    Returns:
        True when an answer was recorded (what the tool returns has changed).
    """
    recorded = False
    asked: dict[str, Recalled] = {}  # one question per memory it settles
    for r in found:
        if r.ask_first and r.ask_about is not None and r.ask_about not in asked:
            asked[r.ask_about] = r
    for about, r in list(asked.items())[:ASK_AT_MOST]:
        assert r.ask_first is not None
        answer = await _ask(ctx, r.ask_first)
        if answer is None:
            break  # the user put the form away: ask nothing more in this call
        if answer.answer == DONT_KNOW:
            continue
        confirm = answer.answer == STILL_HOLDS
        note = f"{NOTE}: {answer.note.strip()}" if answer.note.strip() else NOTE

        def job(mem: Memory, id: str = about, confirm: bool = confirm, note: str = note) -> None:
            (mem.confirm if confirm else mem.reject)(id, by=BY, note=note)

        try:
            await run(True, job, ctx)
        except ToolError:
            continue  # settled meanwhile by someone else: the recall run again says how
        recorded = True
    return recorded
