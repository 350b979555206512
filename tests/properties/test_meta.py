"""The suite can fail: the core property must catch each deliberately wrong engine.

A property suite that passes on a broken engine proves nothing. Here the core property
(:func:`~stategraph.testing.harness.check_core`: holding and undefined sets equal the oracle's
well-founded model after every step) runs against each engine in :mod:`.wrong_engines`, with a
fixed number of derandomized examples, and must be falsified. The graphs are positive (no
``unless``): neither wrong engine computes undefined states, and on negative rings that alone
would falsify them; on positive graphs only the flaw each one stands for can (and on generic
graphs: the strategies' anchored shapes are left out). The shrunk counterexample is printed
(see it with ``pytest -s`` or ``-rA``), and must be small: shrinking is what makes a failure
readable.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, given, settings

from stategraph.testing.graphs import Scenario
from stategraph.testing.harness import EngineFactory, check_core
from stategraph.testing.strategies import scenarios

from .wrong_engines import WRONG_ENGINES

META_EXAMPLES = 300
"""Fixed budget per wrong engine, whatever the profile: the meta-test must be reproducible."""

FALSIFY = settings(
    max_examples=META_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
    print_blob=False,
    report_multiple_bugs=False,
)
"""How a test that must falsify a property runs (here, and for ``tests/testing``): the fixed
budget, the same examples every run, shrinking on, one failure reported."""

FLAW_SIGNS = {
    "wrong:supported-model": "oracle-only []",  # keeps states the WFM drops: a dead cycle
    "wrong:no-alternatives": "engine-only []",  # drops states the WFM keeps: lost alternative
}


@pytest.mark.parametrize("name", sorted(WRONG_ENGINES))
def test_core_property_falsifies_wrong_engine(name: str) -> None:
    """Hypothesis finds, and shrinks, a scenario on which the wrong engine breaks the core
    property."""
    factory: EngineFactory = WRONG_ENGINES[name]
    failing: list[Scenario] = []

    @FALSIFY
    @given(scenarios(negation=False, gadgets=False))
    def core_property(scenario: Scenario) -> None:
        try:
            check_core(factory, scenario)
        except AssertionError:
            failing.append(scenario)
            raise

    with pytest.raises(AssertionError) as caught:
        core_property()
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    shrunk = failing[-1]  # Hypothesis replays the shrunk example last
    print(f"\n[{name}] falsified; shrunk counterexample:\n{shrunk!r}\n{caught.value}\n{notes}")
    assert "Scenario(" in notes, "Hypothesis did not report the falsifying example"
    assert FLAW_SIGNS[name] in str(caught.value), f"not the flaw {name} stands for"
    assert len(shrunk.nodes) <= 4, f"shrinking left a large example:\n{shrunk!r}"
