"""Chinese and English memories of the same fact meet in the same atom."""

from __future__ import annotations

import pytest

from stategraph.grounding import ground

PAIRS = [
    (
        "The user plans to move from Shanghai to Shenzhen in December 2026",
        "用户计划 2026-12 从上海搬到深圳",
    ),
    ("The user decided to stay in Shanghai.", "用户最终决定留在上海，取消搬迁计划"),
    ("Commute time is computed for Shenzhen Nanshan.", "通勤时间按深圳南山算"),
    ("Cancel the home broadband before the move.", "已排待办：搬家前退宽带"),
    ("Recommend local activities in Shenzhen for the weekend.", "周末推荐深圳本地活动"),
    ("The user likes Cantonese food.", "用户偏好粤菜"),
    ("The user has a dentist appointment on December 5, 2026.", "用户2026年12月5日约了牙医"),
    ("The user is flying to Beijing on 2026-11-20.", "用户2026年11月20日去北京出差"),
    ("Book a hotel in Beijing for the trip.", "帮用户在北京订酒店"),
    ("The user was diagnosed with type 2 diabetes.", "用户确诊2型糖尿病"),
    ("The user is allergic to penicillin.", "用户对青霉素过敏"),
    ("Remind the user to refill metformin monthly.", "提醒用户按月续配二甲双胍"),
    ("The user's identity has been verified.", "用户已完成实名认证"),
    ("The account limit was raised to the standard tier.", "账户限额提升为标准档"),
    ("A monthly transfer of 50,000 yuan is scheduled.", "已安排每月转账5万元给房东"),
    ("The user might move to Shenzhen.", "用户可能会搬到深圳"),
    ("The user moved from Chicago to Denver in March 2026.", "用户2026年3月从芝加哥搬到丹佛"),
    ("The user lives in Brooklyn.", "用户住在布鲁克林"),
    ("Kindergartens in Hangzhou for the user's daughter.", "给用户推荐杭州的幼儿园"),
    ("Apply for a residential parking permit in Shanghai.", "申请上海的停车证"),
    ("Book a moving truck for the move in December 2026.", "为搬家预订2026年12月的货车"),
    ("The user takes metformin 500 mg twice daily.", "用户每天服用二甲双胍500毫克"),
    ("Refill the 500 mg metformin prescription.", "续配500毫克的二甲双胍"),
    ("The user's passport expires on 2026-08-01.", "用户的护照2026年8月1日到期"),
    ("Remind the user to renew the passport before 2026-08-01.", "提醒用户在2026-08-01前续签护照"),
    ("The user is allergic to shellfish.", "用户对海鲜过敏"),
    ("The user wants to send 1,000 pounds.", "用户想汇款1000英镑"),
]


@pytest.mark.parametrize(("en", "zh"), PAIRS)
def test_same_fact_same_atoms(en: str, zh: str) -> None:
    en_atoms = ground(en, lang="en").texts
    assert en_atoms
    # Word order differs between the languages, so the atoms are compared as a set.
    assert sorted(en_atoms) == sorted(ground(zh, lang="zh").texts)


@pytest.mark.parametrize(
    "city",
    [
        ("Shanghai", "上海"),
        ("Shanghai", "沪"),
        ("Shenzhen", "深圳市"),
        ("New York City", "纽约"),
        ("Xi'an", "西安"),
        ("Munich", "慕尼黑"),
        ("Ho Chi Minh City", "胡志明市"),
        ("Manhattan", "曼哈顿"),
        ("Tianhe", "天河区"),
    ],
)
def test_city_aliases_normalise(city: tuple[str, str]) -> None:
    en, zh = city
    assert ground(f"The user lives in {en}.").texts == ground(f"用户住在{zh}").texts
