"""Tiny hand-written cases shared by the bench tests."""

from __future__ import annotations

from typing import Any

from stategraph.bench.cases import Case, validate


def make_case(**overrides: Any) -> Case:
    """A small relocation case: m2, m3 depend on m1; m4 is a hard negative; m5 has two supports."""
    data: dict[str, Any] = {
        "id": "tiny-en-01",
        "lang": "en",
        "track": "declared",
        "memories": [
            {"id": "m1", "kind": "fact", "text": "The user will move to Shenzhen in December."},
            {"id": "m2", "kind": "belief", "text": "Commute from Shenzhen.", "because": [["m1"]]},
            {
                "id": "m3",
                "kind": "action",
                "text": "Cancel the broadband before the move.",
                "because": [["m2"]],
                "status": "pending",
            },
            {"id": "m4", "kind": "fact", "text": "The user likes Cantonese food."},
            {"id": "m5", "kind": "plan", "text": "Cantonese dinners.", "because": [["m1"], ["m4"]]},
        ],
        "change": {"retract": ["m1"]},
        "expect": {
            "invalidated": ["m2", "m3"],
            "kept": ["m4", "m5"],
            "consequences": {"m3": "cancel"},
            "depth": {"m2": 1, "m3": 2},
        },
        "tags": ["hard-negative", "alternative-support", "action"],
    }
    data.update(overrides)
    return validate(data, "<tiny>")
