"""Storage: where states, justifications and the hash-chained revision log live.

Owns the SQLite store (:mod:`.sqlite`), the PostgreSQL store (:mod:`.postgres`, with
:mod:`.pgschema` and :mod:`.pgdialect`), opening a store by URL (:mod:`.open`), the SQLite file's
identity (:mod:`.sqlitefile`), what ``show`` and ``why`` print read without the models
(:mod:`.listing`, :mod:`.ancestry`, rows decoded by :mod:`.rowcodec`), the revision log's
encoding (:mod:`.revlog`), the tables' digest (:mod:`.tables`), the review queue's index
(:mod:`.review_queue`) and bulk loading (:mod:`.bulk`).

May import: the root's ``errors``, ``values``, ``model``, ``resources``, ``urls``,
:mod:`stategraph.engine`, :mod:`stategraph.grounding`, :mod:`stategraph.text`,
:mod:`stategraph.judge`.

``stategraph.store`` was once a single module; its public names are re-exported here, so
``from stategraph.store import SQLiteStore`` keeps working (imported when first used).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stategraph.store import review_queue, tables
    from stategraph.store.sqlite import (
        SCHEMA_VERSION,
        STORES,
        LogEntry,
        Since,
        SQLiteStore,
        Store,
        canonical_json,
        ids_json,
        justification_row,
        state_row,
    )

__all__ = [
    "SCHEMA_VERSION",
    "STORES",
    "LogEntry",
    "SQLiteStore",
    "Since",
    "Store",
    "canonical_json",
    "ids_json",
    "justification_row",
    "review_queue",
    "state_row",
    "tables",
]

_SUBMODULES = frozenset({"review_queue", "tables"})


def __getattr__(name: str) -> Any:
    """The names above, imported when first used: a module of this package that needs no
    model (:mod:`.sqlitefile`, :mod:`.listing`) is imported without the store and pydantic."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(importlib.import_module(f"{__name__}.sqlite"), name)
    globals()[name] = value
    return value
