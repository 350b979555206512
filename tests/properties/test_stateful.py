"""A rule-based state machine drives the public API beside the test-side mirror.

Hypothesis picks a sequence of API calls (add facts and derived states, add and remove
justifications, retract, supersede, assert defaults' blockers, whole multi-part changes, ask
``why``, close and reopen the SQLite store); after every step the invariants compare the
engine with the oracle's well-founded model of the mirror. Ids live in bundles: ``facts`` and
``derived`` hold the *active* states, so a retraction consumes its id and later steps only cite
what exists.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    precondition,
    rule,
)

from stategraph.errors import InvalidChangeError, NotHoldingError
from stategraph.testing.engine import StategraphEngine
from stategraph.testing.graphs import DERIVED_KINDS, FACT, ChangeSpec, Just, Mirror, Node
from stategraph.testing.harness import assert_matches_oracle
from stategraph.testing.strategies import GHOSTS, change


class MemoryMachine(RuleBasedStateMachine):
    """The real Memory (on a SQLite file) and the mirror, step by step."""

    facts = Bundle("facts")
    derived = Bundle("derived")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="stategraph-sm-"))
        self.engine = StategraphEngine(self.tmp / "memory.db")
        self.mirror = Mirror()
        self.counter = [0]

    def _new_id(self) -> str:
        self.counter[0] += 1
        return f"m{self.counter[0]}"

    def _revise(self, spec: ChangeSpec) -> None:
        self.engine.revise(spec)
        self.mirror.apply(spec)

    # ---- adding ---------------------------------------------------------------------

    @initialize(target=facts)
    def first_fact(self) -> str:
        sid = self._new_id()
        self.engine.add(Node(sid), ())
        self.mirror.add(Node(sid))
        return sid

    @rule(target=facts)
    def add_fact(self) -> str:
        return self.first_fact()

    @rule(
        target=derived,
        kind=st.sampled_from(DERIVED_KINDS),
        status=st.sampled_from(("pending", "executed")),
        alternatives=st.lists(
            st.lists(st.one_of(facts, derived), min_size=1, max_size=3, unique=True),
            min_size=1,
            max_size=3,
        ),
        unless=st.lists(st.one_of(st.sampled_from(GHOSTS), facts, derived), max_size=1),
    )
    def add_derived(
        self, kind: str, status: str, alternatives: list[list[str]], unless: list[str]
    ) -> str:
        sid = self._new_id()
        node = Node(sid, kind, status if kind == "action" else None)
        justs = list(dict.fromkeys(Just.of(sid, alt, unless) for alt in alternatives))
        self.engine.add(node, justs)
        self.mirror.add(node, justs)
        return sid

    @rule(
        head=derived,
        premises=st.lists(st.one_of(facts, derived), min_size=1, max_size=3, unique=True),
        unless=st.lists(st.one_of(st.sampled_from(GHOSTS), facts, derived), max_size=1),
    )
    def add_justification(self, head: str, premises: list[str], unless: list[str]) -> None:
        """May cite a later state: this is how positive and negative cycles close."""
        premises = [p for p in premises if p != head]
        if not premises:
            return
        self._revise(ChangeSpec(add=(Just.of(head, premises, [u for u in unless if u != head]),)))

    @precondition(lambda self: bool(self._removable()))
    @rule(data=st.data())
    def remove_justification(self, data: st.DataObject) -> None:
        self._revise(ChangeSpec(remove=(data.draw(st.sampled_from(self._removable())),)))

    def _removable(self) -> list[Just]:
        return [j for j in sorted(self.mirror.justs) if self.mirror.is_derived_active(j.head)]

    # ---- revising -------------------------------------------------------------------

    @rule(sid=consumes(facts))
    def retract_fact(self, sid: str) -> None:
        self._retract(sid)

    @rule(sid=consumes(derived))
    def retract_derived(self, sid: str) -> None:
        self._retract(sid)

    def _retract(self, sid: str) -> None:
        if sid in self.mirror.active:
            self._revise(ChangeSpec(retract=(sid,)))
            return
        # A multi-part change already retracted it: the engine must refuse, changing nothing.
        before = (self.engine.holding(), len(self.engine.memory.history()))
        with pytest.raises(InvalidChangeError):
            self.engine.memory.retract(sid)
        assert (self.engine.holding(), len(self.engine.memory.history())) == before

    @rule(target=facts, old=consumes(facts))
    def supersede_fact(self, old: str) -> str:
        new = self._new_id()
        if old in self.mirror.active:
            self._revise(ChangeSpec(supersede=((old, Node(new)),)))
        else:
            self.first_fact_as(new)
        return new

    def first_fact_as(self, sid: str) -> None:
        self.engine.add(Node(sid), ())
        self.mirror.add(Node(sid))

    @precondition(lambda self: any(g not in self.mirror.nodes for g in GHOSTS))
    @rule(target=facts, data=st.data())
    def assert_blocker(self, data: st.DataObject) -> str:
        """Assert a fact some ``unless`` may already name: defaults it blocks must fall."""
        ghost = data.draw(st.sampled_from([g for g in GHOSTS if g not in self.mirror.nodes]))
        self._revise(ChangeSpec(assert_=(Node(ghost),)))
        return ghost

    @rule(data=st.data())
    def several_at_once(self, data: st.DataObject) -> None:
        """One change of 1-3 parts (retract, assert, supersede, add/remove justification)."""
        draft = self.mirror.copy()
        spec = data.draw(st.composite(lambda draw: change(draw, draft, self.counter, True))())
        self._revise(spec)

    @rule()
    def reopen(self) -> None:
        self.engine.reopen()

    # ---- asking ---------------------------------------------------------------------

    @rule(sid=st.one_of(facts, derived))
    def why(self, sid: str) -> None:
        """``why`` proves exactly the holding states, with a well-founded proof."""
        model = self.mirror.model()
        if sid not in model.true:
            with pytest.raises(NotHoldingError):
                self.engine.memory.why(sid)
            assert self.engine.memory.why_not(sid).truth.value == model.value(sid)
            return
        proof = self.engine.memory.why(sid)
        assert proof.root == sid
        height = {s.id: s.height for s in proof.steps}
        for s in proof.steps:
            assert s.id in model.true, f"proof of {sid} uses non-holding {s.id}"
            if s.by is None:
                assert self.mirror.nodes[s.id].kind == FACT and s.id in self.mirror.active
                continue
            just = Just.of(s.id, s.by.premises, s.by.unless)
            assert just in self.mirror.justs, f"{s.id}: proof cites unknown {just!r}"
            assert all(p in model.true for p in just.premises)
            assert not any(u in model.true | model.undefined for u in just.unless)
            assert all(height[p] < s.height for p in just.premises), "proof is circular"

    # ---- invariants -----------------------------------------------------------------

    @invariant()
    def matches_the_oracle(self) -> None:
        assert_matches_oracle(self.engine, self.mirror, "after this step")

    @invariant()
    def knows_every_state(self) -> None:
        assert {s.id for s in self.engine.memory.states()} == set(self.mirror.nodes)

    @invariant()
    def tables_match_the_log(self) -> None:
        # The sums a commit keeps are computed from the rows it wrote, not read back: a deep
        # check reads every row, so a sum that drifted from the tables fails here.
        self.engine.memory.verify_log(deep=True)

    def teardown(self) -> None:
        self.engine.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


# settings() inherits the profile conftest.py loaded (ci or deep); steps bounded per run.
MemoryMachine.TestCase.settings = settings(stateful_step_count=30)
TestMemoryMachine = MemoryMachine.TestCase
