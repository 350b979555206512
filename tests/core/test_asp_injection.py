"""Memory text and ids are data: ASP syntax in them never becomes part of a program."""

from __future__ import annotations

import pytest

from stategraph import Memory

HOSTILE = [
    "a. :- b.",
    '#include "x".',
    "holds(X) :- fact(X). #show.",
    "} { :- not holds(m2).",
    '"); #script (python) import os #end.',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_plain_data(text: str) -> None:
    mem = Memory()
    mem.fact("m1", text)
    mem.belief("m2", text, because=["m1"])
    mem.fact("m3", "independent")
    mem.belief(text, text, because=["m3"])  # even as an id
    report = mem.retract("m1")
    assert report.invalidated == ["m2"]
    assert mem.holding() == {"m3", text}
    assert mem.state("m2").text == text
    assert mem.retract("m3").invalidated == [text]
