"""End to end: a fact's text grounds to atoms, the packs derive from them, and the derived
memories' own texts ground to atoms the packs derive. This is the match the engine makes to
build ``rule`` justifications (DESIGN.md: "origin rule: a rule pack derives it")."""

from __future__ import annotations

import pytest

from stategraph.grounding import derive, ground, list_packs

# (fact text, derived memory texts that the fact must support, hard negatives that it must not)
CHAINS = [
    (
        "用户计划 2026-12 从上海搬到深圳",
        ["通勤时间按深圳南山算", "已排待办：搬家前退宽带", "周末推荐深圳本地活动"],
        ["用户偏好粤菜"],
    ),
    (
        "The user plans to move from Shanghai to Shenzhen in December 2026",
        [
            "Commute time is computed for Shenzhen Nanshan.",
            "Cancel the home broadband before the move.",
            "Suggest Cantonese restaurants in Shenzhen.",
        ],
        ["The user likes Cantonese food."],
    ),
    ("用户确诊2型糖尿病", ["提醒用户按月续配二甲双胍"], ["用户对花生过敏"]),
    (
        "The user was diagnosed with type 2 diabetes.",
        ["Remind the user to refill metformin monthly."],
        ["Remind the user about the dentist appointment."],
    ),
    ("用户已完成实名认证", ["账户限额提升为标准档"], ["账户被风控冻结"]),
    (
        "The user has a dentist appointment on December 5, 2026.",
        ["Remind the user about the dentist appointment."],
        ["Book a hotel in Beijing for the trip."],
    ),
    ("用户2026年11月20日去北京出差", ["帮用户在北京订酒店"], ["提醒用户看牙医"]),
]


@pytest.mark.parametrize(("fact", "supported", "unrelated"), CHAINS)
def test_fact_supports_derived_memories(
    fact: str, supported: list[str], unrelated: list[str]
) -> None:
    heads = {str(f.head) for f in derive(ground(fact).symbols, list_packs())}
    for text in supported:
        derived = ground(text).texts
        assert derived, text
        assert set(derived) <= heads, (text, derived)
    for text in unrelated:
        assert not set(ground(text).texts) & heads, text


def test_staying_withdraws_the_move_consequences() -> None:
    stay = ground("用户最终决定留在上海，取消搬迁计划").symbols
    heads = {str(f.head) for f in derive(stay, list_packs())}
    assert "commute_city(user,shenzhen)" not in heads
    assert not any(h.startswith("cancel_utility(") for h in heads)
    assert "home_city(user,shanghai)" in heads
