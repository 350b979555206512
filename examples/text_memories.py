"""Text memories: the grounder reads the atoms, the rule packs link the memories.

Run: ``python examples/text_memories.py``
"""

from __future__ import annotations

from pathlib import Path

from stategraph import Memory
from stategraph.grounding import ground

# 1. What a text grounds to: the same atom from Chinese and from English.
for text in (
    "用户计划 2026-12 从上海搬到深圳",
    "The user plans to move from Shanghai to Shenzhen in December 2026",
):
    print("atoms:", [str(a.symbol) for a in ground(text).atoms])

# 2. The shipped packs link memories written without `because`.
mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
mem.fact("m1", "用户计划 2026-12 从上海搬到深圳")
mem.belief("m2", "通勤时间按深圳南山算")  # no because: the rules link it to m1
mem.action("m3", "已排待办：搬家前退宽带", status="pending")
mem.fact("m4", "用户喜欢吃粤菜")
report = mem.supersede("m1", {"id": "m1b", "text": "用户决定留在上海"})
print("invalidated:", report.invalidated)
print("consequences:", report.consequences)

# 3. A pack of your own: a .lp file, its rules named by the file's stem.
pack = Path(__file__).with_name("subscriptions.lp")
own = Memory(rules=[str(pack)])
own.fact("s1", "Ana subscribes to the news", atoms=["subscribed(ana,news)"])
own.fact("c1", "Ana has a card on file", atoms=["card_on_file(ana)"])
own.action("r1", "Charge Ana for the news renewal", atoms=["charge(ana,news)"])
print(own.why("r1").render())
print(
    "cancelled:",
    own.fact("x1", "Ana cancelled the news", atoms=["cancelled(ana,news)"]).invalidated,
)
