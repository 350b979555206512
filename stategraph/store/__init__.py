"""Storage: where states, justifications and the hash-chained revision log live.

Owns the SQLite store (:mod:`.sqlite`), the PostgreSQL store (:mod:`.postgres`, with
:mod:`.pgschema` and :mod:`.pgdialect`), opening a store by URL (:mod:`.open`), the SQLite file's
identity (:mod:`.sqlitefile`), the revision log's encoding (:mod:`.revlog`), the tables' digest
(:mod:`.tables`), the review queue's index (:mod:`.review_queue`) and bulk loading
(:mod:`.bulk`).

May import: the root's ``errors``, ``model``, ``resources``, ``urls``, :mod:`stategraph.engine`,
:mod:`stategraph.grounding`, :mod:`stategraph.text`, :mod:`stategraph.judge`.

``stategraph.store`` was once a single module; its public names are re-exported here, so
``from stategraph.store import SQLiteStore`` keeps working.
"""

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
