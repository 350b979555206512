"""Golden files: text → atoms, sentence by sentence, both languages, all four domains.

Each line of ``golden/<lang>.jsonl`` holds a sentence, the atoms it must ground to (written
and reviewed by hand, not recorded from the extractor), its domain, tags (``negation``,
``hedge``, ``nothing``) and an optional reference year. Set ``STATEGRAPH_REGEN_GOLDEN=1`` to
print the current output in the same format for review; the test never rewrites the files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from stategraph.grounding import ground
from stategraph.grounding.language import Lang

GOLDEN = Path(__file__).parent / "golden"
LANGS: tuple[Lang, ...] = ("en", "zh")
DOMAINS = {"relocation", "scheduling", "health", "finance", "none"}


def _rows(lang: Lang) -> list[dict[str, Any]]:
    lines = (GOLDEN / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = [(lang, row) for lang in LANGS for row in _rows(lang)]


@pytest.mark.parametrize(("lang", "row"), CASES, ids=[f"{c[0]}:{c[1]['text']}" for c in CASES])
def test_golden(lang: Lang, row: dict[str, Any]) -> None:
    result = ground(row["text"], lang=lang, reference_year=row.get("year"))
    if os.environ.get("STATEGRAPH_REGEN_GOLDEN"):
        print(json.dumps({**row, "atoms": list(result.texts)}, ensure_ascii=False))
    assert sorted(result.texts) == sorted(row["atoms"]), result.notes
    if not row["atoms"]:
        assert result.reason is not None


# Every predicate a frame can build is exercised by the goldens of both languages.
PREDICATES = {
    "moves", "stays", "lives_in", "works_in", "home_city", "commute_city", "recommend",
    "local_service", "cancel_utility", "prefers_cuisine", "appointment", "appointment_reminder",
    "trip", "remind", "book_hotel", "booking", "preparation", "diagnosed", "allergic", "takes",
    "dose", "prescribed", "refill_reminder", "refill_dose", "med_reminder", "contraindicated",
    "identity_verified", "address_verified", "flagged", "account_limit", "transfer_request",
    "scheduled_transfer", "document_expires", "document_renewal", "check_in", "event_in",
    "suggest_instead", "around", "transfer_allowed", "planned_transfer", "income", "savings",
    "savings_transfer",
}  # fmt: skip


@pytest.mark.parametrize("lang", LANGS)
def test_golden_coverage(lang: Lang) -> None:
    rows = _rows(lang)
    assert len(rows) >= 130
    predicates = {a.removeprefix("maybe(").split("(")[0] for r in rows for a in r["atoms"]}
    assert predicates >= PREDICATES, PREDICATES - predicates
    assert {r["domain"] for r in rows} == DOMAINS
    tags = [t for r in rows for t in r.get("tags", [])]
    assert tags.count("negation") >= 10
    assert tags.count("hedge") >= 5
    assert tags.count("nothing") >= 5
    # A negated sentence must never ground to a positive atom of its own frame.
    for r in rows:
        if "negation" in r.get("tags", []):
            assert not any(a.startswith(("moves(", "trip(", "appointment(")) for a in r["atoms"])
