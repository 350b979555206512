"""Property-test your own rule pack with ``stategraph.testing``.

``subscriptions.lp`` (beside this file) is a user's rule pack: a subscription renews unless
cancelled, a renewal is charged to the card on file. Hypothesis generates memories whose
states carry that pack's atoms (so the pack links them) together with declared
justifications, cycles and ``unless`` defaults, changes them, and each ready property is
checked on a memory made the way the user makes theirs.

Run: ``python examples/test_my_rule_pack.py`` (or ``pytest examples/test_my_rule_pack.py``).
Needs the testing extra: ``pip install "stategraph[testing]"``.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings

from stategraph import Memory
from stategraph.testing import (
    Scenario,
    check_determinism,
    check_locality,
    check_oracle,
    check_rebuild,
    scenarios,
)

PACK = Path(__file__).with_name("subscriptions.lp")
ATOMS = [
    "subscribed(ana,news)",
    "cancelled(ana,news)",
    "card_on_file(ana)",
    "renews(ana,news)",
    "charge(ana,news)",
    "subscribed(ana,gym)",
    "renews(ana,gym)",
]
EXAMPLES = 50


def my_memory() -> Memory:
    """A fresh memory configured as mine is: my rule pack, no candidate proposal."""
    return Memory(rules=[str(PACK)], candidates=None)


# Bounded and derandomized: the same 50 examples on every run, no example database written.
checked = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None)
my_scenarios = scenarios(atoms=ATOMS, max_nodes=8)


@checked
@given(my_scenarios)
def test_holds_the_well_founded_model(scenario: Scenario) -> None:
    check_oracle(scenario, my_memory)


@checked
@given(my_scenarios)
def test_touches_nothing_outside_the_cone(scenario: Scenario) -> None:
    check_locality(scenario, my_memory)


@checked
@given(my_scenarios)
def test_reports_are_deterministic(scenario: Scenario) -> None:
    check_determinism(scenario, my_memory)


@checked
@given(my_scenarios)
def test_incremental_equals_rebuild(scenario: Scenario) -> None:
    check_rebuild(scenario, my_memory)


if __name__ == "__main__":
    properties = [
        test_holds_the_well_founded_model,
        test_touches_nothing_outside_the_cone,
        test_reports_are_deterministic,
        test_incremental_equals_rebuild,
    ]
    for prop in properties:
        prop()
    print(f"{len(properties)} properties held on {EXAMPLES} examples each")
