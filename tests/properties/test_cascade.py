"""Cascade correctness of the real engine, property by property, against the oracles.

Each test replays generated scenarios (:mod:`stategraph.testing.strategies`) on the real
engine and checks one clause of the contract (DESIGN.md, "Semantics") against the
from-scratch well-founded model of the test-side mirror (:mod:`stategraph.testing.oracles.wfm`)
or against an independent computation written here (hop distances, cones). Keeping one clause
per test makes a failure name the broken clause.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from random import Random

import pytest
from backends import BACKENDS, make_place
from hypothesis import given
from hypothesis import strategies as st

from stategraph import Change, Memory, Report, Truth, Verdict
from stategraph.testing.engine import StategraphEngine, rebuild, to_change
from stategraph.testing.graphs import FACT, ChangeSpec, Just, Mirror, Scenario, hop_distances
from stategraph.testing.harness import Engine, assert_matches_oracle, build, replay
from stategraph.testing.oracles.report import loses_more
from stategraph.testing.oracles.wfm import Model
from stategraph.testing.properties import (
    check_determinism,
    check_locality,
    check_oracle,
    check_rebuild,
)
from stategraph.testing.strategies import scenarios


@dataclass
class Step:
    """One revision as the report checks see it: the change, the report, the mirror and the
    oracle's model before and after."""

    change: ChangeSpec
    report: Report
    before: Mirror
    after: Mirror
    old: Model
    new: Model


def revisions(scenario: Scenario) -> Iterator[Step]:
    """Replay a scenario on a fresh in-memory engine, yielding every revision's step."""
    engine = StategraphEngine()
    try:
        mirror = build(engine, scenario)
        for change in scenario.steps():
            before = mirror.copy()
            report = engine.revise(change)
            mirror.apply(change)
            yield Step(change, report, before, mirror.copy(), before.model(), mirror.model())
    finally:
        engine.close()


def holds(j: Just, model: Model) -> bool:
    """A justification holds: every premise true, every ``unless`` state false."""
    return all(p in model.true for p in j.premises) and all(
        model.value(u) == "false" for u in j.unless
    )


def _truth(model: Model, sid: str) -> Truth:
    return Truth(model.value(sid))


@given(scenarios())
def test_holding_set_is_the_well_founded_model(scenario: Scenario) -> None:
    """After every add and change, holding() and undefined() equal the oracle's WFM (of the
    mirror, and of the justifications the memory recorded)."""
    check_oracle(scenario)


@given(scenarios())
def test_every_state_has_its_oracle_truth_value(scenario: Scenario) -> None:
    """truth(id) for every state, active or not, is its value in the WFM; undefined states are
    exactly the oracle's undefined ones (negative cycles and what they reach)."""

    def every_truth(engine: Engine, mirror: Mirror, where: str) -> None:
        assert isinstance(engine, StategraphEngine)
        model = mirror.model()
        assert engine.undefined() == model.undefined, where
        for sid in mirror.nodes:
            assert engine.memory.truth(sid) is _truth(model, sid), f"{sid} {where}"
            assert engine.memory.is_active(sid) == (sid in mirror.active), f"{sid} {where}"

    engine = StategraphEngine()
    try:
        replay(engine, scenario, every_truth)
    finally:
        engine.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
@given(scenario=scenarios(), bulk=st.booleans())
def test_incremental_revision_equals_full_rebuild(
    backend_name: str, scenario: Scenario, bulk: bool
) -> None:
    """The cone-local incremental history ends where a from-scratch build of the same
    contents does (through one revise, or through bulk_load): in memory, and with both
    histories in PostgreSQL (each example two fresh tenants)."""
    if backend_name != "postgres":  # SQLite in memory, as ever
        check_rebuild(scenario, bulk=bulk)
        return
    places = [make_place(backend_name, Path("."), label) for label in ("inc", "full")]
    try:
        check_rebuild(
            scenario,
            lambda: Memory(places[0].url, candidates=None),
            bulk=bulk,
            rebuild_at=places[1].url,
        )
    finally:
        for p in places:
            p.drop()


@given(scenarios())
def test_revisions_after_a_bulk_load_match_the_oracle(scenario: Scenario) -> None:
    """bulk_load closes the edges its supports do not cite (``docs/revision.md``); every
    revision after it must still reach the states that move."""
    engine = StategraphEngine()
    try:
        mirror = build(engine, scenario)
        loaded = rebuild(engine.memory, bulk=True)
        engine.memory.close()
        engine.memory = loaded
        assert_matches_oracle(engine, mirror, "after bulk_load")
        for step in scenario.steps():
            engine.revise(step)
            mirror.apply(step)
            assert_matches_oracle(engine, mirror, f"after {step!r}")
    finally:
        engine.close()


@given(scenarios())
def test_entries_carry_the_oracle_truth_values(scenario: Scenario) -> None:
    """Every entry's old/new truth is the oracle's before/after; every active derived state
    whose value changed (other than the changed states themselves) has an entry."""
    for step in revisions(scenario):
        touched = step.change.touched()
        entries = {e.id: e for e in step.report.entries}
        assert not touched & set(entries), "changed states belong in report.changed"
        for e in step.report.entries:
            assert (e.old, e.new) == (_truth(step.old, e.id), _truth(step.new, e.id)), e.id
        for sid in step.after.active - touched:
            if step.after.nodes[sid].kind == FACT:
                continue
            if step.old.value(sid) != step.new.value(sid):
                assert sid in entries, f"{sid} changed value but is not reported"


@given(scenarios())
def test_every_entry_reports_a_real_change(scenario: Scenario) -> None:
    """No spurious entries: a reported state changed truth value, or the set of its
    justifications that hold changed (the only reason to report a state that stays true), or
    it stays in doubt and the change took more of its basis (the person who settles it must
    hear of it)."""
    for step in revisions(scenario):
        for e in step.report.entries:
            if step.old.value(e.id) != step.new.value(e.id):
                continue
            held = {j for j in step.before.justifications_of(e.id) if holds(j, step.old)}
            now = step.after.justifications_of(e.id)
            hold = {j for j in now if holds(j, step.new)}
            more = e.new is Truth.undefined and loses_more(now, step.old, step.new)
            assert held != hold or more, f"{e.id} reported {e.verdict.value} but nothing changed"


@given(scenarios())
def test_kept_names_a_justification_that_holds(scenario: Scenario) -> None:
    """``kept``: still true, and reason.surviving is a justification of the state that holds
    in the new model (premises true, unless states false)."""
    for step in revisions(scenario):
        for e in step.report.entries:
            if e.verdict is not Verdict.kept:
                continue
            assert e.old is Truth.true and e.new is Truth.true, e.id
            ref = e.reason.surviving
            assert ref is not None, f"kept {e.id} names no surviving justification"
            just = Just.of(e.id, ref.premises, ref.unless)
            assert just in step.after.justs, f"{e.id}: surviving {just!r} does not exist"
            assert holds(just, step.new), f"{e.id}: surviving {just!r} does not hold"


@given(scenarios())
def test_invalidated_means_no_justification_holds(scenario: Scenario) -> None:
    """``invalidated``: false now, was not false before, and none of its justifications
    holds in the new model."""
    for step in revisions(scenario):
        for e in step.report.entries:
            if e.verdict is not Verdict.invalidated:
                continue
            assert e.id not in step.new.true | step.new.undefined, e.id
            assert e.old is not Truth.false, e.id
            alive = [j for j in step.after.justifications_of(e.id) if holds(j, step.new)]
            assert not alive, f"invalidated {e.id} still has {alive}"
            node = step.after.nodes[e.id]
            if node.kind == "action":
                assert node.status == "pending" and e.consequence is not None, e.id
                assert e.consequence.value == "cancel", e.id


@given(scenarios())
def test_restored_means_false_or_undefined_before_and_true_now(scenario: Scenario) -> None:
    """``restored``: did not hold before the change, holds after it (and says through what)."""
    for step in revisions(scenario):
        for e in step.report.entries:
            if e.verdict is Verdict.restored:
                assert e.id not in step.old.true, e.id
                assert e.id in step.new.true, e.id
                ref = e.reason.surviving
                assert ref is not None and holds(Just.of(e.id, ref.premises, ref.unless), step.new)
            elif e.id in step.new.true and e.id not in step.old.true:
                raise AssertionError(f"{e.id} came to hold but is {e.verdict.value}")


@given(scenarios())
def test_needs_confirmation_is_undefined_or_an_executed_action(scenario: Scenario) -> None:
    """``needs_confirmation`` only for undefined states, or executed actions that lost support
    (consequence ``review``); every undefined entry is ``needs_confirmation``."""
    for step in revisions(scenario):
        for e in step.report.entries:
            undefined = e.id in step.new.undefined
            if e.verdict is Verdict.needs_confirmation:
                node = step.after.nodes[e.id]
                executed = node.kind == "action" and node.status == "executed"
                assert undefined or (executed and e.id not in step.new.true), e.id
                if node.kind == "action":
                    assert e.consequence is not None and e.consequence.value == "review", e.id
            else:
                assert not undefined, f"undefined {e.id} reported as {e.verdict.value}"


@given(scenarios())
def test_reports_stay_inside_the_cone(scenario: Scenario) -> None:
    """Locality: nothing outside the cone of the change (states reachable from the changed
    ones along premise/unless edges) is ever in the report, or changes value or support."""
    check_locality(scenario)


@given(scenarios())
def test_depth_is_the_shortest_hop_distance(scenario: Scenario) -> None:
    """An entry's depth is its shortest premise/unless hop distance from a changed state,
    computed here by breadth-first search over the graph after the change."""
    for step in revisions(scenario):
        dist = hop_distances(step.change.seeds(), step.after)
        for e in step.report.entries:
            assert e.depth == dist[e.id], f"{e.id}: depth {e.depth}, distance {dist[e.id]}"


def _prefix(scenario: Scenario) -> tuple[Scenario, ChangeSpec]:
    """The scenario without its last change, and that change."""
    *head, last = scenario.steps()
    extra = head[0].add if scenario.extra else ()
    rest = tuple(head[1:] if scenario.extra else head)
    return Scenario(scenario.nodes, extra, rest), last


def _report_after(engine: StategraphEngine, scenario: Scenario, last: ChangeSpec) -> str:
    for step in scenario.steps():
        engine.revise(step)
    return engine.revise(last).to_json()


def _outcome(report_json: str) -> dict[str, object]:
    """A report without what depends on the store's history as well as its contents: which
    justification carries a state (its support, kept from earlier revisions) decides how much
    of the cone is solved (``solved``, ``method``) and which equally valid justification is
    named as surviving (``docs/revision.md``)."""
    data = json.loads(report_json)
    data.pop("solved")
    data.pop("method")
    for e in data["entries"]:
        e["reason"].pop("surviving")
    return data


@given(scenarios(), st.randoms(use_true_random=False))
def test_reports_are_deterministic_and_order_free(scenario: Scenario, rnd: Random) -> None:
    """Same store + same changes give byte-identical report JSON, twice in the same order; a
    store holding the same contents inserted in a shuffled order gives the same outcome
    (every verdict, value, depth, lost support and consequence)."""
    check_determinism(scenario)
    prefix, last = _prefix(scenario)
    engine = StategraphEngine()
    try:
        build(engine, prefix)
        for step in prefix.steps():
            engine.revise(step)
        shuffled = _shuffled_copy(engine.memory, rnd)
        try:
            expected = engine.revise(last).to_json()
            assert _outcome(shuffled.revise(to_change(last)).to_json()) == _outcome(expected)
        finally:
            shuffled.close()
    finally:
        engine.close()


def _shuffled_copy(memory: Memory, rnd: Random) -> Memory:
    """The same contents inserted in a random order (states, then justifications, then
    retractions), so only the insertion order differs from ``memory``."""
    states = memory.states()
    justs = memory.justifications()
    rnd.shuffle(states)
    rnd.shuffle(justs)
    fresh = Memory(candidates=None, assume=False)  # the contents as they are: no stand-ins
    fresh.revise(Change(assert_=tuple(states)))
    for j in justs:
        fresh.revise(Change(add_justifications=(j,)))
    inactive = [s.id for s in states if not memory.is_active(s.id)]
    if inactive:
        fresh.revise(Change(retract=tuple(inactive)))
    return fresh


@given(scenarios())
def test_store_round_trip(scenario: Scenario) -> None:
    """Close and reopen a SQLite store, then revise: the report and the holding set are what
    the same history gives in memory."""
    prefix, last = _prefix(scenario)
    memory_engine = StategraphEngine()
    try:
        build(memory_engine, prefix)
        expected = _report_after(memory_engine, prefix, last)
        expected_holding = memory_engine.holding()
    finally:
        memory_engine.close()
    with tempfile.TemporaryDirectory() as tmp:
        engine = StategraphEngine(Path(tmp) / "memory.db")
        try:
            build(engine, prefix)
            for step in prefix.steps():
                engine.revise(step)
            engine.reopen()
            assert engine.revise(last).to_json() == expected
            assert engine.holding() == expected_holding
            engine.reopen()
            assert engine.holding() == expected_holding
            mirror = prefix.mirror()
            mirror.apply(last)
            assert_matches_oracle(engine, mirror, "after reopening")
        finally:
            engine.close()
