"""Which PostgreSQL errors say that the store cannot be reached (retry later: HTTP 503), read
without a server: the errors are built as psycopg builds them from a server's reply."""

from __future__ import annotations

from psycopg import errors as pg_errors

from stategraph.store.pgdialect import is_unreachable


def test_a_citus_worker_lost_at_commit_is_unreachable() -> None:
    """Citus reports a worker that failed at COMMIT with no SQLSTATE of its own (XX000): the
    service answered 500 "could not commit transaction" where a dead worker answers 503."""
    lost = pg_errors.InternalError_(
        "could not commit transaction for shard 102132 on at least one active node"
    )
    assert lost.sqlstate == "XX000"
    assert is_unreachable(lost)


def test_other_internal_errors_and_refusals_are_not() -> None:
    assert not is_unreachable(pg_errors.InternalError_("cache lookup failed for relation 1"))
    assert not is_unreachable(pg_errors.UniqueViolation("duplicate key value"))
    assert is_unreachable(pg_errors.AdminShutdown("terminating connection"))
    assert is_unreachable(pg_errors.ConnectionFailure("connection to the remote node failed"))
