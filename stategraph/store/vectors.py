"""The embedding cache of recall's rerank: one vector per (model, memory id, text hash).

A memory's text never changes once written (a change supersedes it), so a memory is embedded
once per model; the text's hash is in the key all the same, so a vector can never be served
for another text under a reused id. Vectors are float32, packed little-endian.

SQLite keeps them in ``embedding_cache``, created the first time a vector is written (a store
that never reranks has no such table). PostgreSQL has the table in its schema
(:mod:`stategraph.store.pgschema`), with the tenant leading the key.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["SQLITE_SCHEMA", "TABLE", "cached", "remember", "text_hash"]

TABLE = "embedding_cache"

SQLITE_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (model TEXT NOT NULL, id TEXT NOT NULL, "
    "hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, id, hash)) WITHOUT ROWID"
)


def text_hash(text: str) -> str:
    """The key's hash of a memory's text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _pack(vector: Sequence[float]) -> bytes:
    packed = array("f", vector)
    if sys.byteorder != "little":  # pragma: no cover - stored little-endian everywhere
        packed.byteswap()
    return packed.tobytes()


def _unpack(blob: bytes) -> list[float]:
    packed = array("f")
    packed.frombytes(bytes(blob))
    if sys.byteorder != "little":  # pragma: no cover
        packed.byteswap()
    return packed.tolist()


def _sqlite(store: Any) -> sqlite3.Connection | None:
    conn = store.conn
    return conn if isinstance(conn, sqlite3.Connection) else None


Key = tuple[str, str]
"""(memory id, text hash)."""


def cached(store: Any, model: str, keys: Sequence[Key]) -> dict[Key, list[float]]:
    """The vectors cached for these (memory id, text hash) keys under ``model``."""
    if not keys:
        return {}
    ids = sorted({i for i, _ in keys})
    wanted = set(keys)
    conn = _sqlite(store)
    if conn is not None:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name=?", (TABLE,)).fetchone() is None:
            return {}
        marks = ",".join("?" for _ in ids)
        rows = conn.execute(
            f"SELECT id, hash, vector FROM {TABLE} WHERE model = ? AND id IN ({marks})",
            (model, *ids),
        ).fetchall()
    else:
        tc = store.conn
        with tc.errors():
            rows = tc.pg.execute(
                f"SELECT id, hash, vector FROM {TABLE} "
                "WHERE tenant = %s AND model = %s AND id = ANY(%s)",
                (tc.tenant, model, ids),
            ).fetchall()
    return {(i, h): _unpack(v) for i, h, v in rows if (i, h) in wanted}


def remember(store: Any, model: str, rows: Iterable[tuple[str, str, Sequence[float]]]) -> None:
    """Cache vectors, as (memory id, text hash, vector), in one write transaction."""
    packed = [(model, i, h, _pack(v)) for i, h, v in rows]
    if not packed:
        return
    with store.transaction():
        conn = _sqlite(store)
        if conn is not None:
            conn.execute(SQLITE_SCHEMA)
            conn.executemany(f"INSERT OR IGNORE INTO {TABLE} VALUES (?, ?, ?, ?)", packed)
            return
        tc = store.conn
        with tc.errors(), tc.pg.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {TABLE} (tenant, model, id, hash, vector) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                [(tc.tenant, *row) for row in packed],
            )
