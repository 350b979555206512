"""The benchmark's engine on a given store: each case in a scratch store of its own.

By default a case's history is loaded into a memory in process (SQLite ``:memory:``).
``stategraph bench --store URL`` runs stategraph's systems on another store instead, so that the
same cases check the same verdicts through that backend's reads and writes:

- ``postgresql://...``: each case in a fresh tenant of that database (``bench-<run>-<n>``),
  whose rows are deleted when the case ends;
- ``sqlite:///DIR`` or ``DIR``: each case in a new SQLite file in that folder, removed after.
"""

from __future__ import annotations

import itertools
import os
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stategraph.memory import Memory
from stategraph.store.open import is_postgres, split_tenant
from stategraph.store.sqlite import SQLiteStore

__all__ = ["scratch_memories"]


def scratch_memories(url: str) -> Callable[..., Memory]:
    """A factory of memories, each on a new scratch store of the backend ``url`` names
    (see the module's doc); a memory's store is deleted when the memory is closed."""
    run = uuid.uuid4().hex[:8]
    counter = itertools.count(1)
    if is_postgres(url):
        bare, _ = split_tenant(url)

        def on_postgres(**options: Any) -> Memory:
            return Memory(store=_postgres_scratch(bare, f"bench-{run}-{next(counter)}"), **options)

        return on_postgres
    folder = Path(os.path.expanduser(url.removeprefix("sqlite://").removeprefix("/")) or ".")
    folder.mkdir(parents=True, exist_ok=True)

    def on_sqlite(**options: Any) -> Memory:
        handle, name = tempfile.mkstemp(prefix=f"bench-{run}-", suffix=".db", dir=folder)
        os.close(handle)
        os.unlink(name)  # a new store, not an empty file
        return Memory(store=_SQLiteScratch(name), **options)

    return on_sqlite


class _SQLiteScratch(SQLiteStore):
    """A SQLite store whose file is removed when it is closed."""

    def close(self) -> None:
        super().close()
        for suffix in ("", "-wal", "-shm"):
            Path(self.path + suffix).unlink(missing_ok=True)


def _postgres_scratch(url: str, tenant: str) -> SQLiteStore:
    """A new tenant's store whose rows are deleted when it is closed."""
    from stategraph.store.postgres import PostgresStore

    class Scratch(PostgresStore):
        def close(self) -> None:
            try:
                self.purge()
            finally:
                super().close()

    return Scratch(url, tenant)
