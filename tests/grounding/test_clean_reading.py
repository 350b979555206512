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


@pytest.mark.parametrize(
    ("text", "rival"),
    [
        ("The user takes 1000 mg of metformin, up from 500 mg.", "500mg"),
        ("用户吃华法林期间不能吃布洛芬", "warfarin"),
    ],
)
def test_a_rival_left_unread_beside_a_role_makes_the_reading_ambiguous(
    text: str, rival: str
) -> None:
    found = ground(text)
    assert found.atoms and found.ambiguous == (rival,)
    assert not found.clean


@pytest.mark.parametrize(
    "text",
    [
        "The user decided to stay in Shanghai and cancelled the move to Shenzhen.",  # negated
        "Ask the neighbour to water the plants while the flat is empty from 2027-04-10.",
        "The user flies to Tokyo on 2027-04-10 and back on 2027-04-17.",  # dates: no rivals
        "The user takes metformin 500 mg twice daily for type 2 diabetes.",  # other kinds
    ],
)
def test_what_is_no_rival_leaves_the_reading_clean(text: str) -> None:
    found = ground(text)
    assert found.atoms and found.ambiguous == ()
    assert found.clean


def test_a_negated_atom_is_kept_as_what_the_text_says_is_not_so() -> None:
    found = ground("Actually the Tokyo trip is cancelled.")
    assert found.atoms == ()
    assert found.negated == ("trip(user,tokyo,unknown)",)


@pytest.mark.parametrize(
    "text",
    [
        "Maggie's left-eye cataract operation is on 9 October at the Eye and Ear Hospital in"
        " East Melbourne.",
        "Leave a copy of the Tasmania itinerary with Peter.",
        "Kenji's leave got cancelled, he can't come to Seattle this spring.",
    ],
)
def test_leaving_something_or_a_side_or_time_off_is_no_move(text: str) -> None:
    """ "left" as a side, "leave" with a thing left or as time off work: no one leaves a place,
    so no move is read, and no preparation of one (a cataract operation read as a move to
    Melbourne made the itinerary copy rest on it by rule, and a correction of its date took
    the copy)."""
    found = ground(text)
    assert not {a.frame for a in found.atoms} & {"moves", "preparation"}
    assert not any(n.startswith("moves(") for n in found.negated)


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("The user stopped taking metformin", ("stopped",)),
        ("The user no longer goes to the climbing gym", ("no longer",)),
        ("Ben and I split up last weekend", ("split up",)),
        ("用户停用甲硝唑了", ("停用",)),
        ("搬家的事黄了", ("黄了",)),
        ("The user can't manage long walks", ()),
        ("更正一下：青禾科技在萧山，不在滨江，出差还是11月20日到21日。", ()),
    ],
)
def test_an_ending_is_told_from_a_bare_negation(text: str, ends: tuple[str, ...]) -> None:
    found = ground(text)
    assert found.ends == ends and found.turns


def test_a_stop_negates_what_a_negation_does() -> None:
    assert ground("The user stopped taking metformin").negated == ("takes(user,metformin)",)
