"""Deliberately wrong memories: each ready property must fail on the one it is meant to catch.

They are real :class:`~stategraph.Memory` objects with one behaviour bent, as a user's
misconfigured or patched memory would be, so the properties meet them through the same public
surface they read on a sound one.

- :class:`SupportedModelMemory` answers "what holds" with the supported model (a state holds
  if some justification's premises hold, from above): dead cycles keep themselves alive and
  nothing is ever undefined, the mistake ``tests/properties/wrong_engines.py`` stands for.
- :class:`SimilarityMemory` hides, on a retraction, every memory that reads like the retracted
  one (the same first word): similarity invalidation, which takes hard negatives with it.
- :class:`NumberedMemory` numbers its reports with a counter kept across memories, a hidden
  global the same inputs cannot reproduce.
- :class:`StickyMemory` edits only the changed record: what held once keeps holding until it
  is itself retracted (what most memory systems do, per the design brief).
"""

from __future__ import annotations

import itertools
from typing import Any

from properties.wrong_engines import SupportedModelEngine  # tests/ is on the path (conftest)

from stategraph import Change, Memory, Report, Truth
from stategraph.testing import Just, Mirror, Node


class _Plain(Memory):
    """In memory, no candidate proposal: the scenarios' contents as they are."""

    def __init__(self) -> None:
        super().__init__(candidates=None)


class SupportedModelMemory(_Plain):
    """Wrong: holding and undefined by the supported model of the recorded justifications."""

    def holding(self) -> frozenset[str]:
        engine = SupportedModelEngine()
        engine.mirror = self._mirror()
        return engine.holding()

    def undefined(self) -> frozenset[str]:
        return frozenset()

    def _mirror(self) -> Mirror:
        mirror = Mirror()
        for s in self.states():
            mirror.nodes[s.id] = Node(s.id, "fact" if self.policy.is_exogenous(s) else s.kind)
            if self.is_active(s.id):
                mirror.active.add(s.id)
        mirror.justs = {Just.of(j.head, j.premises, j.unless) for j in self.justifications()}
        return mirror


class SimilarityMemory(_Plain):
    """Wrong: a retraction also hides the memories whose text starts with the same word."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden: set[str] = set()

    def revise(self, change: Change | Any) -> Report:
        report = super().revise(change)
        gone = [c.id for c in report.changed if c.action in ("retracted", "superseded")]
        words = {self.state(sid).text.split()[0] for sid in gone}
        self.hidden |= {s.id for s in self.states() if s.text.split()[0] in words}
        return report

    def truth(self, state_id: str) -> Truth:
        return Truth.false if state_id in self.hidden else super().truth(state_id)

    def holding(self) -> frozenset[str]:
        return super().holding() - self.hidden


_SERIAL = itertools.count(1)


class NumberedMemory(_Plain):
    """Wrong: every report carries a serial number drawn from a process-wide counter."""

    def revise(self, change: Change | Any) -> Report:
        report = super().revise(change)
        return report.model_copy(update={"method": f"{report.method}#{next(_SERIAL)}"})


class StickyMemory(_Plain):
    """Wrong: a derived state that held once holds until it is itself retracted."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def revise(self, change: Change | Any) -> Report:
        report = super().revise(change)
        self.seen |= super().holding()
        return report

    def holding(self) -> frozenset[str]:
        return super().holding() | {s for s in self.seen if self.is_active(s)}
