"""Serving many agents: tenant stores, the HTTP API and the MCP server.

Nothing here is imported by ``import stategraph`` or by the command line's start-up: FastAPI,
uvicorn and the MCP SDK come with the optional ``service`` extra
(``pip install "stategraph[service]"``) and load only when ``stategraph serve`` or
``stategraph mcp`` runs. The layers, each in its own module, flow one way:

- :mod:`~stategraph.service.tenants`: one :class:`~stategraph.memory.Memory` per tenant,
  behind the small :class:`~stategraph.service.tenants.TenantStores` interface (SQLite now:
  one file per tenant);
- :mod:`~stategraph.service.auth`: bearer tokens, stored hashed, each scoped to one tenant;
- :mod:`~stategraph.service.runner`: runs work on a tenant's memory off the event loop, one
  writer per tenant at a time;
- :mod:`~stategraph.service.errors`: the service's own errors and the HTTP status of every
  error, mapped once;
- :mod:`~stategraph.service.http` (FastAPI) and :mod:`~stategraph.service.mcp_server` (the
  MCP SDK): thin layers over :class:`~stategraph.memory.Memory`;
- :mod:`~stategraph.service.load`: the load test on loopback (``scripts/load_test.py``).
"""
