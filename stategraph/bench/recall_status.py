"""Recall's status guarantee, checked over benchmark cases (``stategraph bench --recall-status``).

For each case, its history is loaded as the ``stategraph`` system loads it (same engine options
per track), its change is applied, and then recall is asked once per memory with that memory's
text as the query. Every memory returned is checked against what the truth maintenance says of
it, read through the memory's own API (never recall's):

- it **does not hold** when it is retracted or superseded, or its value is false, and it is not
  waiting for review: recall must never return it (it was not asked to include invalidated
  memories), let alone as ``holds``;
- it is **in doubt** when it waits for review (:meth:`Memory.pending_review
  <stategraph.memory.Memory.pending_review>`) or its value is undefined: recall must return it
  with ``ask_first``, never as ``holds``.

The recall function is a parameter (:data:`RecallFn`), so that a deliberately broken one shows
that the check fails when the guarantee does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stategraph.bench.cases import Case
from stategraph.bench.engine import load_memory, memory_options
from stategraph.errors import StategraphError
from stategraph.memory import Memory
from stategraph.model import Change, Truth
from stategraph.recall import MAX_K, Recalled

__all__ = [
    "FAILURE_COUNTS",
    "RecallFn",
    "StatusTally",
    "check_case",
    "default_recall",
    "group_names",
    "run_recall_status",
]

RecallFn = Callable[[Memory, str, int], Sequence[Recalled]]
"""``recall(memory, query, k)``: the recall under test."""

FAILURE_COUNTS = (
    "not_holding_as_holding",
    "not_holding_returned",
    "in_doubt_without_ask_first",
    "in_doubt_as_holding",
)
"""The counts that must be 0 (each counts memories, once per case)."""

MAX_EXAMPLES = 20
"""How many failures a tally keeps as examples."""


def default_recall(mem: Memory, query: str, k: int) -> Sequence[Recalled]:
    """Recall as a user calls it: :meth:`Memory.recall <stategraph.memory.Memory.recall>`
    with its defaults (memories in doubt included, invalidated ones left out)."""
    return mem.recall(query, k)


@dataclass
class StatusTally:
    """What the check saw over some cases.

    Attributes:
        cases: cases checked; ``errors``: cases that failed to run (counted apart).
        queries: recalls asked; ``returned``: memories returned in all.
        memories: memories after the changes; ``not_holding`` / ``in_doubt``: of which do not
            hold / are in doubt.
        in_doubt_returned: memories in doubt that some recall returned (each was checked).
        not_holding_as_holding, not_holding_returned, in_doubt_without_ask_first,
        in_doubt_as_holding: the failures (:data:`FAILURE_COUNTS`), which must all be 0.
        examples: the first failures, as ``{case, id, query, status, what}`` (``query``: the
            memory whose text was asked).
    """

    cases: int = 0
    errors: int = 0
    queries: int = 0
    returned: int = 0
    memories: int = 0
    not_holding: int = 0
    in_doubt: int = 0
    in_doubt_returned: int = 0
    not_holding_as_holding: int = 0
    not_holding_returned: int = 0
    in_doubt_without_ask_first: int = 0
    in_doubt_as_holding: int = 0
    examples: list[dict[str, str]] = field(default_factory=list)
    error_cases: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every failure count is 0 and every case ran."""
        return not self.errors and not any(getattr(self, c) for c in FAILURE_COUNTS)

    def add(self, other: StatusTally) -> None:
        """Pool another tally into this one."""
        for name in (
            "cases",
            "errors",
            "queries",
            "returned",
            "memories",
            "not_holding",
            "in_doubt",
            "in_doubt_returned",
            *FAILURE_COUNTS,
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.examples = (self.examples + other.examples)[:MAX_EXAMPLES]
        self.error_cases += other.error_cases

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        out: dict[str, Any] = {
            name: getattr(self, name)
            for name in (
                "cases",
                "errors",
                "queries",
                "returned",
                "memories",
                "not_holding",
                "in_doubt",
                "in_doubt_returned",
                *FAILURE_COUNTS,
            )
        }
        out["ok"] = self.ok
        if self.examples:
            out["examples"] = self.examples
        if self.error_cases:
            out["error_cases"] = self.error_cases
        return out


def _graded(mem: Memory) -> tuple[set[str], set[str]]:
    """(memories that do not hold, memories in doubt), from the memory's own API."""
    doubt = {p.id for p in mem.pending_review()}
    doubt |= {i for i in mem.undefined() if mem.is_active(i)}
    gone = {
        st.id
        for st in mem.states()
        if st.id not in doubt and (not mem.is_active(st.id) or mem.truth(st.id) is Truth.false)
    }
    return gone, doubt


def check_case(
    case: Case,
    recall: RecallFn = default_recall,
    factory: Callable[..., Memory] = Memory,
) -> StatusTally:
    """Run one case's change and check recall's statuses with each memory's text as the query.

    Args:
        case: the case.
        recall: the recall under test.
        factory: builds the memory the case runs on (``Memory``: in memory).
    """
    out = StatusTally(cases=1)
    mem = load_memory(case, factory(**memory_options(case)))
    try:
        mem.revise(Change.model_validate(case.change.to_engine()))
        states = mem.states()
        gone, doubt = _graded(mem)
        out.memories, out.not_holding, out.in_doubt = len(states), len(gone), len(doubt)
        k = min(MAX_K, max(10, len(states)))
        failed: dict[str, set[str]] = {name: set() for name in FAILURE_COUNTS}
        seen_doubt: set[str] = set()
        for st in states:
            if not st.text.strip():
                continue
            found = recall(mem, st.text, k)
            out.queries += 1
            out.returned += len(found)
            for r in found:
                what: list[str] = []
                if r.id in gone:
                    what.append("not_holding_returned")
                    if r.status == "holds":
                        what.append("not_holding_as_holding")
                if r.id in doubt:
                    seen_doubt.add(r.id)
                    if not r.ask_first:
                        what.append("in_doubt_without_ask_first")
                    if r.status == "holds":
                        what.append("in_doubt_as_holding")
                for name in what:
                    if r.id not in failed[name] and len(out.examples) < MAX_EXAMPLES:
                        example = {"case": case.id, "id": r.id, "query": st.id}
                        out.examples.append(example | {"status": r.status, "what": name})
                    failed[name].add(r.id)
        out.in_doubt_returned = len(seen_doubt)
        for name, ids in failed.items():
            setattr(out, name, len(ids))
    finally:
        mem.close()
    return out


def group_names(case: Case) -> list[str]:
    """The groups a case is reported in: its track, and ``TRACK (blind)`` for a blind case."""
    names: list[str] = [case.track]
    if "blind" in case.tags:
        names.append(f"{case.track} (blind)")
    return names


Progress = Callable[[int, int], None]


def run_recall_status(
    cases: Iterable[Case],
    recall: RecallFn = default_recall,
    factory: Callable[..., Memory] = Memory,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Check every case (see :func:`check_case`); a case that fails to run is an error of its
    group, never skipped silently.

    Returns:
        ``{"groups": {name: tally}, "all": tally, "ok": bool, "seconds", "cpu_seconds"}`` with
        tallies as :meth:`StatusTally.to_dict`; groups per :func:`group_names`.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    cases = list(cases)
    groups: dict[str, StatusTally] = {}
    total = StatusTally()
    for i, case in enumerate(cases, 1):
        try:
            tally = check_case(case, recall, factory)
        except StategraphError as exc:
            tally = StatusTally(cases=1, errors=1, error_cases=[f"{case.id}: {exc}"])
        for name in group_names(case):
            groups.setdefault(name, StatusTally()).add(tally)
        total.add(tally)
        if progress is not None:
            progress(i, len(cases))
    return {
        "groups": {name: groups[name].to_dict() for name in sorted(groups)},
        "all": total.to_dict(),
        "ok": total.ok,
        "seconds": round(time.perf_counter() - wall, 3),
        "cpu_seconds": round(time.process_time() - cpu, 3),
    }
