"""Finance: what a verified, unfrozen account allows, the agent's own transfer plans, and
savings that rest on an income.

Amounts that only the concluding memory names (the 4000 saved, the 50000 sent) reach the
rules through ``mentioned/1``; they are never premises, so a plan rests on the income or the
account, not on itself.
"""

from __future__ import annotations

import clingo
import pytest

from stategraph.grounding import derive


def firings(inputs: list[str]) -> dict[str, list[list[str]]]:
    """Test input only: literal atom strings written in this file."""
    out: dict[str, list[list[str]]] = {}
    for f in derive([clingo.parse_term(t) for t in inputs], ["finance"], potential=True):
        out.setdefault(str(f.head), []).append(sorted(str(p) for p in f.premises))
    return out


def holding(inputs: list[str]) -> set[str]:
    return {str(f.head) for f in derive([clingo.parse_term(t) for t in inputs], ["finance"])}


VERIFIED = "identity_verified(user)"

TABLE = [
    ([VERIFIED], {"transfer_allowed(user,usd)", "transfer_allowed(user,unknown)"}, set()),
    ([VERIFIED, "flagged(user)"], set(), {"transfer_allowed(user,usd)"}),
    ([VERIFIED, "planned_transfer(user,50000,usd)"], {"planned_transfer(user,50000,usd)"}, set()),
    (
        [VERIFIED, "flagged(user)", "planned_transfer(user,50000,usd)"],
        set(),
        {"planned_transfer(user,50000,usd)"},
    ),
    (["planned_transfer(user,50000,usd)"], set(), {"planned_transfer(user,50000,usd)"}),
    (["income(user,20000,cny)", "savings(user,4000,cny)"], {"savings(user,4000,cny)"}, set()),
    (
        ["income(user,20000,cny)", "savings_transfer(user,4000,cny)"],
        {"savings(user,4000,cny)", "savings_transfer(user,4000,cny)"},
        set(),
    ),
    (["income(user,3000,cny)", "savings(user,4000,cny)"], set(), {"savings(user,4000,cny)"}),
    (["income(user,9000,usd)", "savings(user,4000,cny)"], set(), {"savings(user,4000,cny)"}),
]


@pytest.mark.parametrize(("inputs", "present", "absent"), TABLE)
def test_finance_table(inputs: list[str], present: set[str], absent: set[str]) -> None:
    derived = holding(inputs)
    assert present <= derived, present - derived
    assert not absent & derived


def test_plan_rests_on_the_request_when_one_is_on_record() -> None:
    plan = "planned_transfer(user,2000,usd)"
    with_request = firings([VERIFIED, "transfer_request(user,2000,usd)", plan])[plan]
    assert with_request == [["transfer_allowed(user,usd)", "transfer_request(user,2000,usd)"]]
    alone = firings([VERIFIED, plan])[plan]
    assert alone == [["transfer_allowed(user,usd)"]]


def test_savings_transfer_rests_on_the_savings_plan() -> None:
    got = firings(["income(user,20000,cny)", "savings_transfer(user,4000,cny)"])
    assert got["savings_transfer(user,4000,cny)"] == [["savings(user,4000,cny)"]]
    assert got["savings(user,4000,cny)"] == [["income(user,20000,cny)"]]
