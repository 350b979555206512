"""Work on a tenant's memory from async code: off the event loop, one writer per tenant.

The engine is synchronous (SQLite, clingo), so the HTTP API and the MCP server run every
operation in a worker thread, opening the tenant's memory there (SQLite connections belong to
the thread that opened them). Writes of one tenant wait their turn on an async lock before
they take a thread: a burst of writes to one tenant then queues without holding threads that
other tenants' requests need, and never computes revisions that would only be thrown away
when a sibling commits first. Reads, and writes of different tenants, run in parallel.

The lock serialises the writers of one process. Between processes (several server workers on
one store) the store serialises them: SQLite's write lock, and
:meth:`Memory.revise <stategraph.memory.Memory.revise>`, which recomputes a revision whose
store changed underneath it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

from stategraph.memory import Memory
from stategraph.service.tenants import TenantStores, check_tenant

__all__ = ["TenantRunner"]

T = TypeVar("T")


class TenantRunner:
    """Runs functions on tenants' memories in worker threads.

    Args:
        tenants: where the memories live.
        threads: how many operations may run at once in this process (reads and writes of
            all tenants together).
    """

    def __init__(self, tenants: TenantStores, threads: int = 16) -> None:
        self.tenants = tenants
        self._limiter = anyio.CapacityLimiter(threads)
        self._locks: dict[str, anyio.Lock] = {}

    def _lock(self, tenant: str) -> anyio.Lock:
        lock = self._locks.get(tenant)
        if lock is None:
            lock = self._locks[tenant] = anyio.Lock()
        return lock

    def _call(self, tenant: str, write: bool, fn: Callable[[Memory], T]) -> T:
        with self.tenants.memory(tenant, write=write) as mem:
            return fn(mem)

    async def read(self, tenant: str, fn: Callable[[Memory], T]) -> T:
        """Run ``fn`` on the tenant's memory (empty if it has none; nothing is created)."""
        check_tenant(tenant)
        return await anyio.to_thread.run_sync(self._call, tenant, False, fn, limiter=self._limiter)

    async def write(self, tenant: str, fn: Callable[[Memory], T]) -> T:
        """Run ``fn`` on the tenant's memory (created if missing), after every write of the
        same tenant that came before it in this process.

        Once started, ``fn`` runs to its end even if the caller goes away (a revision is
        committed whole or not at all; it is never abandoned half-way by a cancellation).
        """
        check_tenant(tenant)
        async with self._lock(tenant):
            return await anyio.to_thread.run_sync(
                self._call, tenant, True, fn, limiter=self._limiter
            )
