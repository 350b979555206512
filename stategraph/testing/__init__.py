"""Property-test a memory with Hypothesis: strategies, from-scratch oracles, ready properties.

The machinery stategraph's own property suite holds the engine to, public so that a user can
hold *their* memory (their policy, rule packs, grounder) to the same contract in a few lines:

- :mod:`~stategraph.testing.strategies`: support graphs with alternative justifications,
  positive and negative cycles and ``unless`` defaults, and valid changes to them;
- :mod:`~stategraph.testing.graphs`: the plain-data mirror of a memory, which models the
  contract (what a memory must contain after each change: assumptions and their stand-ins);
- :mod:`~stategraph.testing.oracles`: the well-founded model by the alternating fixpoint in
  plain Python, every field of a report, and the model of a memory's recorded justifications;
- :mod:`~stategraph.testing.harness` and :mod:`~stategraph.testing.engine`: replay a scenario
  on an engine, and the adapter to a real :class:`~stategraph.Memory`;
- :mod:`~stategraph.testing.properties`: the ready properties (well-founded oracle, locality,
  determinism, incremental = rebuild), each one call inside your own ``@given`` test, for a
  memory made by your own factory.

Hypothesis is needed here only (``pip install "stategraph[testing]"``); nothing else in
stategraph imports this package.
"""

from __future__ import annotations

try:
    import hypothesis  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'stategraph.testing needs Hypothesis: pip install "stategraph[testing]"'
    ) from exc

from stategraph.testing.engine import MemoryFactory, StategraphEngine, kinds_for, rebuild
from stategraph.testing.graphs import ChangeSpec, Just, Mirror, Node, Scenario, hop_distances
from stategraph.testing.harness import Engine, assert_matches_oracle, build, check_core, replay
from stategraph.testing.oracles.program import assert_follows_recorded_program, recorded_model
from stategraph.testing.oracles.wfm import Model, well_founded_model
from stategraph.testing.properties import (
    PROPERTIES,
    Property,
    assert_links_from_scratch,
    assert_rebuild_agrees,
    check_determinism,
    check_locality,
    check_oracle,
    check_rebuild,
)
from stategraph.testing.strategies import programs, scenarios

__all__ = [
    "PROPERTIES",
    "ChangeSpec",
    "Engine",
    "Just",
    "MemoryFactory",
    "Mirror",
    "Model",
    "Node",
    "Property",
    "Scenario",
    "StategraphEngine",
    "assert_follows_recorded_program",
    "assert_links_from_scratch",
    "assert_matches_oracle",
    "assert_rebuild_agrees",
    "build",
    "check_core",
    "check_determinism",
    "check_locality",
    "check_oracle",
    "check_rebuild",
    "hop_distances",
    "kinds_for",
    "programs",
    "rebuild",
    "recorded_model",
    "replay",
    "scenarios",
    "well_founded_model",
]
