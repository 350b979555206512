"""End to end over the broadened vocabulary: a fact's text grounds to atoms, the packs derive
from them, and derived memories' texts ground to atoms the packs derive (what the engine's
rule linking needs); a changed value withdraws only the memories tied to it."""

from __future__ import annotations

import pytest

from stategraph.grounding import derive, ground, list_packs


def derived_from(text: str, year: int | None = None) -> set[str]:
    return {str(f.head) for f in derive(ground(text, reference_year=year).symbols, list_packs())}


# (fact text, derived memory texts it must support, unrelated texts it must not)
CHAINS = [
    (
        "The user plans to move from Chicago to Denver in December 2026.",
        [
            "Good pizza places near the new apartment in Denver.",
            "Apply for a residential parking permit in Denver.",
            "Get a library card at the Denver Public Library.",
            "Book a moving truck for the move in December 2026.",
            "Cancel the gym membership before moving.",
            "Hiking trails around Denver for the weekend.",
        ],
        ["The user enjoys Thai food.", "Apply for a residential parking permit in Chicago."],
    ),
    (
        "用户计划2026年11月底从上海搬到杭州",
        [
            "办理杭州居住证",
            "给用户推荐杭州的幼儿园",
            "帮用户订2026年11月的搬家公司",
            "搬家前注销健身卡",
        ],
        ["用户喜欢吃火锅", "办理上海居住证"],
    ),
    (
        "The user takes metformin 500 mg twice daily.",
        [
            "Refill the 500 mg metformin prescription.",
            "Remind the user to take metformin 500 mg after breakfast.",
        ],
        ["Refill the 1000 mg metformin prescription."],
    ),
    ("用户每天服用二甲双胍500毫克", ["续配500毫克的二甲双胍"], ["续配1000毫克的二甲双胍"]),
    (
        "The user's passport expires on 2026-08-01.",
        ["Remind the user to renew the passport before 2026-08-01."],
        ["Remind the user to renew the ID card before 2026-08-01."],
    ),
    ("用户的护照2026年8月1日到期", ["提醒用户在2026-08-01前续签护照"], ["身份证到期前重新上传"]),
    (
        "The user has a dentist appointment on 2026-12-05.",
        ["Remind the user a day before the dentist appointment on 2026-12-05."],
        ["Remind the user a day before the dentist appointment on 2026-12-08."],
    ),
    (
        "Business trip to Tokyo in March 2027.",
        ["Book the flight for the Tokyo trip in March 2027."],
        ["Book a moving truck for March 2027."],
    ),
    (
        "The user was diagnosed with high cholesterol.",
        ["Remind the user to refill atorvastatin."],
        ["Remind the user to refill metformin."],
    ),
]


@pytest.mark.parametrize(("fact", "supported", "unrelated"), CHAINS)
def test_fact_supports_derived_memories(
    fact: str, supported: list[str], unrelated: list[str]
) -> None:
    heads = derived_from(fact)
    for text in supported:
        atoms = set(ground(text).texts)
        assert atoms, text
        facts = set(ground(fact).texts)
        assert atoms - facts <= heads, (text, atoms - facts - heads)
    for text in unrelated:
        # Linking needs every atom of a memory derived; sharing one (around(user,dentist))
        # with a supported memory does not link it.
        atoms = set(ground(text).texts)
        assert atoms and not atoms <= heads, text


@pytest.mark.parametrize(
    ("old", "new", "tied", "kept"),
    [
        (
            "The user plans to move from Chicago to Denver in December 2026.",
            "The user plans to move from Chicago to Denver in January 2027.",
            "Book a moving truck for the move in December 2026.",
            "Good pizza places near the new apartment in Denver.",
        ),
        (
            "用户的护照2026年8月1日到期",
            "用户的护照2036年8月1日到期",
            "提醒用户在2026-08-01前续签护照",
            "护照到期前提醒用户续签",
        ),
        (
            "用户2026年11月20日去北京出差",
            "用户2026年11月27日去北京出差",
            "帮用户订2026年11月20日北京的酒店",
            "帮用户在北京订酒店",
        ),
        (
            "The user takes metformin 500 mg twice daily.",
            "The user takes metformin 1000 mg twice daily.",
            "Refill the 500 mg metformin prescription.",
            "Remind the user to refill metformin monthly.",
        ),
    ],
)
def test_changed_value_withdraws_only_the_tied_memory(
    old: str, new: str, tied: str, kept: str
) -> None:
    tied_atoms = set(ground(tied).texts)
    kept_atoms = set(ground(kept).texts)
    assert tied_atoms and kept_atoms
    assert tied_atoms <= derived_from(old)
    assert not tied_atoms <= derived_from(new)
    assert kept_atoms <= derived_from(old)
    assert kept_atoms <= derived_from(new)
