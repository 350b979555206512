"""The ready properties hold on the real engine and fail on deliberately wrong memories.

A property that passes on a broken memory proves nothing, so each one is run twice: on the
real engine (a plain memory, and a user's own configuration: kinds of their own, a rule pack
of their own given by path, states carrying its atoms), where it must hold on every generated
scenario, and against the wrong memory it exists to catch (:mod:`.wrong_memories`), where
Hypothesis must find a scenario that breaks it, with the property's own message.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from properties.test_meta import FALSIFY  # tests/ is on the path (conftest)

from stategraph import KindPolicy, Memory, Policy
from stategraph.testing import (
    PROPERTIES,
    MemoryFactory,
    Property,
    Scenario,
    check_determinism,
    check_locality,
    check_oracle,
    check_rebuild,
    scenarios,
)

from .wrong_memories import NumberedMemory, SimilarityMemory, StickyMemory, SupportedModelMemory

PACK = """\
%*! subscribed(P,S): P subscribes to service S. *%
%*! cancelled(P,S): P cancelled service S. *%
%*! renew(P,S): renew P's subscription to S. *%
renew(P,S) :- subscribed(P,S), not cancelled(P,S).
%*! remind(P,S): remind P before S renews. *%
remind(P,S) :- renew(P,S).
"""
ATOMS = (
    "subscribed(u,tv)",
    "cancelled(u,tv)",
    "renew(u,tv)",
    "remind(u,tv)",
    "subscribed(u,gym)",
    "renew(u,gym)",
)
POLICY = Policy(
    {
        "observation": KindPolicy(exogenous=True),
        "inference": KindPolicy(),
        "task": KindPolicy(action=True),
    }
)


@pytest.fixture(scope="module")
def own_memory(tmp_path_factory: pytest.TempPathFactory) -> MemoryFactory:
    """A user's configuration: their kinds, their rule pack file, no candidate proposal."""
    pack = tmp_path_factory.mktemp("pack") / "subscriptions.lp"
    pack.write_text(PACK, encoding="utf-8")
    return lambda: Memory(policy=POLICY, rules=[str(pack)], candidates=None)


def test_every_property_is_listed() -> None:
    assert list(PROPERTIES.items()) == [
        ("well-founded oracle", check_oracle),
        ("locality", check_locality),
        ("determinism", check_determinism),
        ("incremental = rebuild", check_rebuild),
    ]


@pytest.mark.parametrize("name", sorted(PROPERTIES))
@given(scenario=scenarios())
def test_each_property_holds_on_a_plain_memory(name: str, scenario: Scenario) -> None:
    PROPERTIES[name](scenario, None)


@pytest.mark.parametrize("name", sorted(PROPERTIES))
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scenario=scenarios(atoms=ATOMS))
def test_each_property_holds_on_a_users_own_memory(
    name: str, scenario: Scenario, own_memory: MemoryFactory
) -> None:
    """Their kinds, their rules linking generated states through the atoms they carry."""
    PROPERTIES[name](scenario, own_memory)


def test_the_users_rules_take_part(own_memory: MemoryFactory) -> None:
    """The scenarios with atoms do exercise the pack: the memory records rule links."""
    mem = own_memory()
    mem.add({"id": "f", "kind": "observation", "atoms": ["subscribed(u,tv)"]})
    mem.add({"id": "a", "kind": "task", "status": "pending", "atoms": ["renew(u,tv)"]})
    assert [j.premises for j in mem.justifications("a")] == [("rule:renew(u,tv)",)]
    assert [j.rules for j in mem.justifications("rule:renew(u,tv)")] == [("subscriptions:4",)]


WRONG: dict[str, tuple[Property, Callable[[], Memory], str]] = {
    "supported model": (check_oracle, SupportedModelMemory, "differs from the recorded program"),
    "similarity": (check_locality, SimilarityMemory, "outside the cone of the change moved"),
    "numbered reports": (check_determinism, NumberedMemory, "differs between two identical"),
    "sticky": (check_rebuild, StickyMemory, "holding set differs from a rebuild"),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_property_fails_on_its_wrong_memory(name: str) -> None:
    """Hypothesis finds, within a fixed budget, a scenario the wrong memory breaks the
    property on, and the failure is the property's own (not an error on the way)."""
    check, factory, message = WRONG[name]

    @FALSIFY
    @given(scenarios())
    def prop(scenario: Scenario) -> None:
        check(scenario, factory)

    with pytest.raises(AssertionError, match=message):
        prop()


def test_without_hypothesis_the_import_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "try:\n    import stategraph.testing\n"
        "except ImportError as exc:\n    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert 'pip install "stategraph[testing]"' in done.stdout
