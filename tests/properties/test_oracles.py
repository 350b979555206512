"""The oracles checked before they judge anything: tables, each other, and brute force.

Oracle (a) is checked three ways: hand-computed tables of the cases the contract names; equality
with pyDatalog (oracle (b)) on positive programs, the second opinion; and, on programs with
``unless``, the defining bracket of the well-founded model against brute-force stable models
(every stable model contains the true set and lies within true + undefined).
"""

from __future__ import annotations

from itertools import chain, combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stategraph.testing.graphs import Mirror, Scenario
from stategraph.testing.oracles.wfm import Model, Rule, well_founded_model
from stategraph.testing.strategies import programs, scenarios

from .oracles.datalog import datalog_least_model
from .oracles.grounded_links import RULES_DIR, grounded_links

TABLE: list[tuple[str, list[str], list[Rule], set[str], set[str]]] = [
    ("chain", ["f"], [("b", ["f"], []), ("p", ["b"], [])], {"f", "b", "p"}, set()),
    ("alternative support", ["f"], [("b", ["g"], []), ("b", ["f"], [])], {"f", "b"}, set()),
    ("dead positive cycle", [], [("a", ["b"], []), ("b", ["a"], [])], set(), set()),
    ("self loop", ["f"], [("a", ["a"], []), ("b", ["a", "f"], [])], {"f"}, set()),
    (
        "cycle with outside support",
        ["f"],
        [("a", ["b"], []), ("b", ["a"], []), ("a", ["f"], [])],
        {"f", "a", "b"},
        set(),
    ),
    ("default holds", ["f"], [("b", ["f"], ["x"])], {"f", "b"}, set()),
    ("default blocked", ["f", "x"], [("b", ["f"], ["x"])], {"f", "x"}, set()),
    ("even negative cycle", ["f"], [("a", ["f"], ["b"]), ("b", ["f"], ["a"])], {"f"}, {"a", "b"}),
    ("odd negative loop", ["f"], [("a", ["f"], ["a"])], {"f"}, {"a"}),
    (
        "undefined propagates",
        ["f"],
        [("a", ["f"], ["b"]), ("b", ["f"], ["a"]), ("c", ["a"], []), ("d", ["f"], ["c"])],
        {"f"},
        {"a", "b", "c", "d"},
    ),
    (
        "undefined premise, true alternative",
        ["f"],
        [("a", ["f"], ["b"]), ("b", ["f"], ["a"]), ("c", ["a"], []), ("c", ["f"], [])],
        {"f", "c"},
        {"a", "b"},
    ),
    (
        "stratified negation",
        ["f"],
        [("a", ["f"], ["b"]), ("b", ["c"], []), ("c", ["b"], [])],
        {"f", "a"},
        set(),
    ),
]


@pytest.mark.parametrize(
    ("facts", "rules", "true", "undefined"),
    [case[1:] for case in TABLE],
    ids=[case[0] for case in TABLE],
)
def test_wfm_table(
    facts: list[str], rules: list[Rule], true: set[str], undefined: set[str]
) -> None:
    """Hand-computed well-founded models of the cases the contract names."""
    assert well_founded_model(facts, rules) == Model(frozenset(true), frozenset(undefined))


@pytest.mark.parametrize(
    ("facts", "rules", "true"),
    [(c[1], c[2], c[3]) for c in TABLE if not any(r[2] for r in c[2])],
    ids=[c[0] for c in TABLE if not any(r[2] for r in c[2])],
)
def test_datalog_table(facts: list[str], rules: list[Rule], true: set[str]) -> None:
    """pyDatalog agrees with the hand-computed positive cases (so it is wired up right)."""
    assert datalog_least_model(facts, rules) == frozenset(true)


@settings(max_examples=60)
@given(programs(max_atoms=10, negation=False))
def test_wfm_equals_datalog_on_positive_programs(
    program: tuple[frozenset[str], list[Rule]],
) -> None:
    """Second opinion: on positive programs (self-loops included) (a) == (b), nothing undefined."""
    facts, rules = program
    model = well_founded_model(facts, rules)
    assert model.undefined == frozenset()
    assert model.true == datalog_least_model(facts, rules)


@settings(max_examples=40)
@given(scenarios(max_nodes=8, max_changes=2, negation=False))
def test_wfm_equals_datalog_on_positive_support_graphs(scenario: Scenario) -> None:
    """Second opinion on the same graphs the engine sees, after every change."""
    mirror = Mirror()
    for node, justs in scenario.nodes:
        mirror.add(node, justs)
    for step in [None, *scenario.steps()]:
        if step is not None:
            mirror.apply(step)
        model = mirror.model()
        assert model.undefined == frozenset()
        assert model.true == datalog_least_model(mirror.facts(), mirror.rules())


def _naive_least_model(facts: frozenset[str], rules: list[tuple[str, tuple[str, ...]]]) -> set[str]:
    """Least model by naive iteration (no worklist), for the brute-force check."""
    model = set(facts)
    while True:
        new = {h for h, body in rules if set(body) <= model} - model
        if not new:
            return model
        model |= new


def _stable_models(facts: frozenset[str], rules: list[Rule]) -> list[frozenset[str]]:
    """All stable models, by trying every candidate set (Gelfond-Lifschitz reduct)."""
    atoms = sorted(facts | {h for h, _, _ in rules})
    found = []
    subsets = chain.from_iterable(combinations(atoms, k) for k in range(len(atoms) + 1))
    for subset in subsets:
        candidate = frozenset(subset)
        reduct = [(h, tuple(p)) for h, p, u in rules if not set(u) & candidate]
        if _naive_least_model(facts, reduct) == candidate:
            found.append(candidate)
    return found


@settings(max_examples=150)
@given(programs(max_atoms=7, negation=True))
def test_wfm_brackets_every_stable_model(program: tuple[frozenset[str], list[Rule]]) -> None:
    """true <= every stable model <= true + undefined; a two-valued WFM is the stable model."""
    facts, rules = program
    model = well_founded_model(facts, rules)
    stable = _stable_models(facts, rules)
    for sm in stable:
        assert model.true <= sm <= model.true | model.undefined
    if not model.undefined:
        assert stable == [model.true]


@given(st.data())
@settings(max_examples=20)
def test_wfm_ignores_rule_and_fact_order(data: st.DataObject) -> None:
    """The oracle is a function of the program as a set (so shuffled builds can share it)."""
    facts, rules = data.draw(programs(max_atoms=8))
    shuffled = data.draw(st.permutations(rules))
    assert well_founded_model(sorted(facts, reverse=True), shuffled) == well_founded_model(
        facts, rules
    )


def _line(pack: str, rule: str) -> str:
    """``pack:line`` of the rule whose text starts with ``rule`` in a shipped pack."""
    text = (RULES_DIR / f"{pack}.lp").read_text(encoding="utf-8").splitlines()
    (n,) = [i for i, line in enumerate(text, 1) if line.startswith(rule)]
    return f"{pack}:{n}"


def test_the_grounded_link_oracle_on_hand_cases() -> None:
    """Oracle (e) on cases worked out by hand from the pack texts: a chain through an atom no
    state carries, a default's blocker, a date tied through ``next_date`` (a year-less one
    too), and a hard negative that links to nothing."""
    states = [
        ("m1", False, ['moves(user,shanghai,shenzhen,"2026-12")']),
        ("m2", True, ["commute_city(user,shenzhen)"]),
        ("m3", False, ["lives_in(user,shanghai)"]),
        ("m4", True, ["home_city(user,shanghai)"]),
        ("m5", True, ["prefers_cuisine(user,cantonese)"]),
        ("t1", False, ['trip(user,tokyo,"2026-05-10")']),
        ("t2", False, ['trip(user,osaka,"2026-06-20")']),
        ("c1", True, ['check_in(user,"2026-05-09")']),
        ("c2", True, ['check_in(user,"--06-19")']),
    ]
    found, _ = grounded_links(states, ["relocation", "scheduling"])
    move = 'atom:moves(user,shanghai,shenzhen,"2026-12")'
    home = "home_city(user,shenzhen)"
    expected = {
        (("m2", ("rule:commute_city(user,shenzhen)",), ()), ()),
        (
            ("rule:commute_city(user,shenzhen)", (f"atom:{home}",), ()),
            (_line("relocation", "commute_city(P,C) :- home_city("),),
        ),
        ((f"atom:{home}", (f"rule:{home}",), ()), ()),
        ((f"rule:{home}", (move,), ()), (_line("relocation", "home_city(P,C2) :- moves("),)),
        ((move, ("m1",), ()), ()),
        (("m4", ("rule:home_city(user,shanghai)",), ()), ()),
        (
            (
                "rule:home_city(user,shanghai)",
                ("atom:lives_in(user,shanghai)",),
                ("atom:relocating(user)",),
            ),
            (_line("relocation", "home_city(P,C) :- lives_in("),),
        ),
        (("c1", ('rule:check_in(user,"2026-05-09")',), ()), ()),
        (
            ('rule:check_in(user,"2026-05-09")', ('atom:trip(user,tokyo,"2026-05-10")',), ()),
            (_line("scheduling", "check_in(P,D) :- trip(P,_,E), next_date("),),
        ),
    }  # fmt: skip
    assert expected <= found
    assert not any(k[0] == "m5" for k, _ in found)  # a hard negative links to nothing
    # a state carrying the home city adds one justification to its node; m2 is as it was
    more, _ = grounded_links(
        [*states, ("m6", False, ["home_city(user,shenzhen)"])], ["relocation", "scheduling"]
    )
    assert more - found == {((f"atom:{home}", ("m6",), ()), ())}


def test_the_grounded_link_oracle_gives_every_instance_of_a_body_variable() -> None:
    """A transfer both limit tiers allow rests on either tier: the identity alone (standard)
    or the identity and the address (enhanced). The instances differ only in a variable
    the head does not have (``T``); clingo drops one when the input atoms come through its
    backend as choices, and the oracle once did."""
    states = [
        ("p0", False, ["identity_verified(user)"]),
        ("p1", False, ["address_verified(user)"]),
        ("p2", False, ["transfer_request(user,630,cny)"]),
        ("m1", True, ["scheduled_transfer(user,630,cny)"]),
    ]
    found, _ = grounded_links(states, ["finance"])
    scheduled = _line("finance", "scheduled_transfer(P,A,Cur) :-")
    request = "atom:transfer_request(user,630,cny)"
    node = "rule:scheduled_transfer(user,630,cny)"
    assert {k for k, rules in found if k[0] == node} == {
        (node, ("atom:account_limit(user,enhanced)", request), ()),
        (node, ("atom:account_limit(user,standard)", request), ()),
    }
    assert all(rules == (scheduled,) for k, rules in found if k[0].startswith("rule:scheduled"))
