"""What a picture holds: shapes, AND-nodes, edge kinds, origins, verdicts and consequences;
which part of a large store it draws, what it says it left out, and that it reads only that
part."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stategraph.errors import InvalidInputError, UnknownStateError
from stategraph.memory import Memory
from stategraph.model import Consequence, Origin, Truth, Verdict
from stategraph.pictures import build_picture, to_dot, to_mermaid
from stategraph.pictures.scene import Picture
from stategraph.pictures.style import shape
from stategraph.store import SQLiteStore


def _picture(path: Path, **options: Any) -> Picture:
    store = SQLiteStore(path, create=False)
    try:
        return build_picture(store, name=str(path), **options)
    finally:
        store.close()


def test_demo_revision_marks_the_change_and_every_verdict(demo_store: Path) -> None:
    p = _picture(demo_store, revision=5)
    states = {s.id: s for s in p.states}
    assert p.title == "demo.db, revision 5"
    assert p.change == "m1 superseded by m1b; m1b asserted"
    assert states["m1"].changed == "superseded" and states["m1"].superseded_by == "m1b"
    assert states["m1b"].changed == "asserted"
    assert states["m2"].verdict is Verdict.invalidated
    assert states["m3"].verdict is Verdict.invalidated
    assert states["m3"].consequence is Consequence.cancel
    assert states["m4"].verdict is None and states["m4"].truth is Truth.true  # hard negative
    assert {j.role for j in p.supports} == {"lost"}  # both lost m1
    assert p.scope == "all 5 states of the store" and p.left_out == 0


def test_every_justification_is_an_and_node_and_every_edge_kind_is_kept(
    rich_memory: Memory,
) -> None:
    p = build_picture(rich_memory.store, revision=11)
    heads = [j.head for j in p.supports]
    assert heads.count("b1") == 2  # alternative support: two AND-nodes into b1
    origins = {j.head: j.origin for j in p.supports if heads.count(j.head) == 1}
    assert origins["a1"] is Origin.assumed and origins["a2"] is Origin.review
    assert {j.origin for j in p.supports if j.head == "c1"} == {Origin.recovered, Origin.judge}
    kinds = {
        (e.src, p.supports[int(e.dst[1:])].head, e.kind) for e in p.edges() if e.kind != "head"
    }
    assert ("f3", "p1", "unless") in kinds
    assert ("f2", "c1", "candidate") in kinds  # unverified candidate: dotted
    assert ("f1", "c1", "independent") in kinds  # checked and not needed
    assert ("f2", "c1", "premise") in kinds  # the judge's cited support
    states = {s.id: s for s in p.states}
    assert states["p1"].verdict is Verdict.invalidated
    assert states["x1"].verdict is Verdict.needs_confirmation
    assert states["x1"].consequence is Consequence.review
    assert states["f3"].changed == "asserted"
    assert next(j for j in p.supports if j.head == "p1").role == "lost"


def test_each_format_draws_kinds_edges_and_origins_distinctly(rich_memory: Memory) -> None:
    p = build_picture(rich_memory.store, revision=11)
    dot, mermaid = to_dot(p), to_mermaid(p)
    key = {j.head: j.key for j in p.supports if j.origin is not Origin.judge}
    assert {shape(k) for k in ("fact", "belief", "plan", "action", "goal")} == {
        "box", "round", "hexagon", "flag", "octagon"
    }  # fmt: skip
    for fragment in (
        '"state:f1" [shape=box',
        '"state:b1" [shape=ellipse',
        '"state:p1" [shape=hexagon',
        '"state:x1" [shape=cds',
        '"state:g1" [shape=octagon',  # a kind of its own: the default shape
        f'"state:f3" -> "support:{key["p1"]}" [style=dashed, arrowhead=tee, label="unless"]',
        f'"state:f2" -> "support:{key["c1"]}" [style=dotted]',
        f'"state:f1" -> "support:{key["c1"]}" [style=dotted, color="#95a5a6", label="independent"]',
        'label="judge", style="filled"',
        'label="review", style="filled"',
        'label="assumed", style="filled,dashed"',
        "peripheries=2",  # the executed action to review
    ):
        assert fragment in dot, fragment
    for fragment in ("--x|unless|", "-.->", "-.->|independent|", '((("judge")))', "classDef"):
        assert fragment in mermaid, fragment


def _chain(path: Path, n: int) -> Memory:
    """f0 -> s1 -> s2 -> ... -> s{n-1}, plus a fact on the side of each."""
    mem = Memory(path, candidates=None)
    mem.fact("s0", "root")
    for i in range(1, n):
        mem.fact(f"side{i}", f"side fact {i}")
        mem.belief(f"s{i}", f"step {i}", because=[[f"s{i - 1}", f"side{i}"]])
    return mem


class _Watching:
    """The real store, noting every id each read asks about."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.asked: set[str] = set()
        self.whole = False

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            if name in ("states", "justifications", "with_atoms") or (
                name == "ids" and (args[0] if args else kwargs.get("limit")) is None
            ):
                self.whole = True
            for a in args:
                if isinstance(a, (list, set, frozenset, tuple)):
                    self.asked.update(str(x) for x in a)
                elif isinstance(a, str):
                    self.asked.add(a)
            return method(*args, **kwargs)

        return call


def test_a_neighbourhood_reads_only_itself_and_says_what_it_left_out(tmp_path: Path) -> None:
    mem = _chain(tmp_path / "chain.db", 40)
    watched = _Watching(mem.store)  # type: ignore[arg-type]
    p = build_picture(watched, around="s20", hops=2, limit=30)  # type: ignore[arg-type]
    drawn = {s.id for s in p.states}
    assert drawn == {"s18", "s19", "s20", "s21", "s22", "side19", "side20", "side21"}
    assert p.scope == "8 states within 2 hops of s20"
    assert p.left_out == 4  # s17 and side18, s23 and side22: one hop further
    assert {s.id: s.hidden for s in p.states if s.hidden} == {"s18": 2, "s22": 2}
    undrawn = {j.head: j.undrawn(p.ids()) for j in p.supports if j.undrawn(p.ids())}
    assert undrawn == {"s18": 2, "s22": 1}  # s17 and side18; side22
    tip = next(
        line for line in to_dot(p).splitlines() if 'tooltip="declared justification of s18' in line
    )
    assert "(2 premises or conditions not drawn)" in tip
    near = {f"s{i}" for i in range(17, 24)} | {f"side{i}" for i in range(18, 24)}
    assert not watched.whole
    assert watched.asked <= near, sorted(watched.asked - near)
    mem.close()


def test_a_large_store_draws_the_revisions_cone_and_one_hop(tmp_path: Path) -> None:
    mem = _chain(tmp_path / "chain.db", 12)
    mem.retract("side10")  # s10 and s11 go
    seq = mem.head()[0]
    p = build_picture(mem.store, revision=seq, limit=8)
    drawn = {s.id for s in p.states}
    assert drawn == {"side10", "s10", "s11", "s9", "side11"}
    assert p.scope == "the revision's cone (3 states) and what is within 1 hop of it"
    assert p.left_out == 2  # s8 and side9, two hops out
    assert {s.id for s in p.states if s.verdict is Verdict.invalidated} == {"s10", "s11"}
    mem.close()


def test_a_revisions_cone_is_drawn_whole_whatever_the_limit(tmp_path: Path) -> None:
    mem = _chain(tmp_path / "chain.db", 40)
    mem.retract("s0")  # s1 to s39 go: a cone of 40 states and 39 justifications
    seq = mem.head()[0]
    cone = {f"s{i}" for i in range(40)}
    p = build_picture(mem.store, revision=seq, limit=8)
    assert p.ids() == cone  # the sides, one hop out, are past the limit
    assert p.cut and p.scope == (
        "the revision's cone (40 states) and what is within 1 hop of it, "
        "cut at the limit of 8 nodes (states and justifications)"
    )
    p = build_picture(mem.store, revision=seq, hops=0, limit=8)
    assert p.ids() == cone and not p.cut  # --hops 0 draws the cone, and nothing stops it
    assert p.scope == "the revision's cone (40 states)"
    mem.close()


def test_hops_draw_what_they_say_on_a_small_store_too(demo_store: Path) -> None:
    p = _picture(demo_store, revision=5, hops=0)
    assert p.ids() == {"m1", "m1b", "m2", "m3"}  # not m4, the untouched hard negative
    assert p.scope == "the revision's cone (4 states)"
    assert _picture(demo_store, revision=5).ids() == {"m1", "m1b", "m2", "m3", "m4"}  # whole
    p = _picture(demo_store, around="m3", hops=0)
    assert p.ids() == {"m3"} and p.scope == "m3"
    with pytest.raises(InvalidInputError, match="hops: counts from a revision's cone"):
        _picture(demo_store, hops=1)


def test_the_limit_counts_states_and_justifications_and_cuts_the_farthest_first(
    tmp_path: Path,
) -> None:
    mem = _chain(tmp_path / "chain.db", 12)
    # s5 and its justification, then the first ring by id: s4 (2 nodes), s6 (2), side5 (1)
    p = build_picture(mem.store, around="s5", hops=3, limit=7)
    assert [s.id for s in p.states] == ["s4", "s5", "s6", "side5"]
    assert len(p.states) + len(p.supports) == 7
    assert p.cut and p.scope.endswith(", cut at the limit of 7 nodes (states and justifications)")
    assert p.left_out > 0
    p = build_picture(mem.store, around="s5", hops=3, limit=4)
    assert [s.id for s in p.states] == ["s4", "s5"] and len(p.supports) == 2
    mem.close()


def test_bad_requests_name_what_is_wrong(demo_store: Path, tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no revision 9 in the log"):
        _picture(demo_store, revision=9)
    with pytest.raises(InvalidInputError, match="no revision 0"):
        _picture(demo_store, revision=0)
    with pytest.raises(UnknownStateError, match="'nope'"):
        _picture(demo_store, around="nope")
    with pytest.raises(InvalidInputError, match="more than 3 states"):
        _picture(demo_store, limit=3)
    with pytest.raises(InvalidInputError, match="hops"):
        _picture(demo_store, around="m2", hops=-1)
    mem = Memory(tmp_path / "bulk.db")
    mem.bulk_load([{"id": "f", "kind": "fact", "text": "x"}], [])
    with pytest.raises(InvalidInputError, match="bulk load"):
        build_picture(mem.store, revision=1)
    mem.close()
