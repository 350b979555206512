"""Derivation tables for the broadened packs, and value-tied conclusions.

A conclusion tied to a value of a fact (the reminder for the passport expiring on 2026-08-01,
the truck for the move in December 2026, the refill of a 500 mg dose) must be derived only
from a fact with that value: a compatible update that changes the value withdraws it, while
the conclusions that do not depend on the value (the new city's restaurants) stay.
"""

from __future__ import annotations

import clingo
import pytest

from stategraph.grounding import derive


def heads(inputs: list[str], packs: list[str]) -> set[str]:
    """Test input only: literal atom strings written in this file."""
    return {str(f.head) for f in derive([clingo.parse_term(t) for t in inputs], packs)}


MOVE_DEC = 'moves(user,chicago,denver,"2026-12")'
MOVE_JAN = 'moves(user,chicago,denver,"2027-01")'

# (pack(s), premise atoms, atoms that must be derived, atoms that must not be derived)
TABLE = [
    (
        ["relocation"],
        [MOVE_DEC],
        {
            "home_city(user,denver)",
            "recommend(user,restaurants,denver)",
            "recommend(user,fitness,denver)",
            "recommend(user,housing,denver)",
            "local_service(user,parking_permit,denver)",
            "local_service(user,library_card,denver)",
            "local_service(user,broadband,denver)",
            "cancel_utility(user,gym)",
            "cancel_utility(user,utilities)",
        },
        {"local_service(user,parking_permit,chicago)", "cancel_utility(user,mailing_address)"},
    ),
    (
        ["relocation"],
        ["lives_in(user,hangzhou)"],
        {
            "local_service(user,residence_registration,hangzhou)",
            "local_service(user,social_insurance,hangzhou)",
            "recommend(user,schools,hangzhou)",
        },
        {"cancel_utility(user,gym)"},
    ),
    (
        ["relocation"],
        ["stays(user,shanghai)"],
        {"local_service(user,gym,shanghai)"},
        {"cancel_utility(user,gym)"},
    ),
    (
        ["scheduling"],
        [MOVE_DEC],
        {
            'booking(user,moving_truck,"2026-12")',
            'booking(user,movers,"2026-12")',
            "booking(user,storage,unknown)",
        },
        {'booking(user,flight,"2026-12")'},
    ),
    (
        ["scheduling"],
        ["moves(user,denver,denver,unknown)"],
        set(),
        {"booking(user,moving_truck,unknown)"},
    ),
    (
        ["scheduling"],
        ['trip(user,tokyo,"2027-03")'],
        {
            'booking(user,flight,"2027-03")',
            "booking(user,rental_car,unknown)",
            "book_hotel(user,tokyo)",
        },
        {'booking(user,movers,"2027-03")'},
    ),
    (
        ["scheduling"],
        [MOVE_DEC, 'trip(user,tokyo,"2027-03")'],
        {'preparation(user,"2026-12")', 'preparation(user,"2027-03")', "preparation(user,unknown)"},
        set(),
    ),
    (
        ["scheduling"],
        ['appointment(user,dentist,"2026-12-05")'],
        {'appointment_reminder(user,dentist,"2026-12-05")', "remind(user,dentist)"},
        set(),
    ),
    (
        ["scheduling"],
        ["appointment(user,dentist,unknown)"],
        {"remind(user,dentist)"},
        {"appointment_reminder(user,dentist,unknown)"},
    ),
    (
        ["health"],
        ['dose(user,metformin,"500mg")'],
        {
            "on_medication(user,metformin)",
            "refill_reminder(user,metformin)",
            'refill_dose(user,metformin,"500mg")',
            'med_reminder(user,metformin,"500mg")',
            "med_reminder(user,metformin,unknown)",
        },
        {'refill_dose(user,metformin,"1000mg")'},
    ),
    (
        ["health"],
        ["takes(user,atorvastatin)"],
        {"med_reminder(user,atorvastatin,unknown)", "refill_reminder(user,atorvastatin)"},
        {"refill_dose(user,atorvastatin,_)"},
    ),
    (
        ["health"],
        ["diagnosed(user,high_cholesterol)"],
        {"prescribed(user,atorvastatin)", "refill_reminder(user,atorvastatin)"},
        {"prescribed(user,rosuvastatin)"},
    ),
    (
        ["health"],
        ["diagnosed(user,uti)", "allergic(user,sulfa)"],
        {"prescribed(user,nitrofurantoin)", "contraindicated(user,trimethoprim_sulfamethoxazole)"},
        {"prescribed(user,trimethoprim_sulfamethoxazole)"},
    ),
    (
        ["health"],
        ["diagnosed(user,arthritis)", "allergic(user,nsaids)"],
        {"prescribed(user,acetaminophen)", "contraindicated(user,ibuprofen)"},
        {"prescribed(user,ibuprofen)"},
    ),
    (
        ["finance"],
        ['document_expires(user,passport,"2026-08-01")'],
        {
            'document_renewal(user,passport,"2026-08-01")',
            "document_renewal(user,passport,unknown)",
        },
        {"document_renewal(user,id_card,_)"},
    ),
    (
        ["finance"],
        ["identity_verified(user)", "transfer_request(user,1000,gbp)"],
        {"scheduled_transfer(user,1000,gbp)"},
        set(),
    ),
    (
        ["finance"],
        ["identity_verified(user)", "transfer_request(user,6000,gbp)"],
        {"account_limit(user,standard)"},
        {"scheduled_transfer(user,6000,gbp)"},
    ),
]


@pytest.mark.parametrize(("packs", "inputs", "present", "absent"), TABLE)
def test_pack_table(
    packs: list[str], inputs: list[str], present: set[str], absent: set[str]
) -> None:
    derived = heads(inputs, packs)
    assert present <= derived, present - derived
    for pattern in absent:
        prefix = pattern.removesuffix("_)")
        if prefix != pattern:
            assert not any(h.startswith(prefix) for h in derived), pattern
        else:
            assert pattern not in derived, pattern


# (packs, the fact, the same fact with another value, tied conclusion, value-free conclusions)
UPDATES = [
    (
        ["relocation", "scheduling"],
        MOVE_DEC,
        MOVE_JAN,
        'booking(user,moving_truck,"2026-12")',
        {
            "recommend(user,restaurants,denver)",
            "local_service(user,parking_permit,denver)",
            "booking(user,moving_truck,unknown)",
        },
    ),
    (
        ["relocation"],
        MOVE_DEC,
        'moves(user,chicago,boulder,"2026-12")',
        "local_service(user,parking_permit,denver)",
        {"cancel_utility(user,gym)", "cancel_utility(user,broadband)"},
    ),
    (
        ["scheduling"],
        MOVE_DEC,
        MOVE_JAN,
        'preparation(user,"2026-12")',
        {"preparation(user,unknown)", "booking(user,movers,unknown)"},
    ),
    (
        ["finance"],
        'document_expires(user,passport,"2026-08-01")',
        'document_expires(user,passport,"2036-08-01")',
        'document_renewal(user,passport,"2026-08-01")',
        {"document_renewal(user,passport,unknown)"},
    ),
    (
        ["health"],
        'dose(user,metformin,"500mg")',
        'dose(user,metformin,"1000mg")',
        'refill_dose(user,metformin,"500mg")',
        {"refill_reminder(user,metformin)", "med_reminder(user,metformin,unknown)"},
    ),
    (
        ["scheduling"],
        'appointment(user,dentist,"2026-12-05")',
        'appointment(user,dentist,"2026-12-08")',
        'appointment_reminder(user,dentist,"2026-12-05")',
        {"remind(user,dentist)"},
    ),
]


@pytest.mark.parametrize(("packs", "old", "new", "tied", "kept"), UPDATES)
def test_value_change_withdraws_only_the_tied_conclusion(
    packs: list[str], old: str, new: str, tied: str, kept: set[str]
) -> None:
    before = heads([old], packs)
    after = heads([new], packs)
    assert tied in before
    assert tied not in after
    assert kept <= before
    assert kept <= after


def test_move_booking_firing_names_the_move() -> None:
    firings = derive([clingo.parse_term(MOVE_DEC)], ["scheduling"])
    truck = next(f for f in firings if str(f.head) == 'booking(user,moving_truck,"2026-12")')
    assert [str(p) for p in truck.premises] == [MOVE_DEC]
