"""An empty tenant is refused, never read as ``default`` or as the URL's (issue 22, item 10).

``postgresql://...?tenant=$TENANT`` with the variable unset gives ``tenant=``; the store
opened ``default`` and wrote there, and ``open_store(url, tenant="")`` opened the URL's tenant.
Both are now an ``InvalidInputError`` naming the tenant, raised before any connection.
"""

from __future__ import annotations

import uuid

import psycopg
import pytest
from backends import _with_tenant, fresh_tenant, postgres_url

from stategraph import Memory
from stategraph.cli.main import EXIT_INPUT, main
from stategraph.errors import InvalidInputError, StoreError
from stategraph.stores import open_store

NOWHERE = "postgresql://nobody@127.0.0.1:1/none"
"""A server nobody listens on: the refusal comes before any connection."""


@pytest.mark.parametrize(
    ("url", "tenant", "field"),
    [
        (f"{NOWHERE}?tenant=", None, "the URL's tenant="),
        (f"{NOWHERE}?tenant", None, "the URL's tenant="),
        (f"{NOWHERE}?sslmode=disable&tenant=", None, "the URL's tenant="),
        (f"{NOWHERE}?tenant=alice", "", "tenant="),
        (NOWHERE, "", "tenant="),
    ],
)
def test_an_empty_tenant_is_refused_before_connecting(
    url: str, tenant: str | None, field: str
) -> None:
    with pytest.raises(InvalidInputError) as info:
        open_store(url, tenant=tenant)
    assert info.value.errors[0][0] == field and "is empty" in info.value.errors[0][1]
    with pytest.raises(InvalidInputError):
        Memory(url) if tenant is None else Memory(store=open_store(url, tenant=tenant))


def _holds(conn: psycopg.Connection[tuple[str]], tenant: str, sid: str) -> bool:
    if conn.execute("SELECT to_regclass('stategraph.states')").fetchone() == (None,):
        return False  # no store was ever made on this server
    found = conn.execute(
        "SELECT 1 FROM stategraph.states WHERE tenant = %s AND id = %s", (tenant, sid)
    )
    return found.fetchone() is not None


def test_an_empty_tenant_writes_to_no_tenant(capsys: pytest.CaptureFixture[str]) -> None:
    """Against the real server: before, ``stategraph add 'postgresql://...?tenant='`` wrote to
    ``default``, and ``tenant=""`` beside a URL naming one wrote to the URL's."""
    url, named, sid = postgres_url(), fresh_tenant("named"), f"x-{uuid.uuid4().hex}"
    assert main(["add", _with_tenant(url, ""), "--id", sid]) == EXIT_INPUT
    assert "tenant=: is empty" in capsys.readouterr().err
    with pytest.raises(InvalidInputError):
        Memory(store=open_store(_with_tenant(url, named), tenant="")).fact(sid)
    with psycopg.connect(url, autocommit=True) as conn:
        assert not _holds(conn, "default", sid) and not _holds(conn, named, sid)


@pytest.mark.parametrize("query", ["?tenant=", "?tenant=alice"])
def test_the_services_store_url_takes_no_tenant_at_all(query: str) -> None:
    """Held before: the service takes each request's tenant from its token, never from its
    store URL, so an empty one there cannot pick ``default`` either."""
    from stategraph.service.pg_tenants import PostgresTenants

    with pytest.raises(StoreError, match="drop tenant="):
        PostgresTenants(NOWHERE + query)
