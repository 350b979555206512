"""Behaviour of ``ground``: the contract examples, polarity, empty results, the registry."""

from __future__ import annotations

import clingo
import pytest

from stategraph.errors import StategraphError
from stategraph.grounding import (
    DEFAULT_GROUNDER,
    Grounding,
    GroundingError,
    detect_language,
    get_grounder,
    ground,
    register_grounder,
)
from stategraph.grounding.grounder import RuleGrounder

MOVE = 'moves(user,shanghai,shenzhen,"2026-12")'


@pytest.mark.parametrize(
    "text",
    [
        "The user plans to move from Shanghai to Shenzhen in December 2026",
        "用户计划 2026-12 从上海搬到深圳",
        "用户计划2026年12月从沪搬到深圳",
        "In December 2026, the user will relocate from Shanghai to Shenzhen.",
    ],
)
def test_contract_examples_meet_in_one_atom(text: str) -> None:
    assert ground(text).texts == (MOVE,)


def test_month_without_year_takes_the_reference_year_or_stays_yearless() -> None:
    assert ground("用户计划12月从上海搬到深圳", reference_year=2026).texts == (MOVE,)
    unresolved = ground("用户计划12月从上海搬到深圳")
    assert unresolved.texts == ('moves(user,shanghai,shenzhen,"--12")',)
    assert ground("The user moves from Shanghai to Shenzhen on June 13.").texts == (
        'moves(user,shanghai,shenzhen,"--06-13")',
    )


def test_symbol_is_built_not_parsed() -> None:
    atom = ground("用户计划 2026-12 从上海搬到深圳").atoms[0]
    expected = clingo.Function(
        "moves",
        [
            clingo.Function("user"),
            clingo.Function("shanghai"),
            clingo.Function("shenzhen"),
            clingo.String("2026-12"),
        ],
    )
    assert atom.symbol == expected
    assert atom.text == str(expected)


def test_spans_point_into_the_text() -> None:
    text = "用户计划 2026-12 从上海搬到深圳"
    atom = ground(text).atoms[0]
    roles = {s.role: s.text for s in atom.spans}
    assert roles == {
        "trigger": "搬到",
        "agent": "用户",
        "origin": "上海",
        "destination": "深圳",
        "when": "2026-12",
    }
    assert all(text[s.start : s.end] == s.text for s in atom.spans)


@pytest.mark.parametrize(
    "text",
    ["不搬了", "我不搬了", "The user is no longer moving to Shenzhen.", "用户不再搬去深圳了"],
)
def test_negated_move_grounds_to_nothing(text: str) -> None:
    result = ground(text)
    assert result.atoms == ()
    assert result.reason is not None


@pytest.mark.parametrize(
    "text",
    [
        "The user decided to stay in Shanghai.",
        "用户最终决定留在上海，取消搬迁计划",
        "The user decided to stay in Shanghai and cancelled the move to Shenzhen.",
    ],
)
def test_staying_grounds_to_stays_never_moves(text: str) -> None:
    assert ground(text).texts == ("stays(user,shanghai)",)


@pytest.mark.parametrize("text", ["The user might move to Shenzhen.", "用户可能会搬到深圳"])
def test_hedge_is_a_distinct_atom(text: str) -> None:
    result = ground(text)
    assert result.texts == ("maybe(moves(user,unknown,shenzhen,unknown))",)
    assert result.atoms[0].hedged


def test_nothing_found_says_so() -> None:
    result = ground("The weather looks nice today.")
    assert result.atoms == ()
    assert result.reason == "no atom: no frame trigger in the text"
    assert result.to_dict()["atoms"] == []


def test_language_detection() -> None:
    assert detect_language("用户计划 2026-12") == "zh"
    assert detect_language("The user") == "en"
    assert ground("Shanghai").lang == "en"


def test_unknown_language_and_grounder_are_clear_errors() -> None:
    with pytest.raises(GroundingError, match="unknown language 'fr'"):
        ground("bonjour", lang="fr")  # type: ignore[arg-type]
    with pytest.raises(StategraphError, match="unknown grounder"):
        get_grounder("nope.v1")


def test_a_grounder_can_be_plugged_in() -> None:
    class Fixed:
        name = "test.fixed.v1"

        def ground(
            self, text: str, *, lang: str | None = None, reference_year: int | None = None
        ) -> Grounding:
            return Grounding(text, lang or "en", (), ("fixed",), self.name)

    register_grounder("test.fixed.v1", Fixed)
    assert ground("anything", grounder="test.fixed.v1").grounder == "test.fixed.v1"
    assert isinstance(get_grounder(DEFAULT_GROUNDER), RuleGrounder)
