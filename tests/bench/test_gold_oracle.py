"""Every declared-track case's gold agrees with the independent well-founded-model oracle."""

from __future__ import annotations

import pytest

from stategraph.bench.cases import Case, shipped_cases

from .oracle import evaluate

DECLARED = [c for c in shipped_cases() if c.track == "declared"]


@pytest.mark.parametrize("case", DECLARED, ids=lambda c: c.id)
def test_gold_matches_oracle(case: Case) -> None:
    out = evaluate(case)
    ex = case.expect
    assert set(ex.invalidated) == out.invalidated, "invalidated"
    assert set(ex.needs_confirmation) == out.needs_confirmation, "needs_confirmation"
    assert set(ex.restored) == out.restored, "restored"
    assert set(ex.kept) <= out.still_true, "kept must hold before and after"
    assert dict(ex.consequences) == out.consequences, "consequences"
    assert dict(ex.depth) == out.depth, "depth"


def test_oracle_cases_exist() -> None:
    assert len(DECLARED) >= 20
