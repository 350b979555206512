"""Bounded revisions (``max_depth``, ``max_cone``): the walk stops at the bound, and what lies
one hop past it is flagged only if the change may move it (``docs/revision.md``, "A bounded
revision"). The property suite holds the general case to the oracle
(``tests/properties/test_bounds.py``); these are the cases the design turns on, by name."""

from __future__ import annotations

import pytest

from stategraph import Change, Justification, Memory, Truth
from stategraph.engine import bounded
from stategraph.errors import InvalidInputError

N = 2_000


def chain(n: int, **options: object) -> Memory:
    """f <- nothing, s1 <- f, s2 <- s1, ..., sn <- s(n-1), bulk-loaded."""
    mem = Memory(candidates=None, **options)  # type: ignore[arg-type]
    mem.bulk_load(
        [{"id": "f", "kind": "fact"}]
        + [{"id": f"s{i}", "kind": "belief"} for i in range(1, n + 1)],
        [{"head": f"s{i}", "premises": ["f" if i == 1 else f"s{i - 1}"]} for i in range(1, n + 1)],
    )
    return mem


@pytest.mark.parametrize("depth", [0, 3, 100])
def test_the_walk_stops_at_the_bound(depth: int) -> None:
    """On a long chain, a bounded retraction reads and solves only the states within the
    bound (the work follows the bound, not the cone) and flags the one state past it."""
    mem = chain(N, max_depth=depth)
    report = mem.retract("f")
    assert (report.cone_size, report.solved) == (depth + 2, depth + 1)
    assert report.invalidated == sorted(f"s{i}" for i in range(1, depth + 1))
    flagged = f"s{depth + 1}"
    assert report.needs_confirmation == [flagged]
    entry = report.entry(flagged)
    assert entry is not None and entry.reason.cause == "depth_limit" and entry.depth == depth + 1
    assert entry.decided_by.value == "policy"
    assert mem.undefined() == {flagged}
    assert mem.truth(f"s{depth + 2}") is Truth.true  # behind the flag: not read


def test_settling_the_flag_carries_the_cascade_on() -> None:
    """Rejecting a flagged state (retracting it) is a revision seeded there: the next stretch
    of the chain is settled, and the flag moves on."""
    mem = chain(20, max_depth=2)
    mem.retract("f")
    report = mem.retract("s3")
    assert report.invalidated == ["s4", "s5"] and report.needs_confirmation == ["s6"]


def test_a_state_past_the_bound_that_holds_otherwise_is_not_flagged() -> None:
    """h's support is the hub (a tie broken by name), but h also rests on a fact the change
    does not touch: the walk stops at the hub, and h is kept, not flagged."""
    mem = Memory(candidates=None, max_depth=0)
    mem.fact("a")
    mem.fact("z")
    mem.belief("h", because=["a", "z"])
    mem.belief("k", because=["a"])
    report = mem.retract("a")
    assert report.needs_confirmation == ["k"]
    entry = report.entry("h")
    assert entry is not None and entry.verdict.value == "kept" and entry.depth == 1
    assert mem.truth("h") is Truth.true and mem.undefined() == {"k"}
    # h's edges are all open now, so a later change to z still reaches it.
    mem.max_depth = None
    assert mem.retract("z").invalidated == ["h"]


def test_a_dead_cycle_across_the_bound_does_not_keep_itself() -> None:
    """a <- s | a <- b, b <- a: the cycle crosses the bound (b is one hop past it). Solving a
    with b at its stored value would keep both alive through each other; b is uncertain, so a
    comes out undecided and both are flagged."""
    mem = Memory(candidates=None, max_depth=0)
    mem.fact("s")
    mem.belief("a", because=["s"])
    mem.belief("b", because=["a"])
    mem.revise(Change(add_justifications=[Justification(head="a", premises=["b"])]))
    assert mem.holding() == {"s", "a", "b"}
    mem.max_depth = 1
    report = mem.retract("s")
    assert report.needs_confirmation == ["a", "b"]
    assert {e.reason.cause for e in report.entries} == {"depth_limit"}
    assert mem.holding() == set()
    mem.max_depth = None
    mem.retract("a")  # settled: the cycle falls for good
    assert mem.holding() == set() and mem.undefined() == {"b"} - {"b"}


def test_a_long_way_back_into_the_bound_is_seen() -> None:
    """h (one hop from f) also rests on a4, four hops down a chain from f. With the bound at
    2, a4 is never walked to, but h's other justification reaches it: h is flagged, never
    kept through a value that is stale."""
    mem = Memory(candidates=None)
    mem.fact("f")
    for i in range(1, 5):
        mem.belief(f"a{i}", because=["f" if i == 1 else f"a{i - 1}"])
    mem.belief("h", because=["f", "a4"])
    mem.max_depth = 2
    report = mem.retract("f")
    entry = report.entry("h")
    assert entry is not None and entry.new is Truth.undefined
    assert entry.reason.cause == "depth_limit"


def test_a_state_inside_the_bound_moved_only_by_a_long_path_is_solved() -> None:
    """x is one hop from f by a closed edge (x holds through y), and y four hops down a chain
    from f: x's value can change though no open edge within the bound reaches it. The
    backwards search finds that and solves x."""
    mem = Memory(candidates=None)
    mem.fact("f")
    for i in range(1, 4):
        mem.belief(f"a{i}", because=["f" if i == 1 else f"a{i - 1}"])
    mem.belief("y", because=["a3"])
    mem.belief("x", because=[{"all": ["y"]}, {"all": ["f"], "unless": ["y"]}])
    assert mem.truth("x") is Truth.true
    mem.max_depth = 2
    report = mem.retract("f")
    entry = report.entry("x")
    assert entry is not None and entry.new is Truth.undefined
    assert entry.reason.cause == "depth_limit" and entry.depth == 1


def test_a_search_out_of_budget_flags_rather_than_trusts(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no budget, the backwards search decides nothing: every state a solved state cites
    counts as uncertain. Soundness only costs more flags."""
    monkeypatch.setattr(bounded, "REACH_BUDGET", 0)
    monkeypatch.setattr(bounded, "REACH_FLOOR", 0)
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.fact("g")
    mem.belief("h", because=["f", "g"])
    mem.belief("k", because=["h"])
    mem.belief("m", because=["k"])
    mem.max_depth = 1
    report = mem.retract("f")
    assert mem.truth("h") is Truth.true  # through g, a fact: known without a search
    assert report.entry("k") is None and mem.truth("m") is Truth.true


def test_a_cone_cap_stops_the_walk_with_its_own_cause() -> None:
    """max_cone caps the states walked, level by level: on a chain, 4 states are the fact
    and three levels; the fourth level is past the cap."""
    mem = chain(50, max_cone=4)
    report = mem.retract("f")
    assert (report.cone_size, report.solved) == (5, 4)
    assert report.needs_confirmation == ["s4"]
    entry = report.entry("s4")
    assert entry is not None and entry.reason.cause == "cone_limit"
    assert mem.history()[-1].config["max_cone"] == 4


def test_the_depth_bound_wins_a_tie_with_the_cap() -> None:
    mem = chain(50, max_depth=2, max_cone=3)
    report = mem.retract("f")
    entry = report.entry("s3")
    assert entry is not None and entry.reason.cause == "depth_limit"


def test_bounded_reports_are_deterministic() -> None:
    reports = [chain(40, max_depth=5, max_cone=30).retract("f").to_json() for _ in range(2)]
    assert reports[0] == reports[1]


def test_a_cap_of_nothing_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="max_cone"):
        Memory(max_cone=0)
    assert "max_cone" not in Memory().config


def test_a_state_inside_the_bound_that_keeps_its_support_is_reported_kept() -> None:
    """x holds through e (a fact, and first in order among equally low justifications), so
    its edge from f2 is closed: retracting f, with the walk stopped further down the chain,
    does not solve x but still reports it kept, having lost ``x <- f2``."""
    mem = chain(5, max_depth=2)
    mem.fact("e")
    mem.belief("f2", because=["f"])
    mem.belief("x", because=["f2", "e"])
    report = mem.retract("f")
    assert report.solved == 4  # f, s1, s2 and f2: x keeps its support
    entry = report.entry("x")
    assert entry is not None and entry.verdict.value == "kept" and entry.depth == 2
    assert [lost.justification.premises for lost in entry.reason.lost] == [("f2",)]
