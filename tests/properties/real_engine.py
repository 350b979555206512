"""The adapter from the test-side vocabulary (:mod:`.graphs`) to the real stategraph API.

Kept thin on purpose: it translates, it never decides. Everything the properties check is
computed on the test side (oracle, mirror, hop distances), so a bug here shows up as a
disagreement instead of being hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from stategraph import Change, Justification, Memory, Report, State, Supersession

from .graphs import ChangeSpec, Just, Node


def to_state(node: Node) -> State:
    """The engine's State for a test node (the text just names it)."""
    return State(id=node.id, kind=node.kind, text=f"{node.kind} {node.id}", status=node.status)


def to_justification(j: Just) -> Justification:
    """The engine's Justification for a test justification (origin: declared)."""
    return Justification(head=j.head, premises=j.premises, unless=j.unless)


def to_change(spec: ChangeSpec) -> Change:
    """The engine's Change for a test change."""
    return Change(
        retract=spec.retract,
        assert_=tuple(to_state(n) for n in spec.assert_),
        supersede=tuple(Supersession(id=old, with_=to_state(new)) for old, new in spec.supersede),
        add_justifications=tuple(to_justification(j) for j in spec.add),
        remove_justifications=tuple(to_justification(j) for j in spec.remove),
    )


class StategraphEngine:
    """The real engine behind the :class:`~.harness.Engine` protocol.

    Args:
        path: a SQLite file (the memory can then be closed and reopened); None keeps it in
            memory.
    """

    name = "stategraph"

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = path
        # Candidate proposal is held to its own properties (test_candidates.py); here a state
        # written without a basis holds as an assumption, which the mirror models.
        self.memory = Memory(path, candidates=None)
        self.reports: list[Report] = []

    def add(self, node: Node, justs: Sequence[Just]) -> Report:
        """``Memory.add`` with each justification as one ``{"all", "unless"}`` alternative."""
        because = [{"all": list(j.premises), "unless": list(j.unless)} for j in justs]
        report = self.memory.add(to_state(node), because=because or None)
        self.reports.append(report)
        return report

    def revise(self, change: ChangeSpec) -> Report:
        """``Memory.revise`` of the translated change."""
        report = self.memory.revise(to_change(change))
        self.reports.append(report)
        return report

    def holding(self) -> frozenset[str]:
        return self.memory.holding()

    def undefined(self) -> frozenset[str]:
        return self.memory.undefined()

    def reopen(self) -> None:
        """Close the SQLite store and open it again (a new process would see the same)."""
        assert self.path is not None, "reopen needs a file-backed memory"
        self.memory.close()
        self.memory = Memory(self.path, candidates=None)

    def close(self) -> None:
        self.memory.close()


def rebuild(memory: Memory, *, bulk: bool = False, path: str | None = None) -> Memory:
    """A fresh Memory (in memory, or at ``path``) holding ``memory``'s final contents,
    computed from scratch.

    Every state (active or not) and every justification go in at once, then the inactive
    states are retracted: the result must agree with the incremental history that led to
    ``memory``. ``bulk=True`` loads through ``bulk_load`` (one whole-program solve) instead
    of one ``revise`` (one cone covering everything), a second independent path.
    """
    states = memory.states()
    justifications = memory.justifications()
    fresh = Memory(path, candidates=None, assume=False)  # the contents as they are
    if bulk:
        fresh.bulk_load(states, justifications)
    else:
        fresh.revise(Change(assert_=tuple(states), add_justifications=tuple(justifications)))
    inactive = tuple(s.id for s in states if not memory.is_active(s.id))
    if inactive:
        fresh.revise(Change(retract=inactive))
    return fresh
