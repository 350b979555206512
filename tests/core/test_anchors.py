"""Anchored nodes: an atom node that keeps holding on what a change cannot move passes
nothing on (``stategraph.engine.anchors``)."""

from __future__ import annotations

from stategraph import Memory
from stategraph.engine.anchors import anchor_candidates, anchored
from stategraph.grounding.packs import list_packs
from stategraph.model import Change, Justification, Origin
from stategraph.values import Truth

T, F = Truth.true, Truth.false


def _j(head: str, *premises: str, unless: tuple[str, ...] = ()) -> Justification:
    return Justification(head=head, premises=premises, unless=unless, origin=Origin.declared)


def test_a_node_on_what_the_change_cannot_move_is_anchored_and_so_what_rests_on_it() -> None:
    justs = [
        _j("rule:home_city(u,sz)", "atom:moves(u,a,sz)"),  # the move nobody touched
        _j("rule:home_city(u,sz)", "atom:moves(u,b,sz)"),  # the move called off
        _j("atom:home_city(u,sz)", "rule:home_city(u,sz)"),
    ]
    truth = {n: T for n in ("atom:moves(u,a,sz)", "rule:home_city(u,sz)", "atom:home_city(u,sz)")}
    moving = {"atom:moves(u,b,sz)", "rule:home_city(u,sz)", "atom:home_city(u,sz)"}
    found = anchored(sorted(moving), justs, truth, moving, Change())
    assert found == {"rule:home_city(u,sz)", "atom:home_city(u,sz)"}


def test_no_anchor_through_an_unless_a_moving_premise_or_a_removed_justification() -> None:
    truth = {"atom:a": T, "atom:b": T, "rule:x": T, "f": T}
    blocked = [_j("rule:x", "atom:a", unless=("atom:b",))]
    assert anchored(["rule:x"], blocked, truth, {"rule:x"}, Change()) == set()
    moving = [_j("rule:x", "atom:a")]
    assert anchored(["rule:x"], moving, truth, {"rule:x", "atom:a"}, Change()) == set()
    gone = Change(remove_justifications=[_j("rule:x", "atom:a")])
    assert anchored(["rule:x"], moving, truth, {"rule:x"}, gone) == set()
    assert anchored(["rule:x"], moving, {**truth, "rule:x": F}, {"rule:x"}, Change()) == set()


def test_only_internal_nodes_that_are_no_seeds_are_candidates() -> None:
    solve = {"m1", "atom:a", "rule:a", "f"}
    assert anchor_candidates(solve, {"atom:a"}) == ["rule:a"]


def test_a_dense_atom_keeps_the_revision_to_what_it_can_move() -> None:
    """Thirty moves into Shenzhen and forty beliefs on the city: retracting one move solves
    the move's nodes, not the forty beliefs, and every value is the one a full solve gives."""
    mem = Memory(rules=list_packs(), candidates=None)
    for i in range(30):
        mem.add(
            {
                "id": f"mv{i}",
                "kind": "fact",
                "atoms": [f'moves(user,shanghai,shenzhen,"2026-{i % 12 + 1:02d}")'],
            }
        )
    for i in range(40):
        mem.add({"id": f"b{i}", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    report = mem.retract("mv0")
    assert report.entries == ()
    assert report.solved < 10 < report.cone_size
    assert all(mem.truth(f"b{i}") is T for i in range(40))
