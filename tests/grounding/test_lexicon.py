"""The lexicons as data: the gazetteer's size and consistency, value normalisation."""

from __future__ import annotations

from collections import Counter

import pytest

from stategraph.grounding import ground
from stategraph.grounding.amounts import normalise_dose
from stategraph.grounding.lexicon import load_lexicon


def test_gazetteer_covers_hundreds_of_cities_in_both_languages() -> None:
    cities = [e for e in load_lexicon() if e.label == "CITY" and e.district is None]
    assert len(cities) >= 300
    assert sum(1 for e in cities if e.zh) >= 300
    assert sum(1 for e in cities if e.en) >= 300


def test_districts_map_to_a_listed_city() -> None:
    entries = load_lexicon()
    cities = {e.id for e in entries if e.label == "CITY" and e.district is None}
    districts = [e for e in entries if e.district is not None]
    assert len(districts) >= 50
    assert {e.id for e in districts} <= cities


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_surface_form_names_one_thing(lang: str) -> None:
    forms = Counter(
        form.lower() for e in load_lexicon() for form in (e.en if lang == "en" else e.zh)
    )
    assert [f for f, n in forms.items() if n > 1] == []


@pytest.mark.parametrize(
    ("groups", "dose"),
    [
        ({"num": "500", "unit": "mg"}, "500mg"),
        ({"num": "500", "unit": "毫克"}, "500mg"),
        ({"num": "0", "frac": "50", "unit": "MG"}, "0.5mg"),
        ({"num": "10", "unit": "units"}, "10iu"),
        ({"num": "50", "unit": "微克"}, "50mcg"),
        ({"num": "5", "unit": "tablets"}, None),
        ({"unit": "mg"}, None),
    ],
)
def test_dose_normalisation(groups: dict[str, str], dose: str | None) -> None:
    assert normalise_dose(groups) == dose


def test_a_dose_is_never_money() -> None:
    texts = ground("Send 500 mg of metformin to the user.").texts
    assert not any(t.startswith("transfer_request(") for t in texts)
    assert texts == ('dose(user,metformin,"500mg")',)


@pytest.mark.parametrize(
    ("text", "atom"),
    [
        ("The user travels to Paris in May 2027.", 'trip(user,paris,"2027-05")'),
        ("Eye exam on October 12, 2026 at 10am.", 'appointment(user,eye_doctor,"2026-10-12")'),
        ("用户计划2026年11月底搬到杭州", 'moves(user,unknown,hangzhou,"2026-11")'),
        ("The user moves to Austin by 2026-10-01.", 'moves(user,unknown,austin,"2026-10-01")'),
    ],
)
def test_values_own_their_words(text: str, atom: str) -> None:
    assert ground(text).texts == (atom,)
