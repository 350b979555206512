"""The logic layer as a table: normal program -> well-founded model."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from stategraph.engine.logic import (
    IncrementalProgram,
    Program,
    Rule,
    negative_components,
    path_of,
    propagated,
    well_founded,
)

R = Rule
TABLE = [
    ("empty", Program(), set(), set(), "stratified"),
    ("facts only", Program(["a", "b"]), {"a", "b"}, set(), "stratified"),
    (
        "chain",
        Program(["a"], [R("b", ("a",)), R("c", ("b",))]),
        {"a", "b", "c"},
        set(),
        "stratified",
    ),
    (
        "positive loop is unfounded",
        Program([], [R("a", ("b",)), R("b", ("a",))]),
        set(),
        set(),
        "stratified",
    ),
    ("default holds", Program([], [R("a", (), ("x",))]), {"a"}, set(), "stratified"),
    ("default blocked", Program(["x"], [R("a", (), ("x",))]), {"x"}, set(), "stratified"),
    ("self negation", Program([], [R("p", (), ("p",))]), set(), {"p"}, "alternating"),
    (
        "even negative loop",
        Program([], [R("a", (), ("b",)), R("b", (), ("a",)), R("c", ("a",))]),
        set(),
        {"a", "b", "c"},
        "alternating",
    ),
    (
        "negative loop broken from outside",
        Program(["x"], [R("a", (), ("b", "x")), R("b", (), ("a",))]),
        {"x", "b"},
        set(),
        "alternating",
    ),
    (
        "odd loop with an escape",
        Program(
            ["e"], [R("a", (), ("b",)), R("b", (), ("c",)), R("c", (), ("a",)), R("a", ("e",))]
        ),
        {"e", "a", "b"},
        set(),
        "alternating",
    ),
    (
        "undefined does not make true",
        Program([], [R("u", (), ("u",)), R("a", ("u",)), R("b", (), ("u",))]),
        set(),
        {"u", "a", "b"},
        "alternating",
    ),
]


@pytest.mark.parametrize("via", ["backend", "encoding"])
@pytest.mark.parametrize(
    ("program", "true", "undefined", "path"), [pytest.param(*r[1:], id=r[0]) for r in TABLE]
)
def test_well_founded(
    program: Program, true: set[str], undefined: set[str], path: str, via: str
) -> None:
    model = well_founded(program, via=via)
    assert model.true == true
    assert model.undefined == undefined
    assert model.path == path


def test_nodes_need_not_be_strings() -> None:
    model = well_founded(Program([("x", 1)], [R(("y", 2), (("x", 1),))]))
    assert model.true == {("x", 1), ("y", 2)}


def rules_over(top: int) -> st.SearchStrategy[list[tuple[int, list[int], list[int]]]]:
    """Up to 14 rules ``(head, premises, unless)`` with heads 0-7, citing nodes 0-``top``
    (above 7: nodes cited but never derived)."""
    return st.lists(
        st.tuples(
            st.integers(0, 7),
            st.lists(st.integers(0, top), max_size=3),
            st.lists(st.integers(0, top), max_size=2),
        ),
        max_size=14,
    )


FACTS = st.lists(st.integers(0, 7), max_size=3)


@given(rules_over(7), FACTS)
def test_backend_and_encoding_agree(
    rules: list[tuple[int, list[int], list[int]]], facts: list[int]
) -> None:
    program = Program(facts, [Rule(h, tuple(p), tuple(n)) for h, p, n in rules])
    a = well_founded(program, via="backend")
    b = well_founded(program, via="encoding")
    assert (a.true, a.undefined) == (b.true, b.undefined)


@given(rules_over(9), FACTS)
def test_propagating_first_gives_the_same_model(
    rules: list[tuple[int, list[int], list[int]]], facts: list[int]
) -> None:
    """Settling in Python what the facts give before clingo solves the rest changes neither
    the model nor the path it reports (nodes 8 and 9 are cited but never derived)."""
    program = Program(facts, [Rule(h, tuple(p), tuple(n)) for h, p, n in rules])
    plain = well_founded(program)
    assert _propagating_first(program) == (plain.true, plain.undefined, plain.path)


def _propagating_first(program: Program) -> tuple[frozenset[object], frozenset[object], str]:
    settled, rest = propagated(program)
    model = well_founded(rest)
    assert settled.isdisjoint(model.true | model.undefined)
    return settled | model.true, model.undefined, path_of(program)


@pytest.mark.parametrize(
    ("program", "true", "undefined", "path"), [pytest.param(*r[1:], id=r[0]) for r in TABLE]
)
def test_propagating_first_keeps_the_table(
    program: Program, true: set[str], undefined: set[str], path: str
) -> None:
    assert _propagating_first(program) == (true, undefined, path)


@given(rules_over(9), FACTS)
@example(rules=[(3, [2], []), (2, [1], []), (1, [0], [])], facts=[0])  # a chain listed backwards
def test_propagating_settles_what_the_facts_give_and_leaves_the_rest_reduced(
    rules: list[tuple[int, list[int], list[int]]], facts: list[int]
) -> None:
    """What :func:`propagated` settles and leaves, against a naive fixpoint written here.

    The model alone cannot tell (clingo solves whatever is left, so a propagation that
    settled less would give the same model, only slower): settled are exactly the nodes the
    facts make true through rules whose every ``not`` names a node no rule or fact defines;
    left are the other rules citing only defined nodes, whose head is not settled and no
    ``not`` of which a settled node defeats, without their settled premises and undefined
    ``not`` nodes."""
    program = Program(facts, [Rule(h, tuple(p), tuple(n)) for h, p, n in rules])
    defined = {*facts, *(h for h, _, _ in rules)}
    firm = [(h, pos) for h, pos, neg in rules if set(pos) <= defined and not set(neg) & defined]
    true = set(facts)
    while grown := {h for h, pos in firm if h not in true and set(pos) <= true}:
        true |= grown
    left = [
        Rule(h, tuple(q for q in pos if q not in true), tuple(u for u in neg if u in defined))
        for h, pos, neg in rules
        if set(pos) <= defined and h not in true and not set(neg) & true
    ]
    settled, rest = propagated(program)
    assert settled == true
    assert rest == Program([], left)


def test_a_program_the_facts_settle_needs_no_solve() -> None:
    program = Program(["f"], [R("a", ("f",)), R("b", ("a",), ("c",)), R("a", (), ("b",))])
    settled, rest = propagated(program)
    assert (settled, rest) == ({"f", "a", "b"}, Program())


def test_unknown_path_is_refused() -> None:
    with pytest.raises(ValueError, match="via"):
        well_founded(Program(["a"]), via="magic")


@pytest.mark.parametrize(
    ("program", "components"),
    [
        pytest.param(Program(["x"], [R("a", (), ("x",))]), [], id="unless on a fact"),
        pytest.param(
            Program([], [R("a", ("b",), ("b",)), R("c", (), ("a",))]), [], id="no way back"
        ),
        pytest.param(Program([], [R("p", (), ("p",))]), [{"p"}], id="self negation"),
        pytest.param(
            Program([], [R("a", (), ("b",)), R("b", ("a",)), R("c", (), ("a",))]),
            [{"a", "b"}],
            id="loop through one unless",
        ),
        pytest.param(
            Program([], [R("a", ("b",)), R("b", ("a",)), R("c", (), ("a",))]),
            [],
            id="positive loop",
        ),
    ],
)
def test_negative_components(program: Program, components: list[set[str]]) -> None:
    assert [set(c) for c in negative_components(program)] == components


@pytest.mark.parametrize("via", ["backend", "encoding"])
def test_the_model_says_how_many_solves_it_took(via: str) -> None:
    """An empty program takes none, a stratified one one; the alternating fixpoint two per
    round, and the even negative cycle ``a :- f, not b. b :- f, not a.`` two rounds (the
    second finds the underestimate it started from)."""
    assert well_founded(Program(), via=via).solves == 0
    assert well_founded(Program(["f"], [R("a", ("f",))]), via=via).solves == 1
    cycle = Program(["f"], [R("a", ("f",), ("b",)), R("b", ("f",), ("a",))])
    model = well_founded(cycle, via=via)
    assert (model.path, model.solves, model.undefined) == ("alternating", 4, {"a", "b"})


def test_the_bulk_loader_s_program_iterates_to_the_fixpoint() -> None:
    """``s0.`` and ``sk :- not s(k-1)``: each link of the chain needs one more round of the
    alternating fixpoint, and the model alternates true, false, true, ... to the end. A
    negative cycle on the side (``u :- not v``, ``v :- not u``) stays undefined."""
    n = 6
    program = IncrementalProgram(n + 2)
    program.fact(0)
    for k in range(1, n):
        program.rule(k, [], [k - 1])
    program.rule(n, [], [n + 1])
    program.rule(n + 1, [], [n])
    true, undefined = program.solve()
    assert true == [k % 2 == 0 for k in range(n)] + [False, False]
    assert undefined == [False] * n + [True, True]
