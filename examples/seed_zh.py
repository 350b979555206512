"""The seed scenario in Chinese, from text alone: grounding and rule packs find the links.

Run: ``python examples/seed_zh.py``
"""

from stategraph import Memory

mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
mem.fact("m1", "用户计划 2026-12 从上海搬到深圳")
mem.belief("m2", "通勤时间按深圳南山算")  # no because: the rule packs link it to m1
mem.action("m3", "已排待办：搬家前退宽带", status="pending")
mem.fact("m4", "用户偏好粤菜")  # related to m1, but resting on nothing

print(mem.why("m2").render())
report = mem.supersede("m1", {"id": "m1b", "text": "用户最终决定留在上海，取消搬迁计划"})
print("invalidated:", report.invalidated)
print("consequences:", report.consequences)
print("m4 untouched:", report.entry("m4") is None)
