"""Importing memories the way an agent writes them, many at once, all or nothing.

:meth:`Memory.bulk_load <stategraph.memory.Memory.bulk_load>` loads states and justifications
exactly as given (an export of another store, a generated graph). An agent's history is
different: text, mostly without a stated basis. :func:`import_memories` writes each memory as
:meth:`Memory.add <stategraph.memory.Memory.add>` would (grounded, linked by the rule packs,
given candidates or an assumption, checked by the judge if one is set), so the result is the
store one-by-one writing would give; and all inside one transaction, so a bad memory leaves
the store as it was. Each memory is one logged revision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from stategraph.errors import StategraphError
from stategraph.memory import Memory

__all__ = ["BASIS_FIELDS", "MemoryImportError", "import_memories"]

BASIS_FIELDS = ("because", "unless", "context")
"""Fields of an imported memory that are its basis, not part of the state."""


class MemoryImportError(StategraphError, ValueError):
    """One memory of an import could not be written; nothing of the import was.

    Attributes:
        where: where the memory came from (``file:line``, or its position).
        cause: the error it raised.
    """

    def __init__(self, where: str, cause: StategraphError) -> None:
        self.where = where
        self.cause = cause
        super().__init__(f"{where}: {cause} (nothing was imported)")


def import_memories(
    mem: Memory,
    memories: Iterable[tuple[str, Mapping[str, Any]]],
    progress: Callable[[int], None] | None = None,
) -> dict[str, int]:
    """Write memories one after another in one transaction.

    Args:
        mem: the memory to write to.
        memories: ``(where, memory)`` pairs: a memory is a state's fields (``id``, ``kind``,
            ``text``, ``status``, ...) with, optionally, ``because``, ``unless`` and
            ``context`` as for :meth:`Memory.add <stategraph.memory.Memory.add>`; ``where``
            names it in an error (``file:line``).
        progress: called with the number written so far, after each memory.

    Returns:
        ``imported`` (memories written), ``holding`` and ``undefined`` (among them, now).

    Raises:
        MemoryImportError: naming the memory that failed; nothing was written.
    """
    written: list[str] = []
    with mem.atomic():
        for where, row in memories:
            state = {k: v for k, v in row.items() if k not in BASIS_FIELDS}
            try:
                mem.add(
                    state,
                    because=row.get("because"),
                    unless=row.get("unless", ()),
                    context=row.get("context", ()),
                )
            except StategraphError as exc:
                raise MemoryImportError(where, exc) from exc
            written.append(str(state.get("id", "")))
            if progress is not None:
                progress(len(written))
    truths = mem.store.truths(written)
    return {
        "imported": len(written),
        "holding": sum(v.value == "true" for v in truths.values()),
        "undefined": sum(v.value == "undefined" for v in truths.values()),
    }
