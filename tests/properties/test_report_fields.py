"""Every field of every report against oracle (c) (:mod:`stategraph.testing.oracles.report`).

The clause-by-clause properties in ``test_cascade`` name the clause a failure breaks; this one
compares the whole report with what the contract and the two well-founded models say, so a
field none of them looks at (a lost support's ``removed``, a supersede's ``by``, an undefined
blocker, the cycle of an undefined state) cannot go wrong unnoticed.
"""

from __future__ import annotations

from hypothesis import given

from stategraph.model import Entry, Report
from stategraph.testing.graphs import Just, Scenario
from stategraph.testing.oracles.report import (
    Changed,
    Expected,
    Lost,
    changed_states,
    cone_size,
    expected_entries,
    value_of,
)
from stategraph.testing.strategies import scenarios

from .test_cascade import revisions


def as_expected(e: Entry) -> Expected:
    """An engine entry in the oracle's terms (surviving aside: it is checked on its own)."""
    r = e.reason
    return Expected(
        e.id,
        e.kind,
        e.old.value,
        e.new.value,
        e.verdict.value,
        r.cause,
        e.depth,
        e.decided_by.value,
        e.consequence.value if e.consequence is not None else None,
        tuple(
            Lost(
                lost.justification.premises,
                lost.justification.unless,
                lost.failed,
                lost.blocked_by,
                lost.removed,
            )
            for lost in r.lost
        ),
        r.cycle,
        r.undecided,
    )


def changed_of(report: Report) -> tuple[Changed, ...]:
    return tuple(Changed(c.id, c.action, c.by, c.new.value) for c in report.changed)


@given(scenarios())
def test_every_report_field_is_the_oracles(scenario: Scenario) -> None:
    """Entries (which states, in what order, and every field), the changed states, the cone
    size and the edges all equal oracle (c); a kept or restored state names a justification of
    its own that holds, and no other verdict names one."""
    for step in revisions(scenario):
        report = step.report
        where = f"after {step.change!r}"
        assert changed_of(report) == changed_states(step.change, step.new), where
        expected = expected_entries(step.change, step.before, step.after, step.old, step.new)
        got = [as_expected(e) for e in report.entries]
        assert [e.id for e in got] == [e.id for e in expected], where
        for g, x in zip(got, expected, strict=True):
            assert g == x, f"{g.id} {where}:\n engine {g}\n oracle {x}"
        assert report.cone_size == cone_size(step.change, step.before), where
        assert report.edges == (), where
        for e in report.entries:
            ref = e.reason.surviving
            if e.verdict.value not in ("kept", "restored"):
                assert ref is None, f"{e.id} {where}: {e.verdict.value} names a survivor"
                continue
            assert ref is not None, f"{e.id} {where}"
            just = Just.of(e.id, ref.premises, ref.unless)
            assert just in step.after.justs and value_of(just, step.new) == "true", e.id
