"""Confirm and reject are changes like any other, held to the oracle.

After a generated scenario, states wait for review (undefined by negative cycles, executed
actions that lost their support, ...). Settling them one after another, confirming some and
rejecting others, must leave exactly the well-founded model of the test-side mirror with a
premise-less justification added for each confirmed state, and each rejected state retracted
(DESIGN.md: "confirming adds a justification with origin review (who, when, note; no
premises); rejecting retracts the state. Both are revisions, logged and cascading like any
other."). The mirror and the oracle know nothing of reviews: that is the point.
"""

from __future__ import annotations

from hypothesis import event, given
from hypothesis import strategies as st

from stategraph import Truth
from stategraph.testing.engine import StategraphEngine
from stategraph.testing.graphs import DERIVED_KINDS, ChangeSpec, Just, Node, Scenario
from stategraph.testing.harness import assert_matches_oracle, replay
from stategraph.testing.strategies import scenarios


@st.composite
def with_flags(draw: st.DrawFn) -> Scenario:
    """A generated scenario, then (most of the time) a negative ring of new beliefs over
    states that are active, and an executed action whose premise is then retracted: left to
    themselves, three in four scenarios flag nothing, and a review property needs flags."""
    scenario = draw(scenarios())
    active = sorted(scenario.mirror().active)
    more: list[ChangeSpec] = []
    if active and draw(st.integers(0, 9)) < 7:
        p, q = draw(st.sampled_from(active)), draw(st.sampled_from(active))
        ring = (Node("v0", "belief"), Node("v1", draw(st.sampled_from(DERIVED_KINDS))))
        justs = (Just.of("v0", [p], ["v1"]), Just.of("v1", [q], ["v0"]))
        more.append(ChangeSpec(assert_=ring, add=justs))
    if active and draw(st.integers(0, 9)) < 5:
        p = draw(st.sampled_from(active))
        done = Node("x0", "action", "executed")
        more.append(ChangeSpec(assert_=(done,), add=(Just.of("x0", [p]),)))
        more.append(ChangeSpec(retract=(p,)))
    return Scenario(scenario.nodes, scenario.extra, scenario.changes + tuple(more))


@given(with_flags(), st.data())
def test_confirm_and_reject_give_the_oracles_model(scenario: Scenario, data: st.DataObject) -> None:
    engine = StategraphEngine()
    try:
        mirror = replay(engine, scenario)
        decided = 0
        for turn in range(3):
            queue = engine.memory.pending_review()
            model = mirror.model()
            undefined = {s for s in model.undefined if mirror.is_derived_active(s)}
            assert undefined <= {p.id for p in queue}, "an undefined state is not in the queue"
            if not queue:
                break
            chosen = data.draw(st.sampled_from([p.id for p in queue]), label=f"state {turn}")
            confirm = data.draw(st.booleans(), label=f"confirm {chosen}")
            before = len(engine.memory.history())
            if confirm:
                engine.memory.confirm(chosen, by="tester", note=f"turn {turn}")
                mirror.apply(ChangeSpec(add=(Just(chosen, ()),)))
            else:
                engine.memory.reject(chosen, by="tester", note=f"turn {turn}")
                mirror.apply(ChangeSpec(retract=(chosen,)))
            where = f"after {'confirming' if confirm else 'rejecting'} {chosen}"
            assert_matches_oracle(engine, mirror, where)
            assert engine.memory.truth(chosen) is (Truth.true if confirm else Truth.false)
            assert chosen not in {p.id for p in engine.memory.pending_review()}, where
            assert len(engine.memory.history()) == before + 1  # one logged revision each
            decided += 1
        event(f"decisions: {decided}")
        assert engine.memory.verify_log() == len(engine.memory.history())
    finally:
        engine.close()
