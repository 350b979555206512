"""Revision semantics as tables: graph -> change -> expected verdicts.

Each row builds a small memory, applies one change and checks every verdict the report gives
(entries not listed must not appear), plus the truth values afterwards. The rows are the rules
of DESIGN.md, one or two rows each.
"""

from __future__ import annotations

from typing import Any

import pytest

from stategraph import Change, Justification, Memory, Truth
from stategraph.model import DecidedBy, Entry, Origin

# A graph is a list of (id, kind, because, extra): because = list of alternatives,
# each a list of premises or {"all": [...], "unless": [...]}.
Graph = list[tuple[str, str, list[Any], dict[str, Any]]]


def build(graph: Graph, max_depth: int | None = None) -> Memory:
    mem = Memory(max_depth=max_depth)
    cycles = []
    for sid, kind, because, extra in graph:
        existing = [alt for alt in because if _premises_exist(mem, alt)]
        later = [alt for alt in because if alt not in existing]
        mem.add({"id": sid, "kind": kind, **extra}, because=existing)
        cycles += [(sid, alt) for alt in later]
    for head, alt in cycles:  # justifications that close a cycle, added once both ends exist
        premises = alt["all"] if isinstance(alt, dict) else alt
        unless = alt.get("unless", []) if isinstance(alt, dict) else []
        mem.revise({"add_justifications": [{"head": head, "premises": premises, "unless": unless}]})
    return mem


def _premises_exist(mem: Memory, alt: Any) -> bool:
    premises = alt["all"] if isinstance(alt, dict) else alt
    known = {s.id for s in mem.states()}
    return all(p in known for p in premises)


F: dict[str, Any] = {}

CASES: list[tuple[str, Graph, dict[str, Any], dict[str, str], set[str]]] = [
    (
        "single support lost",
        [("f", "fact", [], F), ("b", "belief", [["f"]], F)],
        {"retract": ["f"]},
        {"b": "invalidated"},
        set(),
    ),
    (
        "alternative support keeps the state",
        [("f", "fact", [], F), ("g", "fact", [], F), ("b", "belief", [["f"], ["g"]], F)],
        {"retract": ["f"]},
        {"b": "kept"},
        {"g", "b"},
    ),
    (
        "conjunction fails when one premise goes",
        [("f", "fact", [], F), ("g", "fact", [], F), ("b", "belief", [["f", "g"]], F)],
        {"retract": ["g"]},
        {"b": "invalidated"},
        {"f"},
    ),
    (
        "dead 2-cycle behind one premise",
        [
            ("f", "fact", [], F),
            ("a", "belief", [["f"], ["b"]], F),
            ("b", "belief", [["a"]], F),
        ],
        {"retract": ["f"]},
        {"a": "invalidated", "b": "invalidated"},
        set(),
    ),
    (
        "dead 3-cycle behind one premise",
        [
            ("f", "fact", [], F),
            ("a", "belief", [["f"], ["c"]], F),
            ("b", "belief", [["a"]], F),
            ("c", "plan", [["b"]], F),
        ],
        {"retract": ["f"]},
        {"a": "invalidated", "b": "invalidated", "c": "invalidated"},
        set(),
    ),
    (
        "cycle with an outside support survives",
        [
            ("f", "fact", [], F),
            ("g", "fact", [], F),
            ("a", "belief", [["f"], ["b"]], F),
            ("b", "belief", [["a"], ["g"]], F),
        ],
        {"retract": ["f"]},
        {"a": "kept"},
        {"g", "a", "b"},
    ),
    (
        "unless: asserting a fact invalidates a default",
        [("f", "fact", [], F), ("b", "belief", [{"all": ["f"], "unless": ["x"]}], F)],
        {"assert": [{"id": "x", "kind": "fact"}]},
        {"b": "invalidated"},
        {"f", "x"},
    ),
    (
        "unless: retracting the blocker restores",
        [
            ("f", "fact", [], F),
            ("x", "fact", [], F),
            ("b", "belief", [{"all": ["f"], "unless": ["x"]}], F),
        ],
        {"retract": ["x"]},
        {"b": "restored"},
        {"f", "b"},
    ),
    (
        "negative cycle is undefined, never a silent pick",
        [
            ("f", "fact", [], F),
            ("x", "fact", [], F),
            ("a", "belief", [{"all": ["f"], "unless": ["b", "x"]}], F),
            ("b", "belief", [{"all": ["f"], "unless": ["a"]}], F),
            ("c", "belief", [["a"]], F),
        ],
        {"retract": ["x"]},
        {"a": "needs_confirmation", "b": "needs_confirmation", "c": "needs_confirmation"},
        {"f"},
    ),
    (
        "pending action is cancelled, executed action goes to review",
        [
            ("f", "fact", [], F),
            ("p", "action", [["f"]], {"status": "pending"}),
            ("e", "action", [["f"]], {"status": "executed"}),
        ],
        {"retract": ["f"]},
        {"p": "invalidated", "e": "needs_confirmation"},
        set(),
    ),
    (
        "a change that touches no other state",
        [("f", "fact", [], F), ("g", "fact", [], F), ("b", "belief", [["g"]], F)],
        {"retract": ["f"]},
        {},
        {"g", "b"},
    ),
    (
        "a justification removed by the change",
        [("f", "fact", [], F), ("b", "belief", [["f"]], F), ("c", "belief", [["b"]], F)],
        {"remove_justifications": [{"head": "b", "premises": ["f"]}]},
        {"b": "invalidated", "c": "invalidated"},
        {"f"},
    ),
    (
        "a justification added restores a chain",
        [
            ("f", "fact", [], F),
            ("b", "belief", [{"all": [], "unless": ["f"]}], F),
            ("c", "belief", [["b"]], F),
        ],
        {"add_justifications": [{"head": "b", "premises": ["f"]}]},
        {"b": "restored", "c": "restored"},
        {"f", "b", "c"},
    ),
    (
        "supersede keeps the hard negative out of the report",
        [
            ("m1", "fact", [], F),
            ("m2", "belief", [["m1"]], F),
            ("m3", "action", [["m1"]], F),
            ("m4", "fact", [], F),
        ],
        {"supersede": {"id": "m1", "with": {"id": "m1b", "kind": "fact"}}},
        {"m2": "invalidated", "m3": "invalidated"},
        {"m1b", "m4"},
    ),
]


@pytest.mark.parametrize(
    ("graph", "change", "verdicts", "holding"),
    [pytest.param(*row[1:], id=row[0]) for row in CASES],
)
def test_verdicts(
    graph: Graph, change: dict[str, Any], verdicts: dict[str, str], holding: set[str]
) -> None:
    mem = build(graph)
    report = mem.revise(change)
    assert {e.id: e.verdict.value for e in report.entries} == verdicts
    assert mem.holding() == holding
    # entries are built without validation (model.trusted): they must equal validated ones
    for e in report.entries:
        assert e == Entry.model_validate(e.model_dump()), e.id


def test_kept_names_the_surviving_support() -> None:
    mem = build(CASES[1][1])
    entry = mem.retract("f").entry("b")
    assert entry is not None and entry.reason.surviving is not None
    assert entry.reason.surviving.premises == ("g",)
    assert [lost.justification.premises for lost in entry.reason.lost] == [("f",)]
    assert entry.reason.lost[0].failed == ("f",)


def test_surviving_support_is_never_circular() -> None:
    # a and b support each other and each has an outside support; losing f leaves a carried
    # by b, and b must be carried by g, not by a (which would be circular).
    mem = build(CASES[5][1])
    report = mem.retract("f")
    a = report.entry("a")
    assert a is not None and a.reason.surviving is not None
    assert a.reason.surviving.premises == ("b",)
    proof = mem.why("a")
    assert proof.step("b").by is not None and proof.step("b").by.premises == ("g",)


def test_negative_cycle_is_named() -> None:
    mem = build(CASES[8][1])
    report = mem.retract("x")
    a = report.entry("a")
    c = report.entry("c")
    assert a is not None and c is not None
    assert a.reason.cause == "negative_cycle" and a.reason.cycle == ("a", "b")
    assert c.reason.cause == "undefined_premise" and c.reason.undecided == ("a",)
    assert mem.undefined() == {"a", "b", "c"}


def test_action_grading_and_consequences() -> None:
    mem = build(CASES[9][1])
    report = mem.retract("f")
    assert report.consequences == {"e": "review", "p": "cancel"}
    e = report.entry("e")
    assert e is not None and e.new is Truth.false and e.decided_by.value == "policy"


def test_depth_and_depth_bound() -> None:
    chain: Graph = [("f", "fact", [], F)] + [
        (f"s{i}", "belief", [["f" if i == 1 else f"s{i - 1}"]], F) for i in range(1, 6)
    ]
    unbounded = build(chain).retract("f")
    assert [(e.id, e.depth, e.verdict.value) for e in unbounded.entries] == [
        (f"s{i}", i, "invalidated") for i in range(1, 6)
    ]
    mem = build(chain, max_depth=2)
    bounded = mem.retract("f")
    assert bounded.invalidated == ["s1", "s2"]
    # The walk stops one hop past the bound: s3 is flagged, s4 and s5 are not even read
    # (they rest on s3, and settling s3 carries the cascade on).
    assert bounded.needs_confirmation == ["s3"]
    assert {e.reason.cause for e in bounded.entries if e.depth > 2} == {"depth_limit"}
    assert (bounded.cone_size, bounded.solved) == (4, 3)
    assert mem.undefined() == {"s3"}
    assert mem.holding() == {"s4", "s5"}


def test_same_change_same_bytes() -> None:
    graph = CASES[8][1]
    a = build(graph).revise({"retract": ["x", "f"]}).to_json()
    b = build(list(reversed(graph[:2])) + graph[2:]).revise({"retract": ["f", "x"]}).to_json()
    assert a == b


def test_recovered_candidates_are_undecided_until_checked() -> None:
    mem = Memory()
    mem.fact("m1")
    mem.fact("m4")
    mem.plan("m5", context=["m1", "m4"])
    mem.plan("m6", because=[{"all": []}], context=["m1"])
    report = mem.retract("m1")
    m5 = report.entry("m5")
    assert m5 is not None and m5.verdict.value == "needs_confirmation"
    assert m5.reason.cause == "unverified_candidate" and m5.reason.undecided == ("m1",)
    # m6 has a declared justification without m1, so logic classified m1 as independent
    # when m6 was added: losing m1 does not touch m6
    assert report.entry("m6") is None and mem.truth("m6").value == "true"
    (recovered,) = [j for j in mem.justifications("m6") if j.origin.value == "recovered"]
    assert recovered.checked == {"m1": "independent"}
    assert "declared justification [] without m1" in recovered.notes["m1"]


def test_checked_candidates_count_as_decided() -> None:
    mem = Memory()
    mem.fact("m1")
    mem.fact("m4")
    mem._apply(  # checks as a judge records them (a caller may not: stategraph.provenance)
        Change.model_validate(
            {
                "assert": [{"id": "m5", "kind": "plan"}],
                "add_justifications": [
                    {
                        "head": "m5",
                        "premises": ["m1", "m4"],
                        "origin": "recovered",
                        "checked": {"m1": "dependency", "m4": "independent"},
                    }
                ],
            }
        )
    )
    assert mem.retract("m4").entries == ()  # independent: losing it changes nothing
    assert mem.retract("m1").invalidated == ["m5"]


def test_the_report_gives_its_bound_and_how_the_cone_was_solved() -> None:
    mem = Memory(candidates=None, max_depth=7)
    mem.fact("f")
    report = mem.belief("u", because=[{"all": ["f"], "unless": ["v"]}])
    assert (report.max_depth, report.method) == (7, "cone/stratified")
    report = mem.belief("v", because=[{"all": ["f"], "unless": ["u"]}])  # a negative cycle
    assert (report.max_depth, report.method) == (7, "cone/alternating")
    assert mem.undefined() == {"u", "v"}


def test_an_untouched_state_does_not_end_the_report() -> None:
    """y rests on x, which keeps holding through g: y is skipped, and z, after it in the
    report's order (depth, then id), is still graded."""
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.fact("g")
    mem.belief("x", because=["f", "g"])
    mem.belief("a", because=["f"])
    mem.belief("y", because=["x"])
    mem.belief("z", because=["a"])
    report = mem.retract("f")
    assert [(e.id, e.verdict.value, e.depth) for e in report.entries] == [
        ("a", "invalidated", 1),
        ("x", "kept", 1),
        ("z", "invalidated", 2),
    ]


def test_a_candidate_edge_is_decided_by_logic_when_its_head_is_defined_anyway() -> None:
    """x and y each rest on the unchecked candidate f; x also on the candidate g, which still
    holds. Once f goes, x holds whatever f meant to it (logic decided that edge); y is left
    undefined, its edge open for a judge."""
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.fact("g")
    mem.belief("x", context=["f"])
    mem.belief("y", context=["f"])
    also = Justification(head="x", premises=["g"], origin=Origin.recovered)
    mem.revise(Change(add_justifications=[also]))
    report = mem.retract("f")
    assert [(e.head, e.premise, e.decided_by) for e in report.edges] == [
        ("x", "f", DecidedBy.logic),
        ("y", "f", None),
    ]
    assert [(e.id, e.new.value) for e in report.entries] == [("x", "true"), ("y", "undefined")]


def test_every_justification_a_change_removes_drops_its_edges() -> None:
    """b loses ``b <- f`` and c loses ``c <- g`` in one change: neither edge is left in the
    store's index, so retracting f later walks f alone."""
    mem = Memory(candidates=None)
    for f in ("f", "g", "h"):
        mem.fact(f)
    mem.belief("b", because=["f", "h"])
    mem.belief("c", because=["g", "h"])
    gone = [Justification(head="b", premises=["f"]), Justification(head="c", premises=["g"])]
    mem.revise(Change(remove_justifications=gone))
    store = mem.store
    assert (store.heads_citing(["f"]), store.heads_citing(["g"])) == (set(), set())
    assert store.heads_citing(["h"]) == {"b", "c"}
    report = mem.retract("f")
    assert (report.cone_size, report.solved, report.entries) == (1, 1, ())
