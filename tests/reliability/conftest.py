"""Tests marked ``slow`` here are opt-in: they run only when ``-m`` selects them
(``python -m pytest -m slow tests/reliability``); the default run skips them."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in str(config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="opt-in soak: run with -m slow")
    for item in items:
        if "slow" in item.keywords and _HERE in Path(str(item.path)).parents:
            item.add_marker(skip)
