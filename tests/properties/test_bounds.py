"""A bounded revision (``max_depth``, ``max_cone``) against the oracle: exact inside the bound,
flagged at its edge, and nothing wrong that no flag stands in front of.

The scenario's history is revised without a bound, so the store is exact before the last
change; that change is then revised with a drawn bound. What the contract asks
(``docs/revision.md``, "A bounded revision"), checked against the from-scratch well-founded
model and hop distances computed here:

- every state within the bound has the oracle's value, unless it is flagged (cause
  ``depth_limit`` / ``cone_limit``, value undefined), which it may be only when a path from a
  state past the bound comes back to it;
- flagged states lie at most one hop past the bound, and each cites a state within the bound
  that moved or is flagged (nothing is flagged for a change that cannot reach it); a state one
  hop past the bound that holds through facts the change did not name is never flagged;
- every entry that is not flagged carries the oracle's old and new values, and every state
  within the bound that the unbounded report lists (oracle (c)) is listed, with the same
  verdict, or flagged;
- every state whose stored value differs from the oracle's is flagged, or lies behind a
  flagged state (the cascade resumes from there when the flag is settled).
"""

from __future__ import annotations

from collections import deque

from hypothesis import event, given
from hypothesis import strategies as st

from stategraph import Truth
from stategraph.engine import bounded
from stategraph.testing.engine import StategraphEngine
from stategraph.testing.graphs import FACT, ChangeSpec, Just, Mirror, Scenario, hop_distances
from stategraph.testing.harness import build
from stategraph.testing.oracles.report import expected_entries
from stategraph.testing.oracles.wfm import Model
from stategraph.testing.strategies import scenarios

BOUND_CAUSES = {"depth_limit", "cone_limit"}


def effective_bound(
    dist: dict[str, int], max_depth: int | None, max_cone: int | None
) -> tuple[int | None, str | None]:
    """Where the walk stops, computed from the hop distances: the last level taken, and why
    (None, None when it takes the whole cone). A level is not taken if it is deeper than
    ``max_depth``, or if taking it would reach more than ``max_cone`` states."""
    levels: dict[int, int] = {}
    for d in dist.values():
        levels[d] = levels.get(d, 0) + 1
    reached = levels.get(0, 0)
    k = 0
    while levels.get(k + 1):
        if max_depth is not None and k + 1 > max_depth:
            return k, "depth_limit"
        reached += levels[k + 1]
        if max_cone is not None and reached > max_cone:
            return k, "cone_limit"
        k += 1
    return None, None


def downstream(starts: set[str], *graphs: Mirror) -> set[str]:
    """Every state reachable from ``starts`` along premise/unless edges (starts included)."""
    adjacency: dict[str, set[str]] = {}
    for g in graphs:
        for src, heads in g.edges().items():
            adjacency.setdefault(src, set()).update(heads)
    seen = set(starts)
    queue = deque(sorted(seen))
    while queue:
        for nxt in adjacency.get(queue.popleft(), ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def _split(scenario: Scenario) -> tuple[list[ChangeSpec], ChangeSpec]:
    *history, last = scenario.steps()
    return history, last


def _holds_through_unnamed_facts(j: Just, mirror: Mirror, seeds: frozenset[str]) -> bool:
    """A justification no change can touch: premises are active facts the change does not
    name, and its ``unless`` states do not exist."""
    return all(
        p in mirror.active and mirror.nodes[p].kind == FACT and p not in seeds for p in j.premises
    ) and not any(u in mirror.nodes for u in j.unless)


@given(
    scenarios(),
    st.integers(0, 2),
    st.one_of(st.none(), st.integers(1, 6)),
    st.booleans(),
    st.booleans(),
)
def test_a_bounded_revision_is_exact_inside_and_flagged_at_its_edge(
    scenario: Scenario, max_depth: int, max_cone: int | None, tight: bool, hub: bool
) -> None:
    """The bounded last change against the oracle (see the module docstring). ``tight`` takes
    the backwards search's budget away, so every search gives up: that must only flag more.
    ``hub`` makes the last change retract the first state still active (the hubs come first,
    so its cone is deep), instead of the change drawn."""
    history, last = _split(scenario)
    engine = StategraphEngine()
    saved = bounded.REACH_BUDGET, bounded.REACH_FLOOR
    try:
        before = build(engine, scenario)
        for step in history:
            engine.revise(step)
            before.apply(step)
        first = [n.id for n, _ in scenario.nodes if n.id in before.active]
        if hub and first:
            last = ChangeSpec(retract=(first[0],))
        after = before.copy()
        after.apply(last)
        old, new = before.model(), after.model()
        engine.memory.max_depth, engine.memory.max_cone = max_depth, max_cone
        if tight:
            bounded.REACH_BUDGET, bounded.REACH_FLOOR = 0, 0
        report = engine.revise(last)
        _check(report, last, before, after, old, new, engine, max_depth, max_cone, tight)
    finally:
        bounded.REACH_BUDGET, bounded.REACH_FLOOR = saved
        engine.close()


def _check(
    report: object,
    last: ChangeSpec,
    before: Mirror,
    after: Mirror,
    old: Model,
    new: Model,
    engine: StategraphEngine,
    max_depth: int | None,
    max_cone: int | None,
    tight: bool,
) -> None:
    from stategraph import Report

    assert isinstance(report, Report)
    seeds = last.seeds()
    dist = hop_distances(seeds, before, after)
    bound, cause = effective_bound(dist, max_depth, max_cone)
    flagged = {
        e.id for e in report.entries if e.reason.cause in BOUND_CAUSES and e.new is Truth.undefined
    }
    where = f"bound {bound} ({cause}), flagged {sorted(flagged)}"
    event(f"bound: {cause}, {'some' if flagged else 'none'} flagged")
    if bound is None:
        assert not flagged, f"the walk took the whole cone, yet flagged {sorted(flagged)}"
    for e in report.entries:
        assert e.old is Truth(old.value(e.id)), f"{e.id}: old {e.old.value} {where}"
        if e.id in flagged:
            assert e.reason.cause == cause and e.verdict.value == "needs_confirmation", e.id
        else:
            assert e.reason.cause not in BOUND_CAUSES, f"{e.id}: {e.reason.cause} {where}"
            assert e.new is Truth(new.value(e.id)), f"{e.id}: new {e.new.value} {where}"
    if bound is not None:
        listed = {e.id: e for e in report.entries}
        for x in expected_entries(last, before, after, old, new):
            if x.depth <= bound and x.id not in flagged:
                got = listed.get(x.id)
                assert got is not None, f"{x.id} within the bound is not reported, {where}"
                assert got.verdict.value == x.verdict, f"{x.id}: {got.verdict.value} {where}"
        past = {s for s, d in dist.items() if d > bound}
        comes_back = downstream(past, before, after)
        for sid in sorted(flagged):
            assert dist[sid] <= bound + 1, f"{sid} flagged {dist[sid]} hops away, {where}"
            if dist[sid] <= bound:  # undecided because of what lies past the bound
                # (or, with no budget, of what the search could not decide)
                assert tight or sid in comes_back, f"{sid} flagged inside the bound, {where}"
                continue
            cited = {x for j in before.justs | after.justs if j.head == sid for x in j.premises}
            cited |= {x for j in before.justs | after.justs if j.head == sid for x in j.unless}
            assert any(
                dist.get(x, bound + 1) <= bound and (old.value(x) != new.value(x) or x in flagged)
                for x in cited
            ), f"{sid} flagged, yet nothing it cites inside the bound moved, {where}"
        for sid in sorted(flagged):
            assert not any(
                _holds_through_unnamed_facts(j, after, seeds) for j in after.justifications_of(sid)
            ), f"{sid} holds through facts the change does not name, yet is flagged, {where}"
    wrong = {
        sid
        for sid in after.nodes
        if engine.memory.truth(sid) is not Truth(new.value(sid)) and sid not in flagged
    }
    for sid in sorted(wrong):
        assert bound is not None, f"{sid} has a wrong value with no bound"
        if dist.get(sid, bound + 1) <= bound:
            raise AssertionError(f"{sid} inside the bound has a wrong value, {where}")
    unexplained = wrong - downstream(flagged, before, after)
    assert not unexplained, f"wrong values behind no flag: {sorted(unexplained)}, {where}"
    assert engine.memory.undefined() >= flagged
