"""Fixtures for the picture tests: the seed scenario and the every-edge store on disk, and a
real headless Chromium for the HTML page.

Tests that need Graphviz or Chromium skip, saying what to install, where they are missing
(``.ci/run`` installs both, so CI runs them). Tests marked ``screenshot`` write PNG files and
are opt-in: ``python -m pytest -m screenshot tests/pictures``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stategraph.memory import Memory
from tests.pictures.scenes import every_edge, seed

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
BROWSER_FLAGS = (
    # as root Chromium refuses to start sandboxed; the rest keeps it off the (closed) network
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,900",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "screenshot" in str(config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="opt-in: writes screenshots; run with -m screenshot")
    for item in items:
        if "screenshot" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def demo_store(tmp_path: Path) -> Path:
    """The seed scenario's store, as ``stategraph demo`` builds it (revision 5 supersedes m1)."""
    return seed(tmp_path / "demo.db")


@pytest.fixture
def rich_memory(tmp_path: Path) -> Iterator[Memory]:
    """The every-edge store, open (revision 11 asserts f3)."""
    mem = every_edge(tmp_path / "rich.db")
    yield mem
    mem.close()


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the session, driven through chromedriver by Selenium."""
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(
            "needs Chromium and ChromeDriver: apt-get install chromium chromium-driver "
            "(.ci/run installs them)"
        )
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (test extra)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*BROWSER_FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    yield driver
    driver.quit()
