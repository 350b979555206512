"""Audit: the revision log exported for someone who has no access to the store, and checked
by them from that file alone.

Owns export/verify (:mod:`.export`, which replays entries through a fresh
:class:`~stategraph.memory.Memory`) and the Markdown/HTML rendering of entries (:mod:`.render`).

May import: :mod:`stategraph.memory` and every layer below it.
"""

from stategraph.audit.export import (
    FIELDS,
    LINE,
    AuditResult,
    LogRow,
    entry_row,
    export,
    read_export,
    store_rows,
    verify_export,
)

__all__ = [
    "FIELDS",
    "LINE",
    "AuditResult",
    "LogRow",
    "entry_row",
    "export",
    "read_export",
    "store_rows",
    "verify_export",
]
