"""The HTTP API: routes thin over :class:`~stategraph.memory.Memory`, one tenant per token.

Every route but ``/healthz`` needs a bearer token, and acts on the one tenant that token is
scoped to (:mod:`stategraph.service.auth`): no route takes a tenant name, so a request cannot
name another tenant's memory, and an id that only another tenant holds is answered exactly as an
id nobody holds. Bodies are capped in size and parsed strictly (:mod:`stategraph.service.bodies`),
then validated by the library's own models, which are also the OpenAPI schema (``/openapi.json``,
browsable at ``/docs``). Every error, the library's or the framework's, leaves through one
exception handler as ``{"error": {"type", "message", "status", ...}}`` with the status of
:mod:`stategraph.service.errors` (``Retry-After`` on a busy store).

The engine is synchronous, so each route hands its work to a
:class:`~stategraph.service.runner.TenantRunner` (a worker thread; one writer per tenant at a
time) and serialises the result to JSON in that thread, off the event loop.

Run it with ``stategraph serve`` (:mod:`stategraph.service.cli`); :func:`create_app` builds it
for tests and other ASGI servers, :func:`app_from_env` for uvicorn's worker processes.
"""

import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRouter
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import TypeAdapter
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import stategraph
from stategraph.asof import MemoryAsOf
from stategraph.engine.explain import Proof, WhyNot
from stategraph.errors import InvalidInputError, StategraphError
from stategraph.memory import Memory
from stategraph.model import Change, Report
from stategraph.nodes import is_internal
from stategraph.recall import Recalled
from stategraph.review.confirm import PendingReview
from stategraph.service.auth import Tokens
from stategraph.service.bodies import BODY_TIMEOUT, BodyLimit, StrictJSONRoute
from stategraph.service.errors import ServiceConfigError, error_body, http_status, retry_after
from stategraph.service.runner import TenantRunner
from stategraph.service.schemas import (
    ErrorResponse,
    HeadView,
    ReportView,
    ReviewDecision,
    StateView,
    VerifyView,
)
from stategraph.service.settings import MemorySettings
from stategraph.service.tenants import TenantStores, open_tenants
from stategraph.shapes import NewState, problems
from stategraph.store.revlog import LogEntry
from stategraph.urls import redact_logs

__all__ = ["CONFIG_ENV", "MAX_BODY", "MAX_PAGE", "InternalErrors", "app_from_env", "create_app"]

log = logging.getLogger("stategraph.service")

MAX_BODY = 1 << 20
"""The largest request body accepted by default (1 MiB: thousands of states in one change)."""
MAX_PAGE = 4 << 20
"""The size of a listing's page in bytes, by default (``/v1/states``, ``/v1/history``): past
it the page ends and its ``Link`` header names the next one. A page holds at least one item."""
CONFIG_ENV = "STATEGRAPH_SERVE_CONFIG"
"""The environment variable that hands ``stategraph serve``'s settings to uvicorn's workers."""

T = TypeVar("T")

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "bad input (the library's validation error)"},
    401: {"model": ErrorResponse, "description": "no valid bearer token"},
    413: {"model": ErrorResponse, "description": "request body too large"},
    423: {"model": ErrorResponse, "description": "the store's log does not verify"},
    503: {"model": ErrorResponse, "description": "the store is busy: retry after Retry-After"},
}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "no such state in this tenant's memory"}
}
_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorResponse, "description": "conflicts with the memory as it is"}
}

# The dependencies are coroutines: FastAPI runs a plain function dependency in a worker thread,
# a thread hop per dependency per request for what is a dictionary lookup.
_bearer = HTTPBearer(
    auto_error=False,
    description="a token from the server's tokens file; it names the tenant the request acts as",
)


async def _tenant(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    tokens: Tokens = request.app.state.tokens
    return tokens.tenant_for(credentials.credentials if credentials else None)


async def _runner(request: Request) -> TenantRunner:
    runner: TenantRunner = request.app.state.runner
    return runner


Tenant = Annotated[str, Depends(_tenant)]
Runner = Annotated[TenantRunner, Depends(_runner)]


def _json(content: bytes, status: int = 200) -> Response:
    return Response(content=content, status_code=status, media_type="application/json")


def _dump(value: Any, kind: Any) -> bytes:
    """JSON of a model or a list of models, by alias (``assert``, ``with``), as a report's
    own ``to_json`` writes it."""
    return TypeAdapter(kind).dump_json(value, by_alias=True)


def _report(report: Report) -> bytes:
    """A revision's answer: its report with the summary lists (:class:`ReportView`)."""
    return ReportView.of(report).to_json(indent=None).encode()


router = APIRouter(prefix="/v1", route_class=StrictJSONRoute, responses=_ERRORS)


@router.post(
    "/states",
    status_code=201,
    response_model=ReportView,
    responses=_CONFLICT,
    summary="Add a state with its basis",
)
async def add_state(body: NewState, tenant: Tenant, runner: Runner) -> Response:
    """Add one state (a fact, belief, plan or action) with its justifications, as
    ``Memory.add`` does, and return the revision's report (adding can block or restore other
    states through ``unless``). 409 if the id is taken."""

    def job(mem: Memory) -> bytes:
        report = mem.add(
            body.state(), because=body.because, unless=body.unless, context=body.context
        )
        return _report(report)

    return _json(await runner.write(tenant, job), 201)


def _page(request: Request, items: list[bytes], cursor: tuple[str, str] | None) -> Response:
    """A JSON list of already serialised items; with ``cursor`` (a query parameter and its
    value), a ``Link: <...>; rel="next"`` header to the next page (RFC 8288)."""
    headers: dict[str, str] = {}
    if cursor is not None:
        url = request.url.include_query_params(**{cursor[0]: cursor[1]})
        headers["Link"] = f'<{url.path}?{url.query}>; rel="next"'
    body = b"[" + b",".join(items) + b"]"
    return Response(content=body, media_type="application/json", headers=headers)


def _fill(items: Iterator[tuple[str, bytes]], budget: int) -> tuple[list[bytes], str | None]:
    """Take serialised items while they fit in ``budget`` bytes (always the first one): the
    items, and the key of the last one taken if more were left (the next page's cursor)."""
    taken: list[bytes] = []
    size, last = 0, None
    for key, item in items:
        if taken and size + len(item) + 1 > budget:
            return taken, last
        taken.append(item)
        size += len(item) + 1
        last = key
    return taken, None


AsOfQuery = Annotated[
    str | None,
    Query(
        description="read the memory as it was right after this revision (a sequence number) "
        "or at this ISO 8601 time (the last revision committed at or before it)"
    ),
]


def _then(mem: Memory, as_of: str | None) -> Memory | MemoryAsOf:
    """The memory now, or as it was ``as_of`` a revision or a time."""
    return mem if as_of is None else mem.as_of(as_of)


@router.get("/states", response_model=list[StateView], summary="List the states")
async def list_states(
    request: Request,
    tenant: Tenant,
    runner: Runner,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
    after: Annotated[str | None, Query(description="the last id of the previous page")] = None,
    as_of: AsOfQuery = None,
) -> Response:
    """Every state (active or not) with its value now, sorted by id, one page at a time.

    A page ends after ``limit`` states or past the server's page size in bytes (4 MiB by
    default), whichever comes first; when more remain, the ``Link`` header names the next
    page (``rel="next"``). States are read and serialised one at a time, so a page costs its
    own size, not the memory's."""
    budget: int = request.app.state.max_page

    def job(mem: Memory) -> tuple[list[bytes], str | None]:
        store = mem.store if as_of is None else mem.as_of(as_of).store
        ids = store.ids(limit + 1, after=after)

        def views() -> Iterator[tuple[str, bytes]]:
            for state_id in ids[:limit]:
                if is_internal(state_id):
                    continue  # an atom node is no memory (stategraph.nodes)
                row = store.state(state_id)
                if row is not None:  # gone since the ids were read
                    view = StateView(state=row[0], truth=row[2], active=row[1])
                    yield state_id, _dump(view, StateView)

        items, cut = _fill(views(), budget)
        if cut is None and len(ids) > limit:
            cut = ids[limit - 1]
        return items, cut

    items, cut = await runner.read(tenant, job)
    return _page(request, items, None if cut is None else ("after", cut))


@router.get(
    "/states/{state_id:path}",
    response_model=StateView,
    responses=_NOT_FOUND,
    summary="Show a state",
)
async def show_state(
    state_id: str, tenant: Tenant, runner: Runner, as_of: AsOfQuery = None
) -> Response:
    """One state, its value now (or ``as_of`` a revision), and whether it is still active."""

    def job(mem: Memory) -> bytes:
        m = _then(mem, as_of)
        view = StateView(
            state=m.state(state_id), truth=m.truth(state_id), active=m.is_active(state_id)
        )
        return _dump(view, StateView)

    return _json(await runner.read(tenant, job))


@router.post(
    "/revise",
    response_model=ReportView,
    responses={**_NOT_FOUND, **_CONFLICT},
    summary="Apply a change",
)
async def revise(change: Change, tenant: Tenant, runner: Runner) -> Response:
    """Retract, assert, supersede, add or remove justifications, atomically; the report says
    what was invalidated, kept, restored or flagged, and why. The same fields as a change file
    (``assert``, ``supersede: {id, with}``, ...)."""

    def job(mem: Memory) -> bytes:
        return _report(mem.revise(change))

    return _json(await runner.write(tenant, job))


@router.get(
    "/why/{state_id:path}",
    response_model=Proof,
    responses={**_NOT_FOUND, **_CONFLICT},
    summary="Why a state holds",
)
async def why(state_id: str, tenant: Tenant, runner: Runner, as_of: AsOfQuery = None) -> Response:
    """A minimal-height, non-circular proof of a holding state (held ``as_of`` a revision).
    409 if it does not hold (ask why-not)."""
    return _json(
        await runner.read(tenant, lambda mem: _dump(_then(mem, as_of).why(state_id), Proof))
    )


@router.get(
    "/why-not/{state_id:path}",
    response_model=WhyNot,
    responses=_NOT_FOUND,
    summary="Why a state does not hold",
)
async def why_not(
    state_id: str, tenant: Tenant, runner: Runner, as_of: AsOfQuery = None
) -> Response:
    """For each justification of a state, the first premise that fails or the ``unless``
    that blocks it (``as_of``: then)."""
    return _json(
        await runner.read(tenant, lambda mem: _dump(_then(mem, as_of).why_not(state_id), WhyNot))
    )


@router.get("/history", response_model=list[LogEntry], summary="The revision log")
async def history(
    request: Request,
    tenant: Tenant,
    runner: Runner,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    since: Annotated[
        str | None,
        Query(description="after this sequence number, or at or after this ISO 8601 time"),
    ] = None,
) -> Response:
    """The last ``limit`` entries of the tenant's revision log (after ``since``), oldest
    first, read one entry at a time.

    A page ends past the server's page size in bytes (4 MiB by default; at least one entry):
    the ``Link`` header then names the next page (``rel="next"``, with ``since``)."""
    budget: int = request.app.state.max_page

    def job(mem: Memory) -> tuple[list[bytes], str | None]:
        entries = ((str(e.seq), _dump(e, LogEntry)) for e in mem.store.iter_history(limit, since))
        return _fill(entries, budget)

    items, cut = await runner.read(tenant, job)
    return _page(request, items, None if cut is None else ("since", cut))


@router.get("/head", response_model=HeadView, summary="The log's head")
async def head(tenant: Tenant, runner: Runner) -> Response:
    """The last log entry's sequence number and hash: kept elsewhere, it shows later that no
    entry was removed from the end (``/v1/verify?expect_seq=&expect_hash=``)."""

    def job(mem: Memory) -> bytes:
        seq, digest = mem.head()
        return _dump(HeadView(seq=seq, hash=digest), HeadView)

    return _json(await runner.read(tenant, job))


@router.get("/verify", response_model=VerifyView, summary="Verify the log's hash chain")
async def verify(
    tenant: Tenant,
    runner: Runner,
    expect_seq: int | None = None,
    expect_hash: Annotated[str | None, Query(pattern=r"^[0-9a-f]{64}$")] = None,
    deep: bool = False,
) -> Response:
    """Check the tenant's hash chain, and with ``deep`` that its tables hold what the log's
    revisions wrote (reads every row: seconds at a million states). 423 if the store does not
    verify; it then refuses writes until someone looks. A head given (``expect_seq`` and
    ``expect_hash``) that the log does not reach is 409 ``HeadMismatchError``: an answer about
    that head, which flags nothing."""
    if (expect_seq is None) != (expect_hash is None):
        raise InvalidInputError("request", [("expect_seq", "give expect_seq and expect_hash")])
    expect = None if expect_seq is None or expect_hash is None else (expect_seq, expect_hash)

    def job(mem: Memory) -> bytes:
        entries = mem.verify_log(expect, deep)
        seq, digest = mem.head()
        checked = deep and mem.store.tables_digest() is not None
        view = VerifyView(entries=entries, head=HeadView(seq=seq, hash=digest), tables=checked)
        return _dump(view, VerifyView)

    return _json(await runner.read(tenant, job))


@router.get("/review", response_model=list[PendingReview], summary="What needs review")
async def pending_review(tenant: Tenant, runner: Runner, as_of: AsOfQuery = None) -> Response:
    """The states waiting for a person (flagged ``needs_confirmation`` and still standing),
    oldest flag first, each with why (``as_of``: those that waited then)."""
    return _json(
        await runner.read(
            tenant, lambda mem: _dump(_then(mem, as_of).pending_review(), list[PendingReview])
        )
    )


@router.get("/recall", response_model=list[Recalled], summary="Recall what answers a question")
async def recall(
    tenant: Tenant,
    runner: Runner,
    q: Annotated[str, Query(description="the question or words to look for")],
    k: Annotated[int, Query(description="at most k memories (1..1000)")] = 10,
    kind: Annotated[list[str] | None, Query(description="only these kinds")] = None,
    include_doubtful: bool = True,
    include_invalidated: bool = False,
    as_of: AsOfQuery = None,
) -> Response:
    """The memories that best match ``q`` (full-text ranking over words and grounded atoms),
    each with its status: a memory in doubt carries ``ask_first``, the question to put to the
    user before relying on it; what no longer holds is only listed with
    ``include_invalidated``, with why not."""

    def job(mem: Memory) -> bytes:
        found = mem.recall(
            q,
            k,
            kinds=kind,
            include_doubtful=include_doubtful,
            include_invalidated=include_invalidated,
            as_of=as_of,
        )
        return _dump(found, list[Recalled])

    return _json(await runner.read(tenant, job))


def _settle(confirm: bool) -> Callable[[ReviewDecision, str, TenantRunner], Any]:
    async def settle(decision: ReviewDecision, tenant: Tenant, runner: Runner) -> Response:
        def job(mem: Memory) -> bytes:
            act = mem.confirm if confirm else mem.reject
            report = act(decision.id, by=decision.by, note=decision.note, at=decision.at)
            return _report(report)

        return _json(await runner.write(tenant, job))

    return settle


router.add_api_route(
    "/review/confirm",
    _settle(True),
    methods=["POST"],
    name="confirm",
    response_model=ReportView,
    responses={**_NOT_FOUND, **_CONFLICT},
    summary="Confirm a state waiting for review",
    description="It holds from now on, on the reviewer's word (a ``review`` justification), "
    "and what rests on it is restored. 409 if nothing flagged it.",
)
router.add_api_route(
    "/review/reject",
    _settle(False),
    methods=["POST"],
    name="reject",
    response_model=ReportView,
    responses={**_NOT_FOUND, **_CONFLICT},
    summary="Reject a state waiting for review",
    description="It is retracted, and what rests on it alone goes. 409 if nothing flagged it.",
)


async def _library_error(request: Request, exc: Exception) -> Response:
    status = http_status(exc)
    headers: dict[str, str] = {}
    seconds = retry_after(exc)
    if seconds is not None:
        headers["Retry-After"] = str(seconds)
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    if status >= 500:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return JSONResponse(error_body(exc), status_code=status, headers=headers)


_BODIES = {"add_state": "memory", "revise": "change", "confirm": "review", "reject": "review"}
"""What each route's body is, as the library names it in a refusal (``invalid memory: ...``)."""


async def _validation_error(request: Request, exc: Exception) -> Response:
    """A body or parameter that does not validate: one :class:`InvalidInputError` in the
    library's words (:func:`stategraph.shapes.problems`), a body's fields named as Python and
    MCP name them (``because.0``, not ``body.because.0``)."""
    errors: Sequence[Any] = exc.errors() if isinstance(exc, RequestValidationError) else ()
    route = getattr(request.scope.get("route"), "name", "")
    if errors and all(tuple(e.get("loc", ()))[:1] == ("body",) for e in errors):
        refused = InvalidInputError(_BODIES.get(route, "request"), problems(errors, skip=1))
    else:
        refused = InvalidInputError("request", problems(errors))
    return await _library_error(request, refused)


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, StarletteHTTPException) else 500
    detail = exc.detail if isinstance(exc, StarletteHTTPException) else "error"
    headers = dict(exc.headers or {}) if isinstance(exc, StarletteHTTPException) else {}
    body = {"error": {"type": "HTTPError", "message": str(detail), "status": status}}
    return JSONResponse(body, status_code=status, headers=headers)


class InternalErrors:
    """ASGI middleware: an unexpected exception becomes a 500 with the API's JSON body, and the
    connection stays open.

    Starlette's own last-resort handler sends the 500 and then raises the exception again, for
    the server to log; uvicorn then closes the connection, so a client that keeps connections
    alive saw its *next* request fail with a reset. Here the exception is logged and answered,
    and ends there (once a response has started, nothing can be answered: it is raised).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            if started:
                raise
            log.error("%s %s failed", scope.get("method"), scope.get("path"), exc_info=exc)
            await JSONResponse(error_body(exc), status_code=500)(scope, receive, send)


def create_app(
    tenants: TenantStores,
    tokens: Tokens,
    *,
    max_body: int = MAX_BODY,
    threads: int = 16,
    max_page: int = MAX_PAGE,
    body_timeout: float = BODY_TIMEOUT,
) -> FastAPI:
    """The HTTP API over some tenant stores.

    Args:
        tenants: where the tenants' memories live; closed when the app shuts down.
        tokens: the bearer tokens accepted, each scoped to one tenant.
        max_body: the largest request body accepted, in bytes (413 past it).
        threads: how many operations run at once in this process.
        max_page: a listing's page size in bytes (the page ends past it; at least one item).
        body_timeout: seconds a request's body has to arrive (408 past it).
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            tenants.close()

    app = FastAPI(
        title="stategraph",
        version=stategraph.__version__,
        summary="Dependency-aware state revision for agent memory",
        description="Each bearer token acts as one tenant; every route reads or revises that "
        'tenant\'s memory only. Errors are `{"error": {type, message, status, ...}}`, where '
        "`type` is the library's error class.",
        lifespan=lifespan,
    )
    app.state.runner = TenantRunner(tenants, threads=threads)
    app.state.tokens = tokens
    app.state.max_page = max_page
    app.include_router(router)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    app.add_exception_handler(StategraphError, _library_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_middleware(BodyLimit, max_bytes=max_body, timeout=body_timeout)
    app.add_middleware(InternalErrors)  # outermost of ours: BodyLimit's own refusals pass it
    return app


def app_from_env() -> FastAPI:
    """The app as ``stategraph serve`` configured it, for each of uvicorn's worker processes
    (they import it by name: ``stategraph.service.http:app_from_env``).

    Raises:
        ServiceConfigError: the environment variable :data:`CONFIG_ENV` is missing.
    """
    raw = os.environ.get(CONFIG_ENV)
    if not raw:
        raise ServiceConfigError(CONFIG_ENV, "not set: start the server with 'stategraph serve'")
    config = json.loads(raw)
    redact_logs(config["store"])
    tenants = open_tenants(
        config["store"],
        busy_timeout=float(config["busy_timeout"]),
        settings=MemorySettings.from_config(config.get("memory", {})),
    )
    return create_app(
        tenants,
        Tokens.from_file(config["tokens"]),
        max_body=int(config["max_body"]),
        threads=int(config["threads"]),
        max_page=int(config.get("max_page", MAX_PAGE)),
    )
