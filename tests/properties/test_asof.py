"""Reading the past is exact: ``Memory.as_of(N)`` answers as the memory did right after N.

A generated history (states, extra edges, changes, negative rings and executed actions that
lose their support, then people confirming and rejecting what waits for review) is played on
a store; after every revision, the memory's *present* reads are written down (truth values,
holding, states, justifications, ``why``, ``why_not``, the review queue): that is the memory
a replay of the log up to that revision gives, read by the code of the present. Once the
whole history is written, ``as_of`` every one of those revisions must give the same answers,
read from the past the store keeps (no replay). The two read paths share no code that reads
the past.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from backends import make_place
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stategraph import Memory
from stategraph.errors import StategraphError
from stategraph.testing.engine import StategraphEngine
from stategraph.testing.graphs import Scenario
from stategraph.testing.harness import replay

from .test_review import with_flags


def _attempt(call: Any, sid: str) -> str:
    try:
        return call(sid).model_dump_json()
    except StategraphError as exc:  # why of a state that does not hold, say
        return type(exc).__name__


def reads(mem: Any) -> dict[str, Any]:
    """Everything ``as_of`` must reproduce, read from ``mem`` (a memory or a view of it)."""
    states = mem.states()
    ids = [s.id for s in states]
    return {
        "states": [s.model_dump_json() for s in states],
        "values": {i: (mem.truth(i).value, mem.is_active(i)) for i in ids},
        "holding": sorted(mem.holding()),
        "undefined": sorted(mem.undefined()),
        "justifications": [j.model_dump_json() for j in mem.justifications()],
        "why": {i: _attempt(mem.why, i) for i in ids},
        "why_not": {i: _attempt(mem.why_not, i) for i in ids},
        "pending": [p.model_dump_json() for p in mem.pending_review()],
    }


def _settle(mem: Memory, data: st.DataObject) -> None:
    """A few reviews (confirm or reject), each a revision of its own."""
    for turn in range(2):
        queue = mem.pending_review()
        if not queue:
            return
        chosen = data.draw(st.sampled_from([p.id for p in queue]), label=f"state {turn}")
        if data.draw(st.booleans(), label=f"confirm {chosen}"):
            mem.confirm(chosen, by="tester", note="checked")
        else:
            mem.reject(chosen, by="tester", note="wrong")


def check_as_of(mem: Memory, scenario: Scenario, data: st.DataObject) -> None:
    engine = StategraphEngine(memory=lambda: mem)
    seen: dict[int, dict[str, Any]] = {}

    def note(*_: Any) -> None:
        seen[mem.head()[0]] = reads(mem)

    replay(engine, scenario, note)
    _settle(mem, data)
    note()
    for seq, then in sorted(seen.items()):
        if seq == 0:
            continue
        past = reads(mem.as_of(seq))
        for key, value in then.items():
            assert past[key] == value, f"as_of({seq}) differs from revision {seq}'s {key}"


@settings(max_examples=60, deadline=None)
@given(with_flags(), st.data())
def test_as_of_equals_the_memory_at_each_revision(scenario: Scenario, data: st.DataObject) -> None:
    with Memory(candidates=None) as mem:
        check_as_of(mem, scenario, data)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(with_flags(), st.data())
def test_as_of_equals_the_memory_at_each_revision_on_postgresql(
    tmp_path: Path, scenario: Scenario, data: st.DataObject
) -> None:
    place = make_place("postgres", tmp_path, f"asof-{uuid.uuid4().hex[:6]}")
    try:
        with place.memory(candidates=None) as mem:
            check_as_of(mem, scenario, data)
    finally:
        place.drop()
