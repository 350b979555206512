"""The HTML page of a revision on a real-sized store, as a person reviewing it uses it: every
memory the revision touched is on the first screen, grouped by verdict; each opens its
proof and what it rests on; rules are folded into the lines between memories; a search box
finds memories by id or text.

The store is a household's 2,000 memories (:func:`tests.pictures.scenes.household`), with a
revision that touches 305 of them; it and its page are built once for the module. The
checks run in the real browser at the ``browser`` fixture's window size; the screenshots
are opt-in (``-m screenshot``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stategraph.cli.main import main
from stategraph.memory import Memory
from stategraph.model import Verdict
from stategraph.pictures import draw, picture_of
from stategraph.pictures.build import read_report
from tests.pictures.browsing import click, drawn, errors, open_page
from tests.pictures.scenes import KYC, household

REVISION = 2
GROUPS = {  # the page's groups, in order, and the verdict each lists
    "invalidated": Verdict.invalidated,
    "needs_confirmation": Verdict.needs_confirmation,
    "kept": Verdict.kept,
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    mem = household(tmp_path_factory.mktemp("household") / "household.db")
    yield mem
    mem.close()


@pytest.fixture(scope="module")
def touched(store: Memory) -> dict[str, list[str]]:
    """The memories the revision touched, by the page's group names, from its report."""
    report = read_report(store.store, REVISION)
    out = {"changed": [c.id for c in report.changed]}
    for name, verdict in GROUPS.items():
        out[name] = sorted(e.id for e in report.entries if e.verdict is verdict)
    return out


@pytest.fixture(scope="module")
def page(store: Memory, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("page") / "revision.html"
    path.write_text(draw(store, "html", revision=REVISION), encoding="utf-8")
    return path.as_uri()


def _data(url: str) -> dict[str, Any]:
    text = Path(url.removeprefix("file://")).read_text(encoding="utf-8")
    found = re.search(r'id="picture-data">(.*?)</script>', text, re.S)
    assert found is not None
    return dict(json.loads(found.group(1)))


def test_the_picture_holds_the_whole_cone_and_the_page_groups_it(
    store: Memory, touched: dict[str, list[str]], page: str
) -> None:
    cone = {i for ids in touched.values() for i in ids}
    assert len(cone) == 306 and len(touched["needs_confirmation"]) == 219
    picture = picture_of(store, revision=REVISION)
    assert cone <= picture.ids()  # the default limit (150 nodes) no longer cuts the cone
    data = _data(page)
    groups = {g["name"]: sorted(g["ids"]) for g in data["groups"]}
    assert [g["name"] for g in data["groups"]] == ["changed", *GROUPS]
    assert groups == touched
    # folded: the drawing lays out memories only, one small junction per justification
    assert "supports" not in data and len(data["joins"]) == len(picture.supports)
    assert {j["w"] for j in data["joins"]} == {9.0}


def test_the_command_says_how_to_draw_the_cone_alone(
    store: Memory, touched: dict[str, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(store.store.path)
    assert main(["graph", path, "--revision", str(REVISION), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("stategraph: note: the picture stops at 306 states and ")
    assert err.rstrip().endswith("; --hops 0 draws the cone alone or raise --limit")
    assert main(["graph", path, "--revision", str(REVISION), "--hops", "0", "--json"]) == 0
    out, err = capsys.readouterr()
    cone = {i for ids in touched.values() for i in ids}
    assert err == "" and {s["id"] for s in json.loads(out)["states"]} == cone


def _first_screen(browser: Any) -> dict[str, Any]:
    """Where each tile of the board is, against the window, and whether its id shows whole."""
    return dict(
        browser.execute_script(
            """
            var out = {};
            document.querySelectorAll('#board .tile').forEach(function (t) {
              var r = t.getBoundingClientRect(), id = t.querySelector('b').getBoundingClientRect();
              out[t.dataset.id] = {
                shown: !t.hidden && r.width > 0 && r.height > 0,
                inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight
                  && r.right <= innerWidth,
                whole: id.right <= r.right + 0.5,
                group: t.closest('[data-group]').dataset.group,
              };
            });
            return out;
            """
        )
    )


def test_every_touched_memory_is_on_the_first_screen_in_its_group(
    browser: Any, touched: dict[str, list[str]], page: str
) -> None:
    open_page(browser, page)
    assert errors(browser) == []
    tiles = _first_screen(browser)
    by_group: dict[str, list[str]] = {name: [] for name in touched}
    for sid, tile in tiles.items():
        assert tile["shown"] and tile["inside"] and tile["whole"], (sid, tile)
        by_group[tile["group"]].append(sid)
    assert {k: sorted(v) for k, v in by_group.items()} == touched
    # and the graph draws every one of them too, with no justification drawn as a node
    assert set(tiles) <= set(drawn(browser))
    assert browser.execute_script("return document.querySelectorAll('g.support').length") == 0


def test_a_smaller_window_still_shows_every_touched_memory(
    browser: Any, touched: dict[str, list[str]], page: str
) -> None:
    size = browser.get_window_size()
    browser.set_window_size(1100, 800)
    try:
        open_page(browser, page)
        tiles = _first_screen(browser)
    finally:
        browser.set_window_size(size["width"], size["height"])
    assert len(tiles) == sum(len(v) for v in touched.values())
    assert all(t["shown"] and t["inside"] and t["whole"] for t in tiles.values())


def test_a_touched_memory_opens_its_verdict_and_what_it_rests_on(
    browser: Any, touched: dict[str, list[str]], page: str
) -> None:
    open_page(browser, page)
    invalidated = touched["invalidated"][0]
    panel = click(browser, invalidated, ".tile")
    assert "invalidated, decided by logic, 1 hop from the change" in panel
    assert "(rule via finance:63, finance:83): does not hold; lost in this revision" in panel
    assert "It does not hold now." in panel and f"premise {KYC} does not hold" in panel
    # what it rests on is a link: to the identity check the revision retracted
    browser.find_element("css selector", f'#panel .chip[data-id="{KYC}"]').click()
    panel = str(browser.find_element("id", "panel").text)
    assert browser.find_element("id", "panel").get_attribute("data-id") == KYC
    assert "retracted by this revision's change" in panel and invalidated in panel  # supports
    asked = touched["needs_confirmation"][0]
    panel = click(browser, asked, ".tile")
    assert "needs confirmation, decided by logic" in panel and "nobody verified it" in panel
    assert browser.execute_script("return location.hash") == f"#{asked}"
    assert errors(browser) == []


def test_the_search_box_finds_memories_by_id_or_text(
    browser: Any, touched: dict[str, list[str]], page: str
) -> None:
    from selenium.webdriver.common.keys import Keys

    open_page(browser, page)
    box = browser.find_element("id", "search")

    def shown() -> list[str]:
        return list(
            browser.execute_script(
                "return [...document.querySelectorAll('#board .tile:not([hidden])')]"
                ".map(function (t) { return t.dataset.id; })"
            )
        )

    target = touched["kept"][0]
    box.send_keys(target)
    assert shown() == [target]
    assert browser.find_element("id", "found").text == "1 memory matches"
    box.send_keys(Keys.ENTER)
    assert browser.find_element("id", "panel").get_attribute("data-id") == target
    box.send_keys(Keys.ESCAPE)
    assert len(shown()) == sum(len(v) for v in touched.values())
    box.send_keys("IDENTITY HAS BEEN")  # by text, whatever the case
    assert shown() == [KYC]
    count = browser.find_element("css selector", '[data-group="invalidated"] .count').text
    assert count == f"0 of {len(touched['invalidated'])}"
    dimmed = browser.execute_script("return document.querySelectorAll('g.state.miss').length")
    assert dimmed == len(drawn(browser)) - 1  # the graph dims what does not match
    assert errors(browser) == []


@pytest.mark.screenshot
def test_screenshots(
    browser: Any, touched: dict[str, list[str]], page: str, tmp_path: Path
) -> None:
    """The first screen, a memory opened, a search, and the graph around a memory."""
    out = Path(os.environ.get("STATEGRAPH_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    open_page(browser, page)
    shots = ["review-first-screen.png"]
    assert browser.save_screenshot(str(out / shots[-1]))
    click(browser, touched["invalidated"][3], ".tile")
    shots.append("review-opened.png")
    assert browser.save_screenshot(str(out / shots[-1]))
    browser.find_element("id", "search").send_keys("transfer")
    shots.append("review-search.png")
    assert browser.save_screenshot(str(out / shots[-1]))
    browser.find_element("css selector", "#panel .show").click()
    shots.append("review-graph.png")
    assert browser.save_screenshot(str(out / shots[-1]))
    for name in shots:
        assert (out / name).read_bytes().startswith(b"\x89PNG")
