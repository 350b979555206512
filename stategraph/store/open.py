"""Choosing a store by URL: a SQLite file (the default) or a tenant's store in PostgreSQL.

- ``sqlite:///PATH`` or a plain path: :class:`~stategraph.store.SQLiteStore` (``sqlite:///m.db``
  is the relative file ``m.db``, ``sqlite:////srv/m.db`` the absolute one, as SQLAlchemy reads
  them; ``":memory:"`` a store in memory).
- ``postgresql://...`` (or ``postgres://``): :class:`~stategraph.store.postgres.PostgresStore`, with
  the optional extra ``stategraph[postgres]``. The URL is psycopg's, plus an optional
  ``tenant=NAME`` query parameter (default ``default``), which is taken off before connecting.

A path keeps meaning a path: only a string with one of these schemes is read as a URL.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlunsplit

from stategraph.errors import InvalidInputError, StategraphError
from stategraph.store.sqlite import SQLiteStore
from stategraph.urls import check_url

__all__ = ["POSTGRES_SCHEMES", "is_postgres", "open_store", "split_tenant"]

POSTGRES_SCHEMES = ("postgresql", "postgres")


class PostgresUnavailableError(StategraphError, ImportError):
    """A PostgreSQL URL was given, but psycopg is not installed."""

    def __init__(self) -> None:
        super().__init__("a postgresql:// store needs psycopg: pip install 'stategraph[postgres]'")


_EMPTY_TENANT = "is empty (an unset variable?): name the tenant, or leave tenant= out for 'default'"


def is_postgres(url: str | Path) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL."""
    return isinstance(url, str) and url.partition("://")[0] in POSTGRES_SCHEMES and "://" in url


def split_tenant(url: str) -> tuple[str, str | None]:
    """A PostgreSQL URL without its ``tenant`` parameter, and that parameter (None: absent).

    Raises:
        InvalidInputError: the URL does not parse, or names a port past 65535.
    """
    parts = check_url(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    tenants = [v for k, v in query if k == "tenant"]
    if len(tenants) > 1:
        raise InvalidInputError("store", [("tenant", "given more than once in the URL")])
    rest = urlencode([(k, v) for k, v in query if k != "tenant"])
    return urlunsplit(parts._replace(query=rest)), (tenants[0] if tenants else None)


def open_store(
    url: str | Path,
    *,
    tenant: str | None = None,
    busy_timeout: float = 30.0,
    create: bool = True,
) -> SQLiteStore:
    """Open (or create) the store a URL or path names.

    Args:
        url: see the module's doc.
        tenant: the tenant of a PostgreSQL store (overrides the URL's ``tenant=``). An empty
            tenant, here or in the URL, is refused: it is what an unset variable gives, and
            reading it as ``default`` (or as the URL's) would write to another tenant.
        busy_timeout: seconds a write waits for another writer (then ``StoreBusyError``).
        create: create a missing store (False: a missing one is ``StoreNotFoundError``).

    Raises:
        InvalidInputError: an empty tenant.
        StoreError: the store cannot be opened (see each backend).
        PostgresUnavailableError: a PostgreSQL URL without psycopg installed.
    """
    if is_postgres(url):
        assert isinstance(url, str)
        bare, named = split_tenant(url)
        if tenant == "" or named == "":  # an unset variable: never another tenant's store
            where = "tenant=" if tenant == "" else "the URL's tenant="
            raise InvalidInputError("store", [(where, _EMPTY_TENANT)])
        try:
            from stategraph.store.postgres import DEFAULT_TENANT, PostgresStore
        except ImportError as exc:
            raise PostgresUnavailableError() from exc
        return PostgresStore(
            bare,
            tenant if tenant is not None else named if named is not None else DEFAULT_TENANT,
            busy_timeout=busy_timeout,
            create=create,
        )
    path: Any = url
    if isinstance(url, str) and url.startswith("sqlite://"):
        path = os.path.expanduser(url.removeprefix("sqlite://").removeprefix("/"))
        if path == "":
            path = ":memory:"
    return SQLiteStore(path, busy_timeout=busy_timeout, create=create)
