"""The request and response bodies of the HTTP API and the MCP tools that the library's own
models do not already describe.

Reports, states, proofs, log entries and changes go over the wire as the library's pydantic
models (:mod:`stategraph.model`, :mod:`stategraph.engine.explain`,
:mod:`stategraph.store.revlog`), so the OpenAPI schema and the MCP tools' schemas are the
library's, and a memory with its basis is :class:`stategraph.shapes.NewState`. What is here
is a few small views.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, computed_field

from stategraph.model import Report, State, StateId, Text, Truth, trusted

__all__ = [
    "ErrorResponse",
    "HeadView",
    "ReportView",
    "ReviewDecision",
    "StateView",
    "VerifyView",
]

_BODY = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class ReportView(Report):
    """A revision's report as the HTTP API answers it: the report, and the summary lists that
    Python's :class:`~stategraph.model.Report` has as properties and MCP's ``revise`` answers
    (``invalidated``, ``kept``, ``restored``, ``needs_confirmation``, ``consequences``).

    Only answers carry them: the revision log keeps the report itself, whose bytes are hashed.
    """

    @classmethod
    def of(cls, report: Report) -> ReportView:
        """The view of a report (its fields shared, not copied or validated again)."""
        return trusted(cls, dict(report.__dict__))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def invalidated(self) -> list[str]:
        """States that lost all support: stop relying on them."""
        return super().invalidated

    @computed_field  # type: ignore[prop-decorator]
    @property
    def kept(self) -> list[str]:
        """Touched states that still hold through another support."""
        return super().kept

    @computed_field  # type: ignore[prop-decorator]
    @property
    def restored(self) -> list[str]:
        """States that did not hold before and hold now."""
        return super().restored

    @computed_field  # type: ignore[prop-decorator]
    @property
    def needs_confirmation(self) -> list[str]:
        """States neither logic nor policy could settle: a person should."""
        return super().needs_confirmation

    @computed_field  # type: ignore[prop-decorator]
    @property
    def consequences(self) -> dict[str, str]:
        """Actions to cancel (``cancel``) or to look at again (``review``)."""
        return super().consequences


class StateView(BaseModel):
    """One state, with its value now and whether it is still active (not retracted or
    superseded)."""

    model_config = ConfigDict(frozen=True)

    state: State
    truth: Truth
    active: bool


class ReviewDecision(BaseModel):
    """A person's answer to a state waiting for review."""

    model_config = _BODY

    id: StateId
    by: Text = Field(min_length=1, max_length=200, description="who decided")
    note: Text = Field(default="", max_length=10_000, description="why")
    at: str | None = Field(
        default=None, description="when (ISO 8601), if it is to be recorded; never the clock"
    )


class HeadView(BaseModel):
    """The log's head: keep it elsewhere to catch entries removed from the end later."""

    model_config = ConfigDict(frozen=True)

    seq: int
    hash: str


class VerifyView(BaseModel):
    """A verified log: how many entries, and its head."""

    model_config = ConfigDict(frozen=True)

    entries: int
    head: HeadView
    tables: bool = False
    """The tables were checked against the log (``deep``; a log written before the tables'
    digest cannot be, until its next revision)."""


class ErrorDetail(BaseModel):
    """What went wrong: the library's error type, what to do, and the error's data (the
    offending ``state_id``, ``field``, ``errors``, ``limit``, ...)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="the error's class, e.g. UnknownStateError")
    message: str
    status: int


class ErrorResponse(BaseModel):
    """The body of every error response."""

    error: ErrorDetail
