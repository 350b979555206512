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
from collections.abc import Callable
from contextlib import nullcontext
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ConfigDict, Field, SkipValidation, ValidationError

from stategraph.engine.explain import Proof, WhyNot
from stategraph.errors import InvalidInputError, StategraphError
from stategraph.memory import Memory, written
from stategraph.model import Change, Justification, Report, State, StateId, Supersession, Truth
from stategraph.review.confirm import PendingReview
from stategraph.service import mcp_recall, mcp_sampling, serving
from stategraph.service.auth import Tokens
from stategraph.service.errors import UnauthorizedError, public_message
from stategraph.service.mcp_stdio import MAX_MESSAGE, guarded_stdio
from stategraph.service.runner import TenantRunner
from stategraph.service.settings import MemorySettings
from stategraph.service.tenants import TenantStores, check_tenant, open_tenants
from stategraph.shapes import AllOf, NewState, problems, validated
from stategraph.urls import redact_logs

__all__ = ["EntryView", "Explanation", "Outcome", "Replacement", "build_server", "serve"]

T = TypeVar("T")

_FROZEN = ConfigDict(frozen=True, extra="forbid")

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

    model_config = _FROZEN

    id: StateId = Field(description="the memory being replaced")
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


def _earlier(mem: Memory, new: Any, where: str) -> tuple[State, list[Justification]]:
    """A memory of a shape of earlier releases (``add``, a supersede's ``new``), as
    ``Memory.add`` writes it."""
    memory = validated(NewState, new, "change", where)
    return written(mem.policy, memory.state(), memory.because, memory.unless, memory.context)


def change_for(mem: Memory, arguments: dict[str, Any]) -> Change:
    """The :class:`~stategraph.model.Change` the ``revise`` tool's arguments give, as
    ``Memory.revise`` reads it; the shapes of earlier releases (``add``, a supersede entry
    with ``new``) become states and justifications first.

    Raises:
        InvalidInputError: ``invalid change: FIELD: ...``, as ``Memory.revise`` says it.
    """
    given = {k: v for k, v in arguments.items() if v is not None}
    asserted, justs = [], []
    for i, new in enumerate(_listed(given.pop("add", []))):
        state, js = _earlier(mem, new, f"add.{i}")
        asserted.append(state)
        justs.extend(js)
    entries = _listed(given.get("supersede", []))
    if any(_earlier_entry(e) for e in entries):  # else left as given, for Change to read
        for i, entry in enumerate(entries):
            if _earlier_entry(entry):
                state, js = _earlier(mem, entry["new"], f"supersede.{i}.new")
                entries[i] = {**{k: v for k, v in entry.items() if k != "new"}, "with": state}
                justs.extend(js)
        given["supersede"] = entries
    if asserted:
        given["assert"] = [*_listed(given.get("assert", [])), *asserted]
    if justs:
        given["add_justifications"] = [*_listed(given.get("add_justifications", [])), *justs]
    return validated(Change, given, "change")


def _earlier_entry(entry: Any) -> bool:
    """A supersede entry of an earlier release's shape: ``{"id": ..., "new": MEMORY}``."""
    return isinstance(entry, dict) and "new" in entry and "with" not in entry


def _listed(value: Any) -> list[Any]:
    """One entry, or a list of them, as a list (the check of each is the change's)."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


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
        # the SDK makes a session object per request; the connection under it is one per
        # client (a private attribute, so the request's session where there is none)
        key = getattr(session, "_connection", None) or session
        found = self._names.get(key)
        if found is None:
            found = self._names[key] = f"mcp:{uuid.uuid4().hex}"
        return found


def _explain(mem: Memory, state_id: str) -> Explanation:
    truth = mem.truth(state_id)
    if truth is Truth.true:
        proof = mem.why(state_id)
        return Explanation(id=state_id, truth=truth, holds=True, text=proof.render(), proof=proof)
    wn = mem.why_not(state_id)
    return Explanation(id=state_id, truth=truth, holds=False, text=wn.render(), why_not=wn)


def _refused(what: str, exc: ValidationError) -> ToolError:
    """A tool error that says which argument was refused and why, in the library's words
    (:func:`stategraph.shapes.problems`), never pydantic's own text."""
    refused = InvalidInputError(what, problems(exc.errors()))
    return ToolError(f"{type(refused).__name__}: {refused}")


_SHAPES = {"remember": "memory", "revise": "change"}
"""What each tool's arguments are, as the library names it in a refusal."""


class _Server(MCPServer[Any]):
    """The SDK's server, but arguments are refused as every surface refuses them: an
    argument the tool does not take (the SDK would drop it, and a misspelt ``becuase`` be
    lost without a word), or one the SDK's own validation refuses (a required one missing),
    is ``InvalidInputError: invalid memory: FIELD: MESSAGE`` (``memory`` for ``remember``,
    ``change`` for ``revise``, ``arguments`` for the others), never pydantic's report."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        what = _SHAPES.get(name, "arguments")
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            unknown = sorted(set(arguments) - set(tool.parameters.get("properties", {})))
            if unknown:
                refused = InvalidInputError(
                    what, [(k, "Extra inputs are not permitted") for k in unknown]
                )
                raise ToolError(f"Error executing tool {name}: {type(refused).__name__}: {refused}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"Error executing tool {name}: {_refused(what, cause)}") from cause


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
    server: MCPServer[Any] = _Server("stategraph", instructions=INSTRUCTIONS, **auth)

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
            raise _refused("arguments", exc) from exc

    # The arguments of remember and revise are typed for the schema a client reads, and read
    # by the library itself (SkipValidation): one shape, and one refusal, as on every surface.
    @server.tool()
    async def remember(
        ctx: Context,
        id: Annotated[
            StateId, SkipValidation(), Field(description="a new, unique id for this memory")
        ],
        text: Annotated[str, SkipValidation(), Field(description="the memory in words")],
        kind: Annotated[
            Literal["fact", "belief", "plan", "action"],
            SkipValidation(),
            Field(description="fact: the world or the user says so; the others are derived"),
        ] = "fact",
        because: Annotated[
            StateId | AllOf | list[StateId | list[StateId] | AllOf] | None,
            SkipValidation(),
            Field(
                description="the memories it was derived from, as alternatives (as POST "
                "/v1/states and import --memories take them): each an id, a list of ids that "
                "must all hold, or {all: [...], unless: [...]}; ['a', 'b'] is a, or else b; "
                "[['a', 'b']] is a and b; one alternative may be given without the list"
            ),
        ] = None,
        unless: Annotated[
            StateId | list[StateId] | None,
            SkipValidation(),
            Field(description="memories whose holding defeats it (may not exist yet)"),
        ] = None,
        context: Annotated[
            StateId | list[StateId] | None,
            SkipValidation(),
            Field(
                description="memories that were in context when it was written, if its basis "
                "is not known: candidates, checked when they change"
            ),
        ] = None,
        status: Annotated[
            Literal["pending", "executed"] | None,
            SkipValidation(),
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
        given: dict[str, Any] = {"id": id, "kind": kind, "text": text, "status": status}
        given |= {"because": because, "unless": unless, "context": context}
        given["session"] = session or sessions.name(ctx)

        def job(mem: Memory) -> Outcome:
            new = validated(NewState, {k: v for k, v in given.items() if v is not None}, "memory")
            report = mem.add(new.state(), new.because, new.unless, new.context)
            return Outcome.of(report)

        return await run(True, job, ctx)

    @server.tool()
    async def revise(
        ctx: Context,
        retract: Annotated[
            StateId | list[StateId] | None,
            SkipValidation(),
            Field(description="memories that no longer hold"),
        ] = None,
        assert_: Annotated[
            State | list[State] | None,
            SkipValidation(),
            Field(validation_alias="assert", description="new memories (states) to write"),
        ] = None,
        supersede: Annotated[
            Supersession | list[Supersession | Replacement] | None,
            SkipValidation(),
            Field(
                description="memories replaced by new ones (a changed fact): "
                '{"id": OLD, "with": {"id": NEW, "text": ...}}, or a list of them'
            ),
        ] = None,
        add_justifications: Annotated[
            Justification | list[Justification] | None,
            SkipValidation(),
            Field(description="justifications to add: {head, premises, unless}"),
        ] = None,
        remove_justifications: Annotated[
            Justification | list[Justification] | None,
            SkipValidation(),
            Field(description="justifications to remove, named by head, premises and unless"),
        ] = None,
        add: Annotated[
            list[NewState] | None,
            SkipValidation(),
            Field(
                description="deprecated, accepted until the next release: new memories with "
                "their basis; write them with remember, or in assert"
            ),
        ] = None,
    ) -> Outcome:
        """Change what the memory holds, in one atomic revision, and learn what follows.

        The arguments are a change exactly as a change file or ``POST /v1/revise`` takes it:
        ``retract`` ids, ``assert`` new states, ``supersede`` ``[{"id": OLD, "with":
        STATE}]``, ``add_justifications`` and ``remove_justifications`` (each one entry, or a
        list). The answer lists the memories that no longer hold because of the change
        (``invalidated``), those kept through another support, actions to cancel
        (``consequences``), and memories nobody can decide without a person
        (``needs_confirmation``).

        Deprecated, accepted until the next release: ``add`` (write ``assert``, or
        ``remember`` for a memory with its basis) and a supersede entry's ``new`` (write
        ``with``).
        """
        given: dict[str, Any] = {"retract": retract, "assert": assert_, "supersede": supersede}
        given |= {"add": add, "add_justifications": add_justifications}
        given |= {"remove_justifications": remove_justifications}
        return await run(True, lambda mem: Outcome.of(mem.revise(change_for(mem, given))), ctx)

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
