"""Driving the HTML page in the real browser (the ``browser`` fixture): open a page, read its
console errors, click a memory, list what it draws."""

from __future__ import annotations

from typing import Any


def open_page(browser: Any, url: str) -> None:
    """Open ``url``, with the console log of what came before dropped."""
    browser.get("about:blank")
    browser.get_log("browser")
    browser.get(url)


def errors(browser: Any) -> list[dict[str, Any]]:
    """The console's errors since the last call."""
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def click(browser: Any, state_id: str, where: str = "g.state") -> str:
    """Click a memory (in the graph, or ``.tile`` on the board) and return the panel's text."""
    from selenium.webdriver.common.by import By

    browser.find_element(By.CSS_SELECTOR, f'{where}[data-id="{state_id}"]').click()
    panel = browser.find_element(By.ID, "panel")
    assert panel.get_attribute("data-id") == state_id
    return str(panel.text)


def drawn(browser: Any) -> list[str]:
    """The ids of the memories the graph draws, sorted."""
    from selenium.webdriver.common.by import By

    return sorted(
        str(g.get_attribute("data-id")) for g in browser.find_elements(By.CSS_SELECTOR, "g.state")
    )
