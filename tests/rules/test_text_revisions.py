"""End to end from text alone: memories added as text to a Memory with every rule pack and
the default grounder, one change, and the states it must invalidate and keep.

The scenarios are this file's own (not the benchmark's): one per pattern class the grounding
and the packs cover (actions dated before an event, interactions, a called-off move, ...),
each with a hard negative that is related but must stay.
"""

from __future__ import annotations

from typing import Any

import pytest

from stategraph import Memory


def supersede(text: str) -> dict[str, Any]:
    """The change that replaces fact ``f`` by a new fact ``f2`` with this text."""
    return {"supersede": {"id": "f", "with": {"id": "f2", "kind": "fact", "text": text}}}


# (memories as (id, kind, text), the change, invalidated, kept)
SCENARIOS: list[tuple[list[tuple[str, str, str]], dict[str, Any], set[str], set[str]]] = [
    (
        [
            ("f", "fact", "The user flies to Lisbon on 2026-03-14."),
            ("a", "action", "Do the online check-in for the Lisbon flight on 2026-03-13."),
            ("b", "plan", "Order a cab to the airport for 2026-03-14."),
            ("h", "fact", "The user has a haircut appointment on 2026-03-20."),
        ],
        supersede("The user flies to Lisbon on 2026-03-21."),
        {"a", "b"},
        {"h"},
    ),
    (
        [
            ("f", "fact", "用户 2026-09-02 去成都出差"),
            ("a", "action", "2026-09-01 提醒用户买去成都的高铁票"),
            ("p", "plan", "帮用户在成都订酒店"),
            ("h", "fact", "用户每周二晚上游泳"),
        ],
        supersede("用户的成都出差改到 2026-09-09"),
        {"a"},
        {"p", "h"},
    ),
    (
        [
            ("f", "fact", "The user is on apixaban."),
            ("b", "belief", "The user must not take naproxen."),
            ("p", "plan", "Recommend acetaminophen when the user has back pain."),
            ("h", "fact", "The user is allergic to shellfish."),
        ],
        {"retract": ["f"]},
        {"b", "p"},
        {"h"},
    ),
    (
        [
            ("f", "fact", "用户在吃甲硝唑"),
            ("b", "belief", "用户这周不能喝酒"),
            ("p", "plan", "周五聚会给用户准备无醇啤酒"),
            ("h", "fact", "用户对花生过敏"),
        ],
        supersede("用户停用甲硝唑了"),
        {"b", "p"},
        {"h"},
    ),
    (
        [
            ("f", "fact", "用户计划 2027-03 从杭州搬到南京"),
            ("c", "belief", "用户搬家后在南京上下班"),
            ("u", "action", "搬家之前把杭州的燃气停掉"),
            ("h", "fact", "用户喜欢吃川菜"),
        ],
        supersede("用户决定不搬了，继续留在杭州"),
        {"c", "u"},
        {"h"},
    ),
    (
        [
            ("f", "fact", "The user's driver's license expires on 2027-02-10."),
            ("r", "action", "Email the user a driver's license renewal reminder on 2027-01-10."),
            ("h", "fact", "The user's passport expires on 2031-06-01."),
        ],
        supersede("The user's driver's license expires on 2037-02-10."),
        {"r"},
        {"h"},
    ),
    (
        [
            ("f", "fact", "The user has a conference in Boston on 2026-10-20."),
            ("b", "plan", "Book a hotel in Boston for the night of 2026-10-19."),
            ("r", "action", "Remind the user on 2026-10-16 to finish the conference talk."),
            ("h", "fact", "The user's anniversary is on 2026-10-25."),
        ],
        supersede("The conference in Boston was cancelled."),
        {"b", "r"},
        {"h"},
    ),
    (
        [
            ("k", "fact", "The user gets tension headaches after long meetings."),
            ("s", "plan", "Suggest naproxen when a headache starts."),
            ("b", "action", "Order a pack of naproxen from the pharmacy on Friday."),
            ("w", "plan", "Buy a bottle of champagne for the user's promotion party."),
            ("t", "plan", "Suggest a short walk after each long meeting."),
        ],
        {"assert": [{"id": "f", "kind": "fact", "text": "The user is pregnant."}]},
        {"s", "b", "w"},
        {"k"},
    ),
    (
        [
            ("s", "plan", "胃痛的时候建议用户吃布洛芬"),
            ("b", "action", "帮用户网购一盒阿司匹林"),
            ("d", "fact", "用户每天吃二甲双胍"),
            ("m", "action", "每天早上提醒用户吃二甲双胍"),
        ],
        {"assert": [{"id": "f", "kind": "fact", "text": "胃镜查出用户有十二指肠溃疡"}]},
        {"s", "b"},
        {"m"},
    ),
    (
        [
            ("f", "fact", "The user takes metformin 500 mg twice a day."),
            ("r", "action", "Refill the user's metformin 500 mg at the pharmacy."),
            ("g", "fact", "The user's father takes metformin 500 mg every morning."),
            ("d", "action", "Remind the user to collect her father's metformin 500 mg."),
        ],
        supersede("The user's metformin dose went up to 1000 mg twice a day."),
        {"r"},
        {"d"},
    ),
    (
        [
            ("f", "fact", "用户9月12日从上海搬到杭州"),
            ("t", "action", "9月10日帮用户预约搬家公司"),
            ("c", "action", "搬家前帮用户退掉上海的宽带"),
        ],
        supersede("用户10月20日从上海搬到杭州"),
        {"t"},
        {"c"},
    ),
    (
        [
            ("f", "fact", "用户一家8月1日到8月6日去大连度假"),
            ("e", "belief", "8月1日到6日家里没人"),
            ("c", "action", "7月31日晚上把猫送去宠物店寄养"),
            ("g", "fact", "用户的母亲住在大连"),
        ],
        {"supersede": {"id": "f", "with": {"id": "f2", "kind": "fact", "text": "大连度假取消了"}}},
        {"e", "c"},
        {"g"},
    ),
]  # fmt: skip


@pytest.mark.parametrize(("memories", "change", "invalidated", "kept"), SCENARIOS)
def test_text_only_revision(
    memories: list[tuple[str, str, str]],
    change: dict[str, Any],
    invalidated: set[str],
    kept: set[str],
) -> None:
    mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
    for sid, kind, text in memories:
        fields: dict[str, Any] = {"status": "pending"} if kind == "action" else {}
        mem.add({"id": sid, "kind": kind, "text": text, **fields})
    report = mem.revise(change)
    assert set(report.invalidated) == invalidated
    assert all(mem.is_active(k) and k in mem.holding() for k in kept)
