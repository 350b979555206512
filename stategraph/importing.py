"""Importing memories the way an agent writes them, many at once, all or nothing.

:meth:`Memory.bulk_load <stategraph.memory.Memory.bulk_load>` loads states and justifications
exactly as given (an export of another store, a generated graph). An agent's history is
different: text, mostly without a stated basis. :func:`import_memories` writes each memory as
:meth:`Memory.add <stategraph.memory.Memory.add>` would (grounded, linked by the rule packs,
given candidates or an assumption, checked by the judge if one is set), so the result is the
store one-by-one writing would give; and all inside one transaction, so a bad memory leaves
the store as it was. Each memory is one logged revision.

A long import grounds ahead: past its first ``ground_ahead_after`` memories, the texts of the
next chunk are grounded in a worker process (:mod:`stategraph.grounding.ahead`) while this
one links the current chunk, which takes grounding off the importing process's time on a
machine with a second core. The store is the same either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from stategraph.errors import StategraphError
from stategraph.memory import Memory
from stategraph.model import State

if TYPE_CHECKING:
    from stategraph.grounding.ahead import GroundingAhead

__all__ = ["BASIS_FIELDS", "GROUND_AHEAD_AFTER", "MemoryImportError", "import_memories"]

BASIS_FIELDS = ("because", "unless", "context")
"""Fields of an imported memory that are its basis, not part of the state."""

GROUND_AHEAD_AFTER = 2_000
"""Memories an import writes before it starts a grounding worker (a worker takes a second or
two to start: a shorter import is over before it would help)."""


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


_CHUNK = 256
"""Memories read ahead, and grounded ahead, at a time."""

Row = tuple[str, Mapping[str, Any]]


def import_memories(
    mem: Memory,
    memories: Iterable[tuple[str, Mapping[str, Any]]],
    progress: Callable[[int], None] | None = None,
    ground_ahead_after: int | None = GROUND_AHEAD_AFTER,
) -> dict[str, int]:
    """Write memories one after another in one transaction.

    Args:
        mem: the memory to write to.
        memories: ``(where, memory)`` pairs: a memory is a state's fields (``id``, ``kind``,
            ``text``, ``status``, ...) with, optionally, ``because``, ``unless`` and
            ``context`` as for :meth:`Memory.add <stategraph.memory.Memory.add>`; ``where``
            names it in an error (``file:line``).
        progress: called with the number written so far, after each memory.
        ground_ahead_after: once this many memories are written, ground the texts of those
            still to come in a worker process (see the module); None never does. Only with
            a built-in grounder and two CPUs to run on (a worker takes a second or two to
            start, so short imports never wait for one).

    Returns:
        ``imported`` (memories written); among them, now, ``holding``, ``not_holding`` (a
            derived memory whose support went while the import went on, or never was) and
            ``undefined``; and ``review``, how many memories of the store wait for a person
            (what :meth:`Memory.pending_review <stategraph.memory.Memory.pending_review>`
            lists: the undefined, and memories flagged but still standing).

    Raises:
        MemoryImportError: naming the memory that failed; nothing was written.
    """
    written: list[str] = []
    with mem.atomic(), _Ahead(mem, ground_ahead_after) as ahead:
        for where, row, state in ahead.rows(memories):
            try:
                mem.add(
                    state,
                    because=row.get("because"),
                    unless=row.get("unless", ()),
                    context=row.get("context", ()),
                )
            except StategraphError as exc:
                raise MemoryImportError(where, exc) from exc
            written.append(state.id if isinstance(state, State) else str(state.get("id", "")))
            if progress is not None:
                progress(len(written))
    truths = mem.store.truths(written)
    holding = sum(v.value == "true" for v in truths.values())
    undefined = sum(v.value == "undefined" for v in truths.values())
    return {
        "imported": len(written),
        "holding": holding,
        "not_holding": len(written) - holding - undefined,
        "undefined": undefined,
        "review": len(mem.pending_review()),
    }


class _Ahead:
    """Reads the rows a chunk at a time and, once a worker is running, has the next chunk's
    texts grounded while the current one is written."""

    def __init__(self, mem: Memory, after: int | None) -> None:
        from stategraph.grounding.ahead import can_ground_ahead

        grounder = mem.grounder
        self.mem = mem
        self.after = after if grounder is not None and can_ground_ahead(grounder) else None
        self.grounder = grounder
        self.worker: GroundingAhead | None = None

    def __enter__(self) -> _Ahead:
        return self

    def __exit__(self, *exc: object) -> None:
        # the memory's preparer takes the atoms (a friend's access: only imports feed it)
        self.mem._preparer.grounded_ahead = {}
        if self.worker is not None:
            self.worker.close()

    def rows(self, memories: Iterable[Row]) -> Iterator[tuple[str, Mapping[str, Any], Any]]:
        """Each row, its basis fields and its state (a validated :class:`State` when it is
        valid; otherwise the fields, for ``Memory.add`` to reject in order). Rows are read a
        chunk ahead; an error reading one is raised when its turn comes, as if read then."""
        source = iter(memories)
        chunk, failed = _read(source)
        ticket = None
        done = 0
        while True:
            following, failed_next = _read(source) if failed is None else ([], None)
            if self.worker is None and self.after is not None and done >= self.after:
                from stategraph.grounding.ahead import GroundingAhead

                try:
                    self.worker = GroundingAhead(str(self.grounder))
                except OSError:  # no process to be had: ground everything here
                    self.after = None
            if self.worker is not None:
                self.mem._preparer.grounded_ahead = self.worker.take(_texts(chunk), ticket)
                ticket = self.worker.submit(_texts(following))
            yield from chunk
            if failed is not None:
                raise failed
            if not following and failed_next is None:
                return
            done += len(chunk)
            chunk, failed = following, failed_next


def _read(
    source: Iterator[Row],
) -> tuple[list[tuple[str, Mapping[str, Any], Any]], Exception | None]:
    """The next chunk of rows, and the error that stopped reading it, if one did."""
    out: list[tuple[str, Mapping[str, Any], Any]] = []
    try:
        for where, row in islice(source, _CHUNK):
            fields = {k: v for k, v in row.items() if k not in BASIS_FIELDS}
            try:
                state: Any = State.model_validate(fields)
            except ValidationError:
                state = fields  # Memory.add reports it, when its turn comes
            out.append((where, row, state))
    except Exception as exc:
        return out, exc
    return out, None


def _texts(chunk: list[tuple[str, Mapping[str, Any], Any]]) -> list[tuple[str, int | None]]:
    """What grounding the valid states of a chunk that will be grounded needs."""
    return [
        (st.text, st.created_at.year if st.created_at is not None else None)
        for _where, _row, st in chunk
        if isinstance(st, State) and st.text and not st.atoms
    ]
