"""A regulated case: a medication change, a person's review of what it flagged, and the audit.

A prescription is switched. The pending refill order built on it must be cancelled; the dose
already administered cannot be undone, so it goes to a nurse for review instead of vanishing;
the diagnosis and the monitoring plan, related but independent, stay as they are. An
antibiotic default holds unless an allergy is on record, and comes back when the allergy entry
is retracted. Every step is logged in a hash chain, exported for an auditor, and verified and
replayed from the exported file alone.

Run: ``python examples/medication.py``
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from stategraph import Memory
from stategraph.audit import export, verify_export
from stategraph.store import SQLiteStore

with tempfile.TemporaryDirectory() as tmp:
    mem = Memory(Path(tmp) / "patient.db")
    mem.fact("dx", "Type 2 diabetes, diagnosed 2025-11")
    mem.plan("hba1c", "Check HbA1c every three months", because=["dx"])
    mem.fact("rx", "Dr. Lee prescribes metformin 500 mg twice daily")
    mem.action("refill", "Refill order: metformin 500 mg, 90 days", because=["rx"])
    mem.action("dose", "Administered metformin 500 mg at 08:00", because=["rx"], status="executed")
    mem.action(
        "dispensed", "Pharmacy dispensed 30 days of metformin", because=["rx"], status="executed"
    )
    # A default: amoxicillin for the next infection, unless a penicillin allergy is on record.
    mem.belief(
        "abx", "Amoxicillin is the first choice for a bacterial infection", unless=["allergy"]
    )

    # 1. The prescription is switched.
    switch = {"id": "rx2", "text": "Dr. Lee switches to sitagliptin 100 mg daily"}
    report = mem.supersede("rx", switch)
    for e in report.entries:
        then = f" -> {e.consequence.value}" if e.consequence else ""
        print(f"{e.id}: {e.verdict.value}{then}")
    print("untouched:", [s for s in ("dx", "hba1c") if report.entry(s) is None])

    # 2. An allergy is recorded, then found to be a data-entry error and retracted.
    blocked = mem.fact("allergy", "The patient reports a penicillin allergy")
    print("allergy recorded:", blocked.invalidated)
    restored = mem.retract("allergy")
    print("allergy retracted:", restored.restored)

    # 3. A nurse settles what the engine could not.
    for item in mem.pending_review():
        print(f"pending review: {item.id} ({item.cause}) {item.text}")
    mem.confirm(
        "dose",
        by="nurse.kim",
        note="Given as prescribed before the switch; no adverse effect",
        at="2026-03-02T09:00:00Z",
    )
    mem.reject(
        "dispensed",
        by="nurse.kim",
        note="Returned to the pharmacy unopened",
        at="2026-03-02T09:05:00Z",
    )
    print("pending after review:", [p.id for p in mem.pending_review()])
    print(mem.why("dose").render())

    # 4. The auditor gets the log as a file and checks it without the store.
    assert isinstance(mem.store, SQLiteStore)
    log = Path(tmp) / "audit.jsonl"
    count, _first, _last = export(mem.store, log)
    mem.close()
    result = verify_export(log)
    print(
        f"audit: {count} entries exported, chain verified, {result.replayed} replayed identically"
    )
