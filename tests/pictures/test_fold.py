"""Folding: each justification of a drawn memory becomes lines from the memories it rests on,
through any internal (non-memory) nodes, which the page never shows as memories."""

from __future__ import annotations

from collections import Counter
from typing import Any

from stategraph.model import Origin, Truth, Verdict
from stategraph.pictures.fold import Input, fold
from stategraph.pictures.html import page_data
from stategraph.pictures.layout import layered
from stategraph.pictures.scene import Picture, StateNode, Support


def _state(sid: str, kind: str = "belief", **fields: Any) -> StateNode:
    return StateNode(
        id=sid, kind=kind, text=f"text of {sid}", truth=Truth.true, active=True, **fields
    )


def _support(key: str, head: str, *premises: str, **fields: Any) -> Support:
    return Support(
        key=key, head=head, origin=Origin.rule, premises=premises, value=Truth.true, **fields
    )


def _picture() -> Picture:
    """Two facts carry an atom (``@a``, internal); ``b`` rests on it by rule r2 and on ``f3``;
    ``u`` holds unless the atom holds (through ``@n``, internal, derived from it); ``c`` rests
    on ``f1`` directly."""
    return Picture(
        title="t",
        scope="s",
        states=(
            _state("@a", "atom", internal=True),
            _state("@n", "atom", internal=True),
            _state("b", verdict=Verdict.invalidated, depth=2),
            _state("c"),
            _state("f1", "fact"),
            _state("f2", "fact"),
            _state("f3", "fact"),
            _state("u"),
        ),
        supports=(
            _support("j0", "@a", "f1", rules=("carry",)),
            _support("j1", "@a", "f2", rules=("carry",)),
            _support("j2", "@n", "@a", rules=("r3",)),
            _support("j3", "b", "@a", "f3", rules=("r2",)),
            _support("j4", "c", "f1"),
            Support(
                key="j5",
                head="u",
                origin=Origin.declared,
                premises=(),
                unless=("@n",),
                value=Truth.false,
            ),
        ),
    )


def test_internal_nodes_fold_into_lines_between_memories() -> None:
    folded = {f.support.key: f for f in fold(_picture())}
    assert set(folded) == {"j3", "j4", "j5"}  # the internal nodes' own are folded in
    b = folded["j3"]
    assert b.inputs == (Input("f1", "premise"), Input("f2", "premise"), Input("f3", "premise"))
    assert b.via == ("r2", "@a", "carry")
    assert folded["j4"].inputs == (Input("f1", "premise"),) and folded["j4"].via == ()
    u = folded["j5"]  # unless a node that rests on the atom: the carriers block u
    assert u.inputs == (Input("f1", "unless"), Input("f2", "unless"))
    assert u.via == ("@n", "r3", "@a", "carry")


def test_the_page_draws_and_lists_memories_only() -> None:
    data = page_data(_picture(), {})
    assert [s["id"] for s in data["states"]] == ["b", "c", "f1", "f2", "f3", "u"]
    assert [g["ids"] for g in data["groups"]] == [["b"]]
    assert sorted(j["key"] for j in data["joins"]) == ["j3", "j4", "j5"]
    tip = next(j["title"] for j in data["joins"] if j["key"] == "j5")
    assert tip.endswith("(through @n, r3, @a, carry)")
    tip = next(j["title"] for j in data["joins"] if j["key"] == "j3")
    assert tip == "rule justification of b via r2 (through @a, carry)"
    assert {e["src"] for e in data["edges"] if e["dst"] == "j:j5"} == {"s:f1", "s:f2"}
    assert {e["kind"] for e in data["edges"] if e["dst"] == "j:j5"} == {"unless"}
    b = next(s for s in data["states"] if s["id"] == "b")
    assert b["rests"][0]["inputs"] == [
        {"id": "f1", "kind": "premise"},
        {"id": "f2", "kind": "premise"},
        {"id": "f3", "kind": "premise"},
    ]
    boxes = {s["id"]: s for s in data["states"]}
    for j in data["joins"]:  # each junction sits just left of its head, inside the drawing
        head = boxes[j["head"]]
        assert 0 < j["x"] < head["x"] - head["w"] / 2


def test_a_long_column_continues_alongside() -> None:
    sizes = {"hub": (60.0, 20.0), **{f"d{i}": (60.0, 20.0) for i in range(10)}}
    edges = [("hub", f"d{i}") for i in range(10)]
    tall, wide = layered(sizes, edges), layered(sizes, edges, rows=4)
    assert len({b.x for b in tall.boxes.values()}) == 2
    assert len({b.x for b in wide.boxes.values()}) == 4  # hub, then 4 + 4 + 2
    assert wide.height < tall.height / 2 and wide.width > tall.width
    per_column = Counter(b.x for b in wide.boxes.values())
    assert sorted(per_column.values()) == [1, 2, 4, 4]
