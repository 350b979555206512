"""Every state of a SQLite store as a line of ``stategraph show``, read without the models.

Listing a store is the command people run most, and the one they run to see what is there.
Opening a :class:`~stategraph.store.SQLiteStore` brings pydantic and the models with it, which
costs more than the listing on a small store; this reads the ``states`` table directly: one
query, each row's text taken from the JSON the store wrote. It only reads, and only a store of
this :data:`~stategraph.store.sqlitefile.SCHEMA_VERSION`: anything else (an older store to
migrate, a newer one, an empty file, a damaged one) is left to ``SQLiteStore``, which says what
is wrong, so the two paths never disagree on an error. ``tests/cli/test_show_listing.py`` holds
the lines to those the models give.
"""

from __future__ import annotations

import json
import sqlite3
from typing import TypedDict

from stategraph.store.sqlitefile import IDENTIFYING, SCHEMA_VERSION, connect, identify

__all__ = ["StateLine", "state_lines"]


class StateLine(TypedDict):
    """One state as ``show`` lists it (``--json`` prints these objects)."""

    id: str
    kind: str
    truth: str
    active: bool
    text: str


def state_lines(path: str, busy_timeout: float) -> list[StateLine] | None:
    """Every state, sorted by id, with its truth value and whether it is active; None when the
    store is not one this reader takes (open it as a ``SQLiteStore`` then).

    Raises:
        StoreNotFoundError: no file at ``path``.
        StoreError: ``path`` is a folder, SQLite cannot open it, or it is not a stategraph
            store (the errors and words opening a ``SQLiteStore`` gives).
        StoreBusyError: a writer held its lock past ``busy_timeout``.
    """
    conn = connect(path, busy_timeout, create=False)
    try:
        if identify(conn, path, IDENTIFYING) != SCHEMA_VERSION:
            return None
        rows = conn.execute("SELECT id, kind, truth, active, body FROM states ORDER BY id")
        return [
            {
                "id": str(i),
                "kind": str(kind),
                "truth": str(truth),
                "active": bool(active),
                "text": str(json.loads(body)["text"]),
            }
            for i, kind, truth, active, body in rows
        ]
    except (sqlite3.DatabaseError, ValueError, KeyError, TypeError):
        return None  # not as this stategraph writes it: SQLiteStore says what is wrong
    finally:
        conn.close()
