"""The MCP tools that close the loop "ask the user the next time it is used".

- ``recall``: the memories that answer a question, each with its status; one in doubt comes
  with ``ask_first``, the question to put to the user before relying on it (or, when the
  client declared elicitation, the server puts it to the user itself and records the answer:
  :mod:`stategraph.service.mcp_elicit`);
- ``confirm`` / ``reject``: record the user's answer on a memory in doubt, with who said so
  (the review path of :mod:`stategraph.review`: logged, cascading), and report what followed.

Registered on the server by :func:`~stategraph.service.mcp_server.build_server`, through its
``run`` (the tenant runner, library errors as tool errors).
"""

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from stategraph.memory import Memory
from stategraph.recall import MAX_K, Recalled
from stategraph.service import mcp_elicit

__all__ = ["INSTRUCTIONS", "register"]

INSTRUCTIONS = """
Before relying on what you remember, call `recall` with the question: it returns what holds,
and a memory in doubt comes with `ask_first`: ask the user that question first, then record the
answer with `confirm` (it still holds) or `reject` (it does not), naming who said so."""

Run = Callable[..., Awaitable[Any]]
"""Runs a job on the caller's tenant: ``run(write, job)``, or ``run(write, job, ctx)`` for a
tool call whose revisions may ask its client's model."""


def register(server: MCPServer[Any], run: Run) -> None:
    """Add ``recall``, ``confirm`` and ``reject`` to ``server``.

    Args:
        server: the MCP server.
        run: runs a job on the caller's tenant (:data:`Run`).
    """
    from stategraph.service.mcp_server import Outcome  # imported by the time a server is built

    @server.tool()
    async def recall(
        ctx: Context,
        query: Annotated[str, Field(description="the question, or words to look for")],
        k: Annotated[int, Field(description=f"at most k memories (1..{MAX_K})")] = 10,
        kinds: Annotated[
            list[str] | None, Field(description="only these kinds (fact, belief, plan, action)")
        ] = None,
        include_doubtful: Annotated[
            bool, Field(description="memories in doubt too, each with the question to ask first")
        ] = True,
        include_invalidated: Annotated[
            bool, Field(description="also memories that no longer hold, each with why not")
        ] = False,
        as_of: Annotated[
            str | None,
            Field(
                description="recall the memory as it was right after this revision (a "
                "sequence number) or at this ISO 8601 time"
            ),
        ] = None,
    ) -> list[Recalled]:
        """Recall the memories that best match a question, each with its status: ``holds``
        (rely on it), ``rests_on_doubt``, ``needs_confirmation`` or ``undefined`` (in doubt,
        or resting on a memory in doubt: ask the user ``ask_first`` before relying on it,
        then call ``confirm`` or ``reject`` on ``ask_about``), or, when
        asked for, ``invalidated`` (do not rely on it; ``why_not`` says why). A client that
        declared elicitation is asked for the user's answer first, and what comes back
        already reflects it. With ``as_of``, the statuses then, as HTTP's ``?as_of=`` gives
        them (the user is not asked: what is in doubt now may differ)."""

        def job(mem: Memory) -> list[Recalled]:
            return mem.recall(
                query,
                k,
                kinds=kinds,
                include_doubtful=include_doubtful,
                include_invalidated=include_invalidated,
                as_of=as_of,
            )

        found: list[Recalled] = await run(False, job)
        if (
            as_of is None
            and mcp_elicit.can_ask(ctx)
            and await mcp_elicit.ask_first(ctx, found, run)
        ):
            found = await run(False, job)
        return found

    async def settle(ctx: Context, confirm: bool, id: str, by: str, note: str) -> Outcome:
        def job(mem: Memory) -> Outcome:
            act = mem.confirm if confirm else mem.reject
            return Outcome.of(act(id, by=by, note=note))

        done: Outcome = await run(True, job, ctx)
        return done

    @server.tool()
    async def confirm(
        ctx: Context,
        id: Annotated[str, Field(min_length=1, description="the memory in doubt")],
        by: Annotated[str, Field(min_length=1, description="who said it still holds")],
        note: Annotated[str, Field(description="what they said (recorded)")] = "",
    ) -> Outcome:
        """Record that a memory in doubt still holds, on ``by``'s word (logged); what rests
        on it is restored. Returns what the answer changed."""
        return await settle(ctx, True, id, by, note)

    @server.tool()
    async def reject(
        ctx: Context,
        id: Annotated[str, Field(min_length=1, description="the memory in doubt")],
        by: Annotated[str, Field(min_length=1, description="who said it no longer holds")],
        note: Annotated[str, Field(description="what they said (recorded)")] = "",
    ) -> Outcome:
        """Record that a memory in doubt no longer holds, on ``by``'s word (logged): it is
        retracted and what rests on it alone goes. Returns what the answer changed."""
        return await settle(ctx, False, id, by, note)
