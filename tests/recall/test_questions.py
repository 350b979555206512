"""A question names only what its memory rests on, bounded, never another namespace's
memory, without reading the log; the review queue asked by change (issues 41 and 42)."""

from __future__ import annotations

import pytest

from stategraph import Memory
from stategraph.recall import recall
from stategraph.review.questions import MAX_NAMED, MAX_QUOTED


def _two_trips() -> Memory:
    mem = Memory(candidates=None)
    mem.fact("trip", "The user flies to Tokyo on 2027-04-10")
    mem.fact("dentist", "The dentist appointment is on 2027-03-18")
    mem.plan("taxi", "Book a taxi to Pudong airport on 2027-04-10", context=["trip"])
    mem.plan("remind", "Remind the user about the dentist on 2027-03-17", context=["dentist"])
    return mem


def test_a_question_names_only_the_change_to_its_own_basis() -> None:
    mem = _two_trips()
    mem.retract("trip", "dentist")  # one revision, two unrelated changes
    (taxi,) = [r for r in mem.recall("taxi airport", k=5) if r.id == "taxi"]
    assert taxi.ask_first is not None and "Tokyo" in taxi.ask_first
    assert "dentist" not in taxi.ask_first  # the other change of the revision is not its cause


def test_a_question_is_bounded_and_reads_no_log(monkeypatch: pytest.MonkeyPatch) -> None:
    mem = Memory(candidates=None)
    facts = [f"f{i}" for i in range(MAX_NAMED + 4)]
    for f in facts:
        mem.fact(f, f"Fact {f}: " + "long words " * 200)
    mem.plan("p", "A plan resting on every fact", context=facts)
    mem.retract(*facts)

    def no_log(*args: object, **kwargs: object) -> object:
        raise AssertionError("a recall read the log")

    monkeypatch.setattr(mem.store, "iter_history", no_log)
    (p,) = mem.recall("plan resting", k=1)
    assert p.ask_first is not None
    assert p.ask_first.count("was withdrawn") == MAX_NAMED and "4 more it rests on" in p.ask_first
    assert len(p.ask_first) < 2 * (MAX_NAMED + 2) * MAX_QUOTED


def test_a_question_never_quotes_another_namespace() -> None:
    """Issue 42, finding 2: one retraction removed Alice's and Bob's memories."""
    mem = Memory(candidates=None)
    mem.fact("users/alice/home", "Alice lives in Paris")
    mem.fact("users/bob/health", "Bob was diagnosed with HIV in March")
    mem.plan("users/alice/gym", "Find a gym in Paris", context=["users/alice/home"])
    mem.plan("users/alice/bob", "Ask Bob about his health", context=["users/bob/health"])
    mem.retract("users/alice/home", "users/bob/health")
    found = recall(mem, "gym Paris health Bob", k=5, id_prefix="users/alice/")
    asked = " ".join(r.ask_first or "" for r in found)
    assert "Alice lives in Paris" in asked
    assert "HIV" not in asked and "outside this namespace" in asked


def test_the_review_queue_asked_by_change() -> None:
    mem = _two_trips()
    mem.plan("cash", "Exchange yen before the flight", context=["trip"])
    mem.retract("trip", "dentist")
    groups = {g.cause: g for g in mem.review_groups()}
    assert set(groups) == {"trip", "dentist"}
    assert groups["trip"].ids == ("cash", "taxi")
    assert groups["trip"].question.startswith(
        'Since "The user flies to Tokyo on 2027-04-10" was withdrawn, do these still hold?'
    )
    assert groups["dentist"].ids == ("remind",)
