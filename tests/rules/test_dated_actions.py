"""Actions dated before the event they serve: ``next_date/4`` and the ``lead`` windows.

An agent dates many actions by an offset from an event (check in the day before the flight,
remind three days before the offsite, book movers the month before the move). The packs tie
such an action to the event that ``next_date`` finds first on or after its date, within the
lead its kind allows. Superseded memories stay inputs of linking, so an action keeps pointing
at the date it was computed for: a moved event withdraws it.
"""

from __future__ import annotations

import clingo
import pytest

from stategraph.grounding import derive, list_packs
from stategraph.grounding.packs import builtin_facts


def parse(texts: list[str]) -> list[clingo.Symbol]:
    """Test input only: literal atom strings written in this file."""
    return [clingo.parse_term(t) for t in texts]


def firings(inputs: list[str]) -> dict[str, list[list[str]]]:
    """Every derived head with the premise lists of its firings."""
    out: dict[str, list[list[str]]] = {}
    for f in derive(parse(inputs), list_packs(), potential=True):
        out.setdefault(str(f.head), []).append(sorted(str(p) for p in f.premises))
    return out


PASSPORT = 'document_expires(user,passport,"2026-08-01")'
TOKYO = 'trip(user,tokyo,"2026-05-10")'
CHECK_IN = 'check_in(user,"2026-05-09")'


def test_next_date_finds_the_first_event_on_or_after_each_date() -> None:
    facts = {
        str(f)
        for f in builtin_facts(
            parse(['trip(user,tokyo,"2026-05-10")', 'check_in(user,"2026-05-09")', 'x("2026-12")'])
        )
    }
    assert 'next_date("2026-05-09",trip,"2026-05-10",1)' in facts
    assert 'next_date("2026-05-10",trip,"2026-05-10",0)' in facts
    assert not any(f.startswith('next_date("2026-12",trip') for f in facts)
    assert 'next_date("2026-05-09",x,"2026-12",210)' in facts  # a month counts 30 days
    assert 'mentioned(check_in(user,"2026-05-09"))' in facts


def test_next_date_places_yearless_dates_in_the_nearest_year() -> None:
    facts = {
        str(f)
        for f in builtin_facts(
            parse(
                [
                    'trip(user,qingdao,"--07-20")',
                    'x("--07-19")',
                    'moves(user,oakland,sacramento,"2026-06-13")',
                    'y("--06-13")',
                    'z("2026-12-28")',
                    'w("--01-03")',
                    'v("--03")',
                ]
            )
        )
    }
    assert 'next_date("--07-19",trip,"--07-20",1)' in facts
    assert 'next_date("--06-13",moves,"2026-06-13",0)' in facts
    assert 'next_date("2026-12-28",w,"--01-03",6)' in facts  # into the next year
    assert 'next_date("--03",moves,"2026-06-13",90)' in facts
    assert not any(f.startswith('next_date("--07-19",moves') and ",-" in f for f in facts)


def test_next_date_ignores_non_dates_and_far_events() -> None:
    facts = {
        str(f) for f in builtin_facts(parse(['a("2026-02-30")', 'b("2026-01-01","2028-01-01")']))
    }
    assert not any(f.startswith("next_date") and "2026-02-30" in f for f in facts)
    assert not any(f.startswith('next_date("2026-01-01",b,"2028-01-01"') for f in facts)


# (inputs, head that must be derived from the premise, the premise)
TIED = [
    (['trip(user,tokyo,"2026-05-10")', 'check_in(user,"2026-05-09")'],
     'check_in(user,"2026-05-09")', 'trip(user,tokyo,"2026-05-10")'),
    (['trip(user,lima,"2026-03-01")', 'check_in(user,"2026-02-27")'],
     'check_in(user,"2026-02-27")', 'trip(user,lima,"2026-03-01")'),
    (['trip(user,tokyo,"2026-05-10")', 'booking(user,airport_transfer,"2026-05-10")'],
     'booking(user,airport_transfer,"2026-05-10")', 'trip(user,tokyo,"2026-05-10")'),
    (['trip(user,shanghai,"2026-11-20")', 'booking(user,train,"2026-11-19")'],
     'booking(user,train,"2026-11-19")', 'trip(user,shanghai,"2026-11-20")'),
    (['moves(user,beijing,hangzhou,"2026-12")', 'booking(user,movers,"2026-11")'],
     'booking(user,movers,"2026-11")', 'moves(user,beijing,hangzhou,"2026-12")'),
    (['appointment(user,offsite,"2026-09-14")', 'appointment_reminder(user,offsite,"2026-09-11")'],
     'appointment_reminder(user,offsite,"2026-09-11")', 'appointment(user,offsite,"2026-09-14")'),
    (['event_in(user,offsite,denver,"2026-09-14")', 'booking(user,hotel,"2026-09-13")'],
     'booking(user,hotel,"2026-09-13")', 'event_in(user,offsite,denver,"2026-09-14")'),
    (['event_in(user,conference,lisbon,"2026-10-02")'],
     'away(user,lisbon,"2026-10-02")', 'event_in(user,conference,lisbon,"2026-10-02")'),
    ([PASSPORT, 'document_renewal(user,passport,"2026-07-01")'],
     'document_renewal(user,passport,"2026-07-01")', PASSPORT),
]  # fmt: skip


@pytest.mark.parametrize(("inputs", "head", "premise"), TIED)
def test_action_dated_before_its_event_is_derived_from_it(
    inputs: list[str], head: str, premise: str
) -> None:
    assert [premise] in firings(inputs).get(head, [])


# Dated too early for the lead its kind allows: not derived.
UNTIED = [
    ['trip(user,tokyo,"2026-05-10")', 'check_in(user,"2026-05-06")'],
    ['trip(user,shanghai,"2026-11-25")', 'booking(user,train,"2026-11-19")'],
    ['appointment(user,dentist,"2026-12-20")', 'appointment_reminder(user,dentist,"2026-12-05")'],
    ['moves(user,beijing,hangzhou,"2027-04")', 'booking(user,movers,"2026-11")'],
    [
        'document_expires(user,passport,"2036-08-01")',
        'document_renewal(user,passport,"2026-07-01")',
    ],
    ['trip(user,tokyo,"2026-05-10")', 'check_in(user,"2026-05-11")'],  # after the flight
]


@pytest.mark.parametrize("inputs", UNTIED)
def test_action_dated_outside_the_lead_is_not_derived(inputs: list[str]) -> None:
    assert inputs[1] not in firings(inputs)


@pytest.mark.parametrize(
    ("old", "new", "action"),
    [
        (TOKYO, 'trip(user,tokyo,"2026-05-11")', CHECK_IN),
        (TOKYO, 'trip(user,tokyo,"2026-05-08")', CHECK_IN),
        ('appointment(user,dentist,"2026-12-05")', 'appointment(user,dentist,"2026-12-08")',
         'appointment_reminder(user,dentist,"2026-12-05")'),
        ('moves(user,a,b,"2026-12")', 'moves(user,a,b,"2027-01")',
         'booking(user,moving_truck,"2026-12")'),
    ],
)  # fmt: skip
def test_a_moved_event_leaves_the_action_on_the_old_date(old: str, new: str, action: str) -> None:
    """With the superseded fact still an input, the action serves the old date only."""
    got = firings([old, new, action]).get(action, [])
    assert [old] in got
    assert [new] not in got


# (inputs, derived, not derived): what an event on record supports whatever its date.
AROUND = [
    (["moves(user,hangzhou,nanjing,unknown)"], {"around(user,move)"}, {"around(user,trip)"}),
    (["moves(user,nanjing,nanjing,unknown)"], set(), {"around(user,move)"}),
    (['trip(user,tokyo,"2026-05-10")'], {"around(user,trip)", "recommend(user,restaurants,tokyo)"},
     {"around(user,move)"}),
    (['event_in(user,conference,boston,"2026-10-20")'],
     {"around(user,conference)", "around(user,trip)", "recommend(user,restaurants,boston)"},
     set()),
    (['appointment(user,surgery,unknown)'], {"around(user,surgery)"}, {"around(user,dentist)"}),
]  # fmt: skip


@pytest.mark.parametrize(("inputs", "present", "absent"), AROUND)
def test_around_an_event(inputs: list[str], present: set[str], absent: set[str]) -> None:
    derived = set(firings(inputs))
    assert present <= derived, present - derived
    assert not absent & derived
