"""Shared test configuration: the Hypothesis profiles.

``ci`` (the default) is bounded and derandomized, so every run tests the same examples and the
whole property suite fits in a few minutes on two cores; ``deep`` is the opt-in soak run
(>= 20,000 examples per property). Pick one with ``STATEGRAPH_HYPOTHESIS_PROFILE=deep``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
from backends import backend, parametrize_backends, place  # noqa: F401  (each backend in turn)
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=100,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "deep",
    max_examples=20_000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("STATEGRAPH_HYPOTHESIS_PROFILE", "ci"))

# No test grounds through a warm grounder this user may have running (``stategraph grounder
# start``): the CLI's commands would send it their texts. Those that test it start their own.
os.environ["STATEGRAPH_GROUNDER_SOCKET"] = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "no-warm-grounder", "grounder.sock"
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` are opt-in: they run only when ``-m`` selects them
    (``python -m pytest -m slow``); the default run, CI's, skips them."""
    if "slow" in str(config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="opt-in: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each store backend in turn for the tests that take one (:mod:`backends`)."""
    parametrize_backends(metafunc)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker hands its tally of what the examples reached to the controller,
    which prints the summary (:func:`pytest_testnodedown`)."""
    output = getattr(session.config, "workeroutput", None)
    reach = sys.modules.get("stategraph.testing.reach")
    if output is not None and reach is not None:
        output["reach"] = [[family, feature, n] for (family, feature), n in reach.TALLY.items()]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """Add a finished pytest-xdist worker's tally to the controller's."""
    tally = getattr(node, "workeroutput", {}).get("reach")
    if tally:
        from stategraph.testing import reach

        reach.TALLY.update({(family, feature): n for family, feature, n in tally})


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how many tests passed on Citus (``tests/backends.py``), and what the generated
    examples reached (``stategraph.testing.reach``): a property that passes on examples whose
    changes move nothing proves little."""
    on_citus = [
        r.nodeid
        for r in terminalreporter.stats.get("passed", [])
        if "[citus" in r.nodeid or "test_citus.py" in r.nodeid
    ]
    if on_citus:
        terminalreporter.write_sep("-", f"{len(on_citus)} tests passed on the Citus cluster")
    reach = sys.modules.get("stategraph.testing.reach")
    lines = reach.summary() if reach is not None else []
    if lines:
        terminalreporter.write_sep("-", "what the property examples reached")
        for line in lines:
            terminalreporter.write_line(line)
