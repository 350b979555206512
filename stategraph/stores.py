"""Choosing a store by URL: a SQLite file (the default) or a tenant's store in PostgreSQL.

The code lives in :mod:`stategraph.store.open`; this module keeps the documented import path,
so ``from stategraph.stores import open_store`` is the same function.
"""

from stategraph.store.open import POSTGRES_SCHEMES, is_postgres, open_store, split_tenant

__all__ = ["POSTGRES_SCHEMES", "is_postgres", "open_store", "split_tenant"]
