"""why(): minimal-height, non-circular proofs; why_not(): the first failure per justification."""

from __future__ import annotations

import pytest

from stategraph import Memory
from stategraph.errors import NotHoldingError


def test_why_picks_the_lowest_derivation() -> None:
    mem = Memory()
    mem.fact("f")
    mem.belief("a", because=["f"])
    mem.belief("b", because=["a"])
    mem.belief("c", because=["b", "f"])  # c: via b (height 3) or directly via f (height 1)
    proof = mem.why("c")
    assert proof.step("c").by is not None and proof.step("c").by.premises == ("f",)
    assert [s.id for s in proof.steps] == ["f", "c"]
    assert proof.step("c").height == 1


def test_why_through_a_cycle_uses_the_outside_support() -> None:
    mem = Memory()
    mem.fact("g")
    mem.belief("a", because=["g"])
    mem.belief("b", because=["a"])
    mem.revise({"add_justifications": [{"head": "a", "premises": ["b"]}]})
    proof = mem.why("b")
    assert proof.step("a").by is not None and proof.step("a").by.premises == ("g",)
    rendered = proof.render()
    assert rendered.splitlines()[0].startswith("b [belief]")
    assert "g [fact]" in rendered


def test_why_shows_unless_and_shared_premises_once() -> None:
    mem = Memory()
    mem.fact("f", "base")
    mem.belief("a", because=["f"])
    mem.belief("b", because=["f"])
    mem.plan("p", because=[["a", "b"]], unless=["x"])
    rendered = mem.why("p").render()
    assert "unless x (none holds)" in rendered
    assert rendered.count("f [fact] base") == 2  # a leaf; facts are cheap to repeat


def test_why_refuses_a_state_that_does_not_hold() -> None:
    mem = Memory()
    mem.fact("f")
    mem.belief("b", because=["f"])
    mem.retract("f")
    with pytest.raises(NotHoldingError, match="why_not"):
        mem.why("b")


def test_why_not_names_the_first_failure_and_the_blocker() -> None:
    mem = Memory()
    mem.fact("f")
    mem.fact("x")
    mem.fact("y")
    mem.fact("g0")
    mem.belief("b", because=[["f", "g0"], {"all": ["f"], "unless": ["x", "y"]}])
    mem.retract("g0")
    w = mem.why_not("b")
    by_premises = {i.justification.premises: i for i in w.items}
    assert by_premises[("f", "g0")].first_failed == "g0"
    assert by_premises[("f",)].blocked_by == "x"
    assert w.status == "unsupported"
    mem.retract("x", "y")
    assert mem.why_not("b").status == "holds"


def test_why_not_on_a_superseded_fact() -> None:
    mem = Memory()
    mem.fact("f")
    mem.supersede("f", {"id": "f2"})
    assert mem.why_not("f").status == "superseded by f2"
