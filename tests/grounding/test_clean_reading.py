"""What grounding says it did not read: the polarity cues no atom took into account and the
things a text names that no atom took in. A replacement is read cleanly only without either
(``stategraph.prepare``), so these are what stands between a misread and a silent keep."""

from __future__ import annotations

import pytest

from stategraph.grounding import ground


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("The move to Shenzhen is off", ("is off",)),
        ("The move to Shenzhen fell through", ("fell through",)),
        ("The Lisbon plan is off, I'm staying in Munich", ("is off",)),
        ("Alice's doctor took her off atorvastatin", ("took her off",)),
        ("搬到深圳的计划算了，还是留在上海", ("算了",)),
        ("搬家的事黄了", ("黄了",)),
    ],
)
def test_a_reversal_no_atom_took_in_is_left_over(text: str, left: tuple[str, ...]) -> None:
    found = ground(text)
    assert found.unconsumed == left
    assert not found.clean


@pytest.mark.parametrize(
    "text",
    [
        "The user decided to stay in Shanghai and cancelled the move",  # cancels the move
        "用户最终决定留在上海，取消搬迁计划",  # 取消 negates 搬迁, in its own clause
        "Cancel the gas in Shanghai before the move",  # the cue is the atom's own trigger
        "The user plans to move from Shanghai to Shenzhen in December 2026",
    ],
)
def test_a_cue_an_atom_took_in_is_consumed(text: str) -> None:
    found = ground(text)
    assert found.atoms and found.unconsumed == ()
    assert found.clean


def test_nothing_read_is_not_a_clean_reading() -> None:
    assert not ground("The user changed their mind about it").clean


def test_a_named_thing_no_atom_took_in_is_unread() -> None:
    found = ground("复诊时医生把外公的二甲双胍加量了，改成早晚饭后各吃两片0.5克的")
    assert "metformin" in found.unread_values
    assert "metformin" not in {c for a in found.texts for c in a.split(",")}
    assert ground("用户的成都出差改到 2026-09-09").unread_values == ()  # the user is read
