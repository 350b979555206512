"""The service's own errors, and the HTTP status of every error stategraph raises.

The HTTP API maps errors to responses in one exception handler; this module is the table it
reads, kept apart from FastAPI so that the MCP server and the tests read the same table and so
that the mapping can be checked without starting a server. The table is keyed by class *name*
and walked along the error's method resolution order: the most specific class listed wins, a
class not listed takes its parent's status, and an error class added to
:mod:`stategraph.errors` later is mapped through its bases until it gets a row of its own.

An error body says which library error it was (``type``), what to do (``message``) and the
error's data (the offending id, field, limit, ...), but never a file system path: a tenant
must not learn where, or under which name, the server keeps its store.
"""

from __future__ import annotations

from typing import Any

from stategraph.errors import StategraphError, StoreError

__all__ = [
    "HTTP_STATUS",
    "InvalidTenantError",
    "RequestTimeoutError",
    "RequestTooLargeError",
    "ServiceConfigError",
    "UnauthorizedError",
    "error_body",
    "http_status",
    "retry_after",
]


class UnauthorizedError(StategraphError):
    """A request carried no bearer token, or one the server does not know.

    Both cases get the same answer, so a caller learns nothing about which tokens or tenants
    exist.
    """

    def __init__(self) -> None:
        super().__init__(
            "a valid bearer token is required: send 'Authorization: Bearer <token>' with a "
            "token the server's tokens file lists"
        )


class RequestTooLargeError(StategraphError):
    """A request body is larger than the server accepts.

    Attributes:
        limit: the largest body accepted, in bytes.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(
            f"the request body is larger than {limit} bytes: send the change in smaller parts"
        )


class RequestTimeoutError(StategraphError):
    """A request body did not arrive in time (a client sending a byte now and then).

    Attributes:
        timeout: the seconds allowed for the whole body.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        super().__init__(
            f"the request body did not arrive within {timeout:g} seconds: send it whole, at once"
        )


class InvalidTenantError(StategraphError, ValueError):
    """A tenant name is not one the service accepts.

    Tenant names become file names (one store per tenant), so they are restricted to lower-case
    letters, digits, ``-`` and ``_``: no path separator, no dot, no case that a file system
    might fold.

    Attributes:
        tenant: the name refused.
    """

    def __init__(self, tenant: str) -> None:
        self.tenant = tenant
        super().__init__(
            f"invalid tenant name {tenant[:80]!r}: use 1 to 64 lower-case letters, digits, '-' "
            "or '_', starting with a letter or digit"
        )


class ServiceConfigError(StategraphError, ValueError):
    """The service cannot start as configured: a store URL it does not serve, a tokens file
    it cannot read, an option out of range.

    Attributes:
        setting: the option or file at fault (``--store``, ``--tokens``, ...).
    """

    def __init__(self, setting: str, message: str) -> None:
        self.setting = setting
        super().__init__(f"{setting}: {message}")


HTTP_STATUS: dict[str, int] = {
    "UnauthorizedError": 401,
    "RequestTooLargeError": 413,
    "RequestTimeoutError": 408,
    "UnknownStateError": 404,
    "DuplicateStateError": 409,
    "NotHoldingError": 409,
    "NotPendingError": 409,
    "ConcurrentChangeError": 409,
    "HeadMismatchError": 409,
    "InconsistentStoreError": 409,
    "LogIntegrityError": 423,
    "StoreBusyError": 503,
    "StoreUnavailableError": 503,
    "StoreError": 500,
    "LogicError": 500,
    "ResourceNotFoundError": 500,
    "JudgeConfigError": 500,
    "ToolNotFoundError": 500,
    "RenderError": 500,
    "ServiceConfigError": 500,
    "StategraphError": 400,
}
"""Status by error class name, looked up along the class's MRO (so a subclass without a row
takes its parent's): 400 bad input, 401 no valid token, 404 unknown state, 409 a conflict with
the memory as it is (a duplicate id, ``why`` of a state that does not hold, a review of a state
nobody flagged, a revision that kept losing the race, a head given to ``/v1/verify`` that the log
does not reach, a state whose stored value contradicts its justifications), 413 a body too
large, 423 a store whose log or tables do not verify (it refuses writes until someone looks),
503 a busy store or one whose database node cannot be reached (retry), 500 the server's own
fault (a store it cannot use, a logic failure)."""

_RETRY_AFTER = {"StoreBusyError": 1, "ConcurrentChangeError": 1, "StoreUnavailableError": 5}
"""Seconds after which a request refused for contention may be sent again."""

_DETAILS = (
    "state_id",
    "context",
    "what",
    "errors",
    "field",
    "kind",
    "known",
    "truth",
    "active",
    "seq",
    "reason",
    "timeout",
    "attempts",
    "limit",
    "value",
    "line",
    "setting",
)
"""Attributes of an error that an error body carries (never ``path`` or ``data``)."""


def _first_row(exc: BaseException, table: dict[str, int]) -> int | None:
    for cls in type(exc).__mro__:
        if cls.__name__ in table:
            return table[cls.__name__]
    return None


def http_status(exc: BaseException) -> int:
    """The HTTP status for an error: its row in :data:`HTTP_STATUS`, else its nearest listed
    base's; 500 for an error that is not stategraph's."""
    if not isinstance(exc, StategraphError):
        return 500
    status = _first_row(exc, HTTP_STATUS)
    return 400 if status is None else status


def retry_after(exc: BaseException) -> int | None:
    """Seconds to send in ``Retry-After``, for errors that a retry resolves; else None."""
    return _first_row(exc, _RETRY_AFTER)


def public_message(exc: BaseException) -> str:
    """The error's message without the store's path (which names the tenant's file)."""
    message = str(exc)
    if isinstance(exc, StoreError) and exc.path:
        message = message.removeprefix(f"{exc.path}: ").replace(exc.path, "the store")
    return message


def error_body(exc: BaseException) -> dict[str, Any]:
    """The JSON body of an error response: ``{"error": {type, message, status, ...data}}``.

    An error that is not stategraph's is reported as ``InternalError`` with no detail (its
    message may carry anything); the server logs it with its traceback.
    """
    status = http_status(exc)
    if not isinstance(exc, StategraphError):
        return {
            "error": {
                "type": "InternalError",
                "message": "internal error: the server logged it; report it with the time",
                "status": status,
            }
        }
    body: dict[str, Any] = {
        "type": type(exc).__name__,
        "message": public_message(exc),
        "status": status,
    }
    for name in _DETAILS:
        value = getattr(exc, name, None)
        if value is None or value == "" or callable(value):
            continue
        if isinstance(value, (str, int, float, bool)):
            body[name] = value
        elif isinstance(value, (list, tuple)):
            body[name] = [list(v) if isinstance(v, tuple) else v for v in value]
    return {"error": body}
