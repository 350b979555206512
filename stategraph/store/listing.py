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
from typing import Any, TypedDict

from stategraph.nodes import is_internal
from stategraph.store.sqlitefile import read_current

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
        StoreNotFoundError, StoreError, StoreBusyError: as
            :func:`~stategraph.store.sqlitefile.read_current` says.
    """
    return read_current(path, busy_timeout, _lines)


def _lines(conn: sqlite3.Connection) -> list[StateLine]:
    rows = conn.execute("SELECT id, truth, active, body FROM states ORDER BY id")
    # atom nodes (stategraph.nodes) are no memories: `why` shows them, `show` does not
    return [
        _line(i, truth, active, json.loads(body))
        for i, truth, active, body in rows
        if not is_internal(i)
    ]


def _line(state_id: str, truth: str, active: int, whole: dict[str, Any]) -> StateLine:
    """A row as the models show it: kind and text from the state's body, as they read them."""
    return {
        "id": str(state_id),
        "kind": str(whole["kind"]),
        "truth": str(truth),
        "active": bool(active),
        "text": str(whole["text"]),
    }
