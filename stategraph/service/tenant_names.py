"""What a tenant may be called, shared by every tenant backend.

It lives apart from :mod:`stategraph.service.tenants` so that a backend in its own module
(:mod:`stategraph.service.pg_tenants`) can check names without importing the module that
chooses among the backends: the import runs one way, ``tenants`` -> ``pg_tenants`` ->
``tenant_names``.
"""

from __future__ import annotations

import re

from stategraph.service.errors import InvalidTenantError

__all__ = ["TENANT_NAME", "check_tenant"]

TENANT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
"""What a tenant may be called: a safe file name on every file system (no separator, no dot,
no letter case to fold)."""


def check_tenant(tenant: str) -> str:
    """Return ``tenant`` if it is a valid tenant name.

    Raises:
        InvalidTenantError: it is not (see :data:`TENANT_NAME`).
    """
    if not isinstance(tenant, str) or TENANT_NAME.fullmatch(tenant) is None:
        raise InvalidTenantError(str(tenant))
    return tenant
