"""The tutorial: an agent's memory from its first fact to a revision a person has reviewed.

Run: ``python examples/tutorial.py`` (it writes ``tutorial.db`` in the working directory).
"""

from __future__ import annotations

from pathlib import Path

from stategraph import Memory

# 1. A memory on disk: one SQLite file. Remove the file of an earlier run first.
Path("tutorial.db").unlink(missing_ok=True)
mem = Memory.open("tutorial.db")

# 2. The first fact, and what the agent concludes from it.
mem.fact("trip", "The user flies to Tokyo on May 10")
mem.belief("tz", "The user's calendar is in Tokyo time from May 10", because=["trip"])
mem.plan("dinner", "Book a sushi dinner in Tokyo on May 11", because=["trip"])
mem.action("visa", "Apply for the visa waiver form", because=["trip"], status="executed")
mem.fact("sushi", "The user likes sushi")
print("holding:", sorted(mem.holding()))

# 3. Why does the plan hold? A proof, premise by premise.
print(mem.why("dinner").render())

# 4. The trip is called off: one revision decides what must go.
report = mem.supersede("trip", {"id": "no-trip", "text": "The user cancelled the Tokyo trip"})
print("invalidated:", report.invalidated)
print("needs confirmation:", report.needs_confirmation)
print("consequences:", report.consequences)
print("sushi untouched:", report.entry("sushi") is None)

# 5. What the engine could not settle waits for a person.
for item in mem.pending_review():
    print(f"pending review: {item.id} ({item.cause}) {item.text}")
mem.confirm("visa", by="alice", note="The form was filed; it stays on record")
print("pending after review:", [p.id for p in mem.pending_review()])
print(mem.why("visa").render())
print()

# 6. Every revision is in the log, a hash chain that verifies.
print("revisions logged:", len(mem.history()))
print("log verifies:", mem.verify_log(deep=True), "entries")
seq, digest = mem.head()  # keep it elsewhere: verify_log(expect_head=...) checks the end too
mem.close()
