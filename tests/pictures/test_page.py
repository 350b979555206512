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
from tests.pictures.browsing import click, drawn, errors, open_page
from tests.pictures.scenes import HOSTILE


def _page(tmp_path: Path, memory: Memory, revision: int, name: str = "page.html") -> str:
    path = tmp_path / name
    path.write_text(draw(memory, "html", revision=revision), encoding="utf-8")
    return path.as_uri()


def test_the_demo_page_loads_and_a_click_on_m3_shows_why_it_was_cancelled(
    browser: Any, demo_store: Path, tmp_path: Path
) -> None:
    with Memory(demo_store, create=False) as mem:
        url = _page(tmp_path, mem, 5)
    open_page(browser, url)
    assert errors(browser) == []
    assert drawn(browser) == ["m1", "m1b", "m2", "m3", "m4"]
    assert browser.find_element("id", "title").text == "demo.db, revision 5"
    panel = click(browser, "m3")
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
    panel = click(browser, "m4")  # the hard negative: untouched, and its proof
    assert "m4 [fact] The user prefers Cantonese food  (fact)" in panel
    assert "In this revision".upper() not in panel.upper()
    assert errors(browser) == []


def test_a_link_to_a_state_opens_its_panel(browser: Any, demo_store: Path, tmp_path: Path) -> None:
    with Memory(demo_store, create=False) as mem:
        url = _page(tmp_path, mem, 5)
    open_page(browser, url + "#m2")
    panel = browser.find_element("id", "panel")
    assert panel.get_attribute("data-id") == "m2" and "invalidated" in panel.text
    assert errors(browser) == []


def test_a_neighbourhood_opens_on_its_state(browser: Any, demo_store: Path, tmp_path: Path) -> None:
    path = tmp_path / "around.html"
    with Memory(demo_store, create=False) as mem:
        path.write_text(draw(mem, "html", around="m3", hops=1), encoding="utf-8")
    open_page(browser, path.as_uri())
    assert drawn(browser) == ["m1", "m3"]
    assert browser.find_element("id", "panel").get_attribute("data-id") == "m3"
    assert "1 more next to these not drawn" in browser.find_element("id", "scope").text
    assert errors(browser) == []


def test_a_memorys_script_never_runs(browser: Any, rich_memory: Memory, tmp_path: Path) -> None:
    mem = Memory(rich_memory.store.path, policy=Policy().with_kind("goal", KindPolicy()))
    url = _page(tmp_path, mem, 11)
    mem.close()
    open_page(browser, url)
    assert errors(browser) == []
    assert browser.execute_script("return window.pwned === undefined")
    assert browser.execute_script("return document.images.length") == 0
    assert browser.execute_script("return document.scripts.length") == 2
    panel = click(browser, "g1")
    assert browser.find_element("css selector", "#panel blockquote").text == HOSTILE
    assert "g1 [goal] <script>" in panel  # the proof shows it as text too
    panel = click(browser, "x1")
    assert "consequence: review this executed action" in panel
    panel = click(browser, "a2")
    assert "confirmed by alice: seen on the train: holds" in panel
    assert browser.execute_script("return window.pwned === undefined")
    assert errors(browser) == []


@pytest.mark.screenshot
def test_screenshot(browser: Any, demo_store: Path, rich_memory: Memory, tmp_path: Path) -> None:
    out = Path(os.environ.get("STATEGRAPH_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    with Memory(demo_store, create=False) as mem:
        open_page(browser, _page(tmp_path, mem, 5, "demo.html"))
    click(browser, "m3")
    assert browser.save_screenshot(str(out / "demo-page.png"))
    assert (out / "demo-page.png").read_bytes().startswith(b"\x89PNG")
