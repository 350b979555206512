"""The HTML page in a real headless Chromium: it loads with no console error, draws every
state, a click shows a state's proof, why-not and verdict, and a memory's ``<script>`` never
runs.

The browser is Debian's ``chromium`` driven by its ``chromedriver`` through Selenium (the
``browser`` fixture); without them these tests skip, saying what to install.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from stategraph.engine.policy import KindPolicy, Policy
from stategraph.memory import Memory
from stategraph.pictures import draw
from tests.pictures.scenes import HOSTILE


def _page(tmp_path: Path, memory: Memory, revision: int, name: str = "page.html") -> str:
    path = tmp_path / name
    path.write_text(draw(memory, "html", revision=revision), encoding="utf-8")
    return path.as_uri()


def _open(browser: Any, url: str) -> None:
    browser.get("about:blank")
    browser.get_log("browser")  # drop what came before
    browser.get(url)


def _errors(browser: Any) -> list[dict[str, Any]]:
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _click(browser: Any, state_id: str) -> str:
    from selenium.webdriver.common.by import By

    browser.find_element(By.CSS_SELECTOR, f'g.state[data-id="{state_id}"]').click()
    panel = browser.find_element(By.ID, "panel")
    assert panel.get_attribute("data-id") == state_id
    return str(panel.text)


def _drawn(browser: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return sorted(
        str(g.get_attribute("data-id")) for g in browser.find_elements(By.CSS_SELECTOR, "g.state")
    )


def test_the_demo_page_loads_and_a_click_on_m3_shows_why_it_was_cancelled(
    browser: Any, demo_store: Path, tmp_path: Path
) -> None:
    with Memory(demo_store, create=False) as mem:
        url = _page(tmp_path, mem, 5)
    _open(browser, url)
    assert _errors(browser) == []
    assert _drawn(browser) == ["m1", "m1b", "m2", "m3", "m4"]
    assert browser.find_element("id", "title").text == "demo.db, revision 5"
    panel = _click(browser, "m3")
    for words in (
        "Scheduled to-do: cancel the home broadband before the move",
        "invalidated, decided by logic, 1 hop from the change",
        "consequence: cancel this pending action",
        "why: no justification holds; lost [m1] (declared): m1 no longer true",
        "[m1] (declared): does not hold; lost in this revision",
        "It does not hold now.",  # no proof: it does not hold
        "m3 is false: unsupported",  # why-not
        "<- [m1] (declared): premise m1 does not hold",
    ):
        assert words in panel, (words, panel)
    panel = _click(browser, "m4")  # the hard negative: untouched, and its proof
    assert "m4 [fact] The user prefers Cantonese food  (fact)" in panel
    assert "In this revision".upper() not in panel.upper()
    assert _errors(browser) == []


def test_a_link_to_a_state_opens_its_panel(browser: Any, demo_store: Path, tmp_path: Path) -> None:
    with Memory(demo_store, create=False) as mem:
        url = _page(tmp_path, mem, 5)
    _open(browser, url + "#m2")
    panel = browser.find_element("id", "panel")
    assert panel.get_attribute("data-id") == "m2" and "invalidated" in panel.text
    assert _errors(browser) == []


def test_a_neighbourhood_opens_on_its_state(browser: Any, demo_store: Path, tmp_path: Path) -> None:
    path = tmp_path / "around.html"
    with Memory(demo_store, create=False) as mem:
        path.write_text(draw(mem, "html", around="m3", hops=1), encoding="utf-8")
    _open(browser, path.as_uri())
    assert _drawn(browser) == ["m1", "m3"]
    assert browser.find_element("id", "panel").get_attribute("data-id") == "m3"
    assert "1 more next to these not drawn" in browser.find_element("id", "scope").text
    assert _errors(browser) == []


def test_a_memorys_script_never_runs(browser: Any, rich_memory: Memory, tmp_path: Path) -> None:
    mem = Memory(rich_memory.store.path, policy=Policy().with_kind("goal", KindPolicy()))
    url = _page(tmp_path, mem, 11)
    mem.close()
    _open(browser, url)
    assert _errors(browser) == []
    assert browser.execute_script("return window.pwned === undefined")
    assert browser.execute_script("return document.images.length") == 0
    assert browser.execute_script("return document.scripts.length") == 2
    panel = _click(browser, "g1")
    assert browser.find_element("css selector", "#panel blockquote").text == HOSTILE
    assert "g1 [goal] <script>" in panel  # the proof shows it as text too
    panel = _click(browser, "x1")
    assert "consequence: review this executed action" in panel
    panel = _click(browser, "a2")
    assert "confirmed by alice: seen on the train: holds" in panel
    assert browser.execute_script("return window.pwned === undefined")
    assert _errors(browser) == []


@pytest.mark.screenshot
def test_screenshot(browser: Any, demo_store: Path, rich_memory: Memory, tmp_path: Path) -> None:
    out = Path(os.environ.get("STATEGRAPH_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    with Memory(demo_store, create=False) as mem:
        _open(browser, _page(tmp_path, mem, 5, "demo.html"))
    _click(browser, "m3")
    assert browser.save_screenshot(str(out / "demo-page.png"))
    assert (out / "demo-page.png").read_bytes().startswith(b"\x89PNG")
