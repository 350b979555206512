"""The engine-adapter protocol and the core property, shared by real and wrong engines.

Every property that only needs "what holds now" is written against :class:`Engine`, so the same
check runs against the real stategraph engine (:mod:`stategraph.testing.engine`) and against
any other: the project's own suite runs it against deliberately wrong engines
(``tests/properties/wrong_engines.py``), to show that the core property fails on each of them.
A suite that passes on a wrong engine proves nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from stategraph.testing.graphs import ChangeSpec, Just, Mirror, Node, Scenario


class Engine(Protocol):
    """The smallest surface the core property needs from an engine."""

    name: str

    def add(self, node: Node, justs: Sequence[Just]) -> object:
        """Add a new state with its justifications (premises already exist); returns the
        engine's report, if it makes one."""

    def revise(self, change: ChangeSpec) -> object:
        """Apply one change atomically; returns the engine's report, if it makes one."""

    def holding(self) -> frozenset[str]:
        """Ids of the states that are true."""

    def undefined(self) -> frozenset[str]:
        """Ids of the states that are undefined (neither true nor false)."""

    def close(self) -> None:
        """Release resources."""


EngineFactory = Callable[[], Engine]
StepCheck = Callable[[Engine, Mirror, str], None]


def build(engine: Engine, scenario: Scenario, check: StepCheck | None = None) -> Mirror:
    """Add the scenario's states in order; return the mirror of the result."""
    mirror = Mirror()
    for node, justs in scenario.nodes:
        engine.add(node, justs)
        mirror.add(node, justs)
        if check is not None:
            check(engine, mirror, f"after adding {node!r}")
    return mirror


def replay(engine: Engine, scenario: Scenario, check: StepCheck | None = None) -> Mirror:
    """Build the scenario, then apply its extra edges and changes, checking after every step."""
    mirror = build(engine, scenario, check)
    for step in scenario.steps():
        engine.revise(step)
        mirror.apply(step)
        if check is not None:
            check(engine, mirror, f"after {step!r}")
    return mirror


def assert_matches_oracle(engine: Engine, mirror: Mirror, where: str) -> None:
    """The core property: the engine's true and undefined sets are the oracle's WFM."""
    model = mirror.model()
    holding, undefined = engine.holding(), engine.undefined()
    assert holding == model.true, (
        f"{engine.name} {where}: holding set differs from the well-founded model; "
        f"engine-only {sorted(holding - model.true)}, oracle-only {sorted(model.true - holding)}"
    )
    assert undefined == model.undefined, (
        f"{engine.name} {where}: undefined set differs from the well-founded model; "
        f"engine {sorted(undefined)}, oracle {sorted(model.undefined)}"
    )


def check_core(factory: EngineFactory, scenario: Scenario) -> None:
    """Run the scenario on a fresh engine and compare with the oracle after every step."""
    engine = factory()
    try:
        replay(engine, scenario, assert_matches_oracle)
    finally:
        engine.close()
