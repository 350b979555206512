"""The MCP server: an agent's memory as tools, over stdio or streamable HTTP.

Built on the official MCP Python SDK (:class:`mcp.server.mcpserver.MCPServer`). The tools are
declared with typed signatures and docstrings, which the SDK turns into the schemas and
descriptions a client reads when it lists them:

- ``remember``: write a memory with its basis (``because``, ``unless``, ``context``);
- ``revise``: a change, as a change file or ``POST /v1/revise`` takes it (retract, assert,
  supersede, add or remove justifications), in one atomic revision;
- ``explain``: why a memory holds (a proof), or why it does not;
- ``needs_review``: what the engine could not settle and a person must;
- ``recall``, ``confirm``, ``reject``: :mod:`stategraph.service.mcp_recall`.

Over stdio the server acts as one tenant (``--tenant``). Over streamable HTTP it does too,
unless it is given a tokens file: then each request's bearer token names its tenant
(:mod:`stategraph.service.auth`), through the SDK's own token verification. Every tool runs
through a :class:`~stategraph.service.runner.TenantRunner`, as the HTTP API's routes do: off
the event loop, one writer per tenant at a time. A library error comes back as a tool error
whose text starts with its type (``UnknownStateError: ...``), for the model to read and act
on.
"""

import uuid
import weakref
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stategraph.engine.explain import Proof, WhyNot
from stategraph.errors import StategraphError
from stategraph.memory import Memory, justifications_for
from stategraph.model import Change, Justification, Report, State, Supersession, Truth
from stategraph.review.confirm import PendingReview
from stategraph.service import mcp_recall, mcp_sampling, serving
from stategraph.service.auth import Tokens
from stategraph.service.errors import UnauthorizedError, public_message
from stategraph.service.mcp_stdio import MAX_MESSAGE, guarded_stdio
from stategraph.service.runner import TenantRunner
from stategraph.service.schemas import AllOf, NewState
from stategraph.service.settings import MemorySettings
from stategraph.service.tenants import TenantStores, check_tenant, open_tenants
from stategraph.urls import redact_logs

__all__ = ["EntryView", "Explanation", "Outcome", "Replacement", "build_server", "serve"]

T = TypeVar("T")

INSTRUCTIONS = (
    """\
A memory that keeps track of what rests on what. Write each memory with `remember`, giving its
basis: a fact needs none; a belief, plan or action names in `because` the memories it was
derived from (alternatives: ["a", "b"] means a, or else b; [["a", "b"]] means a and b).
When something changes, call `revise` (supersede the old memory by the new one:
{"id": OLD, "with": {"id": NEW, "text": ...}}, or retract it): the answer lists what was
invalidated (no longer holds: stop relying on it), which pending actions to cancel, and what
needs confirmation. `explain` says why a memory holds or
does not; `needs_review` lists what a person should settle."""
    + mcp_recall.INSTRUCTIONS
)


class Replacement(BaseModel):
    """Deprecated (accepted until the next release): supersede ``id`` by ``new``. Write
    ``{"id": ..., "with": {...}}``, as in a change file and ``POST /v1/revise``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="the memory being replaced")
    new: NewState = Field(description="deprecated: the memory that replaces it; write 'with'")


class EntryView(BaseModel):
    """What a change did to one memory it touched."""

    id: str
    kind: str
    verdict: str = Field(description="invalidated, kept, restored or needs_confirmation")
    depth: int = Field(description="hops from the change")
    cause: str = Field(description="why, e.g. no_support, alternative_support, negative_cycle")
    consequence: str | None = Field(default=None, description="cancel or review, for actions")


class Outcome(BaseModel):
    """What a change did: the memories it acted on, and every other memory it touched."""

    changed: list[str] = Field(description="the memories the change itself acted on")
    invalidated: list[str] = Field(description="no longer hold: stop relying on them")
    kept: list[str] = Field(description="touched, but still hold through another support")
    restored: list[str] = Field(description="hold again")
    needs_confirmation: list[str] = Field(description="undecided: a person should settle them")
    consequences: dict[str, str] = Field(description="actions to cancel or to review")
    entries: list[EntryView]

    @classmethod
    def of(cls, report: Report) -> "Outcome":
        """The outcome of a revision report."""
        return cls(
            changed=[c.id for c in report.changed],
            invalidated=report.invalidated,
            kept=report.kept,
            restored=report.restored,
            needs_confirmation=report.needs_confirmation,
            consequences=report.consequences,
            entries=[
                EntryView(
                    id=e.id,
                    kind=e.kind,
                    verdict=e.verdict.value,
                    depth=e.depth,
                    cause=e.reason.cause,
                    consequence=None if e.consequence is None else e.consequence.value,
                )
                for e in report.entries
            ],
        )


class Explanation(BaseModel):
    """Why a memory holds, or why it does not."""

    id: str
    truth: Truth
    holds: bool
    text: str = Field(description="the explanation as indented lines")
    proof: Proof | None = Field(default=None, description="when it holds: the proof")
    why_not: WhyNot | None = Field(default=None, description="when it does not: what stops it")


def _new_state(mem: Memory, new: NewState) -> tuple[State, list[Justification]]:
    """A new state and its justifications, as ``Memory.add`` makes them (a fact's context is
    provenance, kept in its metadata)."""
    state = new.state()
    context = list(new.context)
    if context and mem.policy.is_exogenous(state):
        meta = {**state.metadata, "context": sorted(set(context))}
        state, context = state.model_copy(update={"metadata": meta}), []
    justs = justifications_for(state.id, new.alternatives(), new.unless, context)
    return state, justs


def change_for(
    mem: Memory,
    retract: Sequence[str],
    supersede: Sequence[Replacement],
    add: Sequence[NewState],
) -> Change:
    """One :class:`~stategraph.model.Change` of the ``revise`` tool's deprecated shapes
    (``add``, and ``supersede`` entries with ``new``): their memories' bases become
    justifications."""
    asserted, replaced, justs = [], [], []
    for new in add:
        state, js = _new_state(mem, new)
        asserted.append(state)
        justs.extend(js)
    for rep in supersede:
        state, js = _new_state(mem, rep.new)
        replaced.append(Supersession.model_validate({"id": rep.id, "with": state}))
        justs.extend(js)
    return Change.model_validate(
        {
            "retract": list(retract),
            "assert": asserted,
            "supersede": replaced,
            "add_justifications": justs,
        }
    )


class _Sessions:
    """A name for each MCP session, the ``session`` of what it remembers: the client's
    ``mcp-session-id`` over streamable HTTP, else one made for the connection (stdio). A
    grouping hint for candidate proposal, never an identity."""

    def __init__(self) -> None:
        self._names: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()

    def name(self, ctx: Context | None) -> str | None:
        if ctx is None:
            return None
        try:
            headers, session = ctx.headers, ctx.session
        except ValueError:  # outside a request
            return None
        given = "".join(c for c in (headers or {}).get("mcp-session-id", "") if c.isalnum())
        if given:
            return f"mcp:{given[:200]}"
        found = self._names.get(session)
        if found is None:
            found = self._names[session] = f"mcp:{uuid.uuid4().hex}"
        return found


def _explain(mem: Memory, state_id: str) -> Explanation:
    truth = mem.truth(state_id)
    if truth is Truth.true:
        proof = mem.why(state_id)
        return Explanation(id=state_id, truth=truth, holds=True, text=proof.render(), proof=proof)
    wn = mem.why_not(state_id)
    return Explanation(id=state_id, truth=truth, holds=False, text=wn.render(), why_not=wn)


def _refused(exc: ValidationError) -> ToolError:
    """A tool error that says which argument was refused and why (the SDK turns any other
    exception into "Error executing tool" with no reason)."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
    )
    return ToolError(f"InvalidInputError: {problems}")


class _TokenVerifier:
    """The SDK's token verification over the tokens file: a token's tenant becomes the
    access token's ``client_id``."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            tenant = self.tokens.tenant_for(token)
        except UnauthorizedError:
            return None
        return AccessToken(token=token, client_id=tenant, scopes=[])


def build_server(
    runner: TenantRunner,
    tenant: str | None,
    *,
    tokens: Tokens | None = None,
    url: str = "http://127.0.0.1:8081",
) -> MCPServer[Any]:
    """The MCP server over some tenant stores.

    Args:
        runner: runs the tools' work on the tenants' memories.
        tenant: the tenant every call acts as; None with ``tokens``: each call's token says.
        tokens: bearer tokens for streamable HTTP (ignored over stdio).
        url: where the server is reached, for the SDK's authorization metadata.
    """
    if tenant is not None:
        check_tenant(tenant)
    auth: dict[str, Any] = {}
    if tokens is not None:
        auth = {
            "token_verifier": _TokenVerifier(tokens),
            "auth": AuthSettings(
                issuer_url=url, resource_server_url=url, validate_token_resource=False
            ),
        }
    server: MCPServer[Any] = MCPServer("stategraph", instructions=INSTRUCTIONS, **auth)

    sessions = _Sessions()

    def whose() -> str:
        if tokens is not None:
            token = get_access_token()
            if token is None:
                raise ToolError("UnauthorizedError: a valid bearer token is required")
            return token.client_id
        assert tenant is not None
        return tenant

    async def run(write: bool, fn: Callable[[Memory], T], ctx: Context | None = None) -> T:
        """Run ``fn`` on the caller's tenant; with the tool call's ``ctx``, a revision it
        starts may ask the client's model (:mod:`stategraph.service.mcp_sampling`)."""
        try:
            with mcp_sampling.serving(ctx) if ctx is not None else nullcontext():
                if write:
                    return await runner.write(whose(), fn)
                return await runner.read(whose(), fn)
        except StategraphError as exc:
            raise ToolError(f"{type(exc).__name__}: {public_message(exc)}") from exc
        except ValidationError as exc:
            raise _refused(exc) from exc

    @server.tool()
    async def remember(
        ctx: Context,
        id: Annotated[str, Field(min_length=1, description="a new, unique id for this memory")],
        text: Annotated[str, Field(description="the memory in words")],
        kind: Annotated[
            Literal["fact", "belief", "plan", "action"],
            Field(description="fact: the world or the user says so; the others are derived"),
        ] = "fact",
        because: Annotated[
            list[str | list[str] | AllOf] | None,
            Field(
                description="the memories it was derived from, as alternatives (as POST "
                "/v1/states and import --memories take them): each an id, a list of ids that "
                "must all hold, or {all: [...], unless: [...]}; ['a', 'b'] is a, or else b; "
                "[['a', 'b']] is a and b"
            ),
        ] = None,
        unless: Annotated[
            list[str] | None,
            Field(description="memories whose holding defeats it (may not exist yet)"),
        ] = None,
        context: Annotated[
            list[str] | None,
            Field(
                description="memories that were in context when it was written, if its basis "
                "is not known: candidates, checked when they change"
            ),
        ] = None,
        status: Annotated[
            Literal["pending", "executed"] | None,
            Field(description="for an action: pending (default) or already executed"),
        ] = None,
        session: Annotated[
            str | None,
            Field(
                description="the conversation or turn it was written in (default: this MCP "
                "session); a memory written with no basis is linked to facts of its session "
                "when nothing in its words relates it to any"
            ),
        ] = None,
    ) -> Outcome:
        """Remember one memory with its basis.

        A fact holds until it is retracted or superseded. A belief, plan or action holds only
        while what it rests on (``because``) holds: name it, so that when it changes the
        memory is invalidated instead of left standing. Returns what the write changed.
        """
        try:
            new = NewState.model_validate(
                {
                    "id": id,
                    "kind": kind,
                    "text": text,
                    "status": status,
                    "because": because,
                    "unless": unless or [],
                    "context": context or [],
                    "session": session or sessions.name(ctx),
                }
            )
        except ValidationError as exc:
            raise _refused(exc) from exc

        def job(mem: Memory) -> Outcome:
            report = mem.add(
                new.state(), because=new.alternatives(), unless=new.unless, context=new.context
            )
            return Outcome.of(report)

        return await run(True, job, ctx)

    @server.tool()
    async def revise(
        ctx: Context,
        retract: Annotated[
            list[str] | None, Field(description="memories that no longer hold")
        ] = None,
        assert_: Annotated[
            list[State] | None,
            Field(validation_alias="assert", description="new memories (states) to write"),
        ] = None,
        supersede: Annotated[
            list[Supersession | Replacement] | None,
            Field(
                description="memories replaced by new ones (a changed fact): "
                '{"id": OLD, "with": {"id": NEW, "text": ...}}'
            ),
        ] = None,
        add_justifications: Annotated[
            list[Justification] | None,
            Field(description="justifications to add: {head, premises, unless}"),
        ] = None,
        remove_justifications: Annotated[
            list[Justification] | None,
            Field(description="justifications to remove, named by head, premises and unless"),
        ] = None,
        add: Annotated[
            list[NewState] | None,
            Field(
                description="deprecated, accepted until the next release: new memories with "
                "their basis; write them with remember, or in assert"
            ),
        ] = None,
    ) -> Outcome:
        """Change what the memory holds, in one atomic revision, and learn what follows.

        The arguments are a change exactly as a change file or ``POST /v1/revise`` takes it:
        ``retract`` ids, ``assert`` new states, ``supersede`` ``[{"id": OLD, "with":
        STATE}]``, ``add_justifications`` and ``remove_justifications``. The answer lists the
        memories that no longer hold because of the change (``invalidated``), those kept
        through another support, actions to cancel (``consequences``), and memories nobody
        can decide without a person (``needs_confirmation``).

        Deprecated, accepted until the next release: ``add`` (write ``assert``, or
        ``remember`` for a memory with its basis) and a supersede entry's ``new`` (write
        ``with``).
        """
        replaced = [r for r in supersede or () if isinstance(r, Supersession)]
        legacy = [r for r in supersede or () if isinstance(r, Replacement)]

        def job(mem: Memory) -> Outcome:
            old = change_for(mem, [], legacy, add or [])
            change = Change.model_validate(
                {
                    "retract": list(retract or ()),
                    "assert": [*(assert_ or ()), *old.assert_],
                    "supersede": [*replaced, *old.supersede],
                    "add_justifications": [*(add_justifications or ()), *old.add_justifications],
                    "remove_justifications": list(remove_justifications or ()),
                }
            )
            return Outcome.of(mem.revise(change))

        return await run(True, job, ctx)

    @server.tool()
    async def explain(
        id: Annotated[str, Field(min_length=1, description="the memory to explain")],
    ) -> Explanation:
        """Explain a memory: if it holds, the proof (what it rests on, down to facts); if it
        does not, for each of its justifications, what fails or blocks it."""
        return await run(False, lambda mem: _explain(mem, id))

    @server.tool()
    async def needs_review() -> list[PendingReview]:
        """The memories waiting for a person to settle them (the engine could not decide
        whether they still hold), oldest first, each with the reason."""
        return await run(False, lambda mem: mem.pending_review())

    mcp_recall.register(server, run)  # recall, confirm, reject
    return server


async def _serve_stdio(server: MCPServer[Any]) -> None:
    """Run ``server`` over stdio through :func:`~stategraph.service.mcp_stdio.guarded_stdio`
    (every line answered, 1 MiB a message) instead of the SDK's own stdio transport."""
    low = server._lowlevel_server  # the SDK's MCPServer.run_stdio_async does the same
    async with guarded_stdio() as (read, write):
        await low.run(read, write, low.create_initialization_options())


def serve(
    store: str,
    *,
    tenant: str = "default",
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8081,
    tokens: str | None = None,
    busy_timeout: float = 5.0,
    uvicorn_options: dict[str, Any] | None = None,
    settings: MemorySettings | None = None,
) -> None:
    """Run the MCP server until its client goes away (stdio) or it is stopped (HTTP).

    Args:
        store: the store URL (``sqlite:///DIR``).
        tenant: the tenant served, over stdio, or over HTTP without ``tokens``.
        http: serve streamable HTTP at ``http://HOST:PORT/mcp`` instead of stdio.
        tokens: with ``http``: a tokens file; each token acts as its tenant.
        busy_timeout: seconds a write waits for another process's lock on the same tenant.
        uvicorn_options: with ``http``: more options of uvicorn's server (the connection
            guards of :mod:`stategraph.service.guards`).
        settings: the rule packs, grounder and judge of every tenant's memory.
    """
    redact_logs(store)
    tenants: TenantStores = open_tenants(store, busy_timeout=busy_timeout, settings=settings)
    try:
        runner = TenantRunner(tenants)
        if not http:
            anyio.run(_serve_stdio, build_server(runner, tenant))
            return
        loaded = Tokens.from_file(tokens) if tokens else None
        url = f"http://{host}:{port}"
        server = build_server(runner, None if loaded else tenant, tokens=loaded, url=url)
        app = server.streamable_http_app(max_request_body_size=MAX_MESSAGE, host=host)
        serving.run(app, host=host, port=port, workers=1, **(uvicorn_options or {}))
    finally:
        tenants.close()
