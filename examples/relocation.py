"""The seed scenario through the Python API, with explanations.

Run: ``python examples/relocation.py``
"""

from stategraph import Memory

mem = Memory()
mem.fact("m1", "The user will move from Shanghai to Shenzhen in December 2026")
mem.belief("m2", "Commute time is computed for Shenzhen Nanshan", because=["m1"])
mem.action("m3", "Cancel the home broadband before the move", because=["m1"])
mem.fact("m4", "The user prefers Cantonese food")
mem.plan("m5", "Recommend Cantonese restaurants nearby", because=[["m4", "m2"], "m4"])

print(mem.why("m5").render())
report = mem.supersede("m1", {"id": "m1b", "text": "The user decided to stay in Shanghai"})
print("invalidated:", report.invalidated)
print("kept:", report.kept, "consequences:", report.consequences)
print(mem.why_not("m2").render())
print(mem.why("m5").render())
