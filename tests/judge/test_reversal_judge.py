"""The judge answers the question of a reversal before a person is asked
(:mod:`stategraph.judge.reversals`): a new fact told as a change that the reading matches only
loosely is put to the revision's judge as "does the old fact still hold now that the new one
does?". Replaced: the new fact supersedes the old one in the same revision, and what rested on
it is judged there too. Still holds: both stand and nothing is flagged. No answer: a person is
asked, as without a judge. The calls are logged, so an export replays to the same log."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from stategraph import Memory
from stategraph.audit.export import export, verify_export
from stategraph.judge.base import JudgeAnswer, JudgeCall, Question, question_key
from stategraph.judge.settle import JudgeBudget

GROUNDER = "stategraph.rule_grounder.v1"


class Answers:
    """A judge that answers "no longer holds" for the memories named, "still holds" (on the
    first holding memory offered) for the others, and nothing at all when ``silent``."""

    name = "tests.answers.v1"
    model = "answers"

    def __init__(self, gone: set[str], silent: bool = False) -> None:
        self.gone = gone
        self.silent = silent
        self.asked: list[Question] = []

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        self.asked += questions
        return [self._call(q) for q in questions]

    def _call(self, q: Question) -> JudgeCall:
        key = question_key(q, self.model)
        made = {"key": key, "question": q, "judge": self.name, "model": self.model}
        if self.silent:
            return JudgeCall(**made, error="no answer", attempts=1)
        if q.head.id in self.gone:
            answer = JudgeAnswer(still_holds=False, reason=f"{q.head.id} goes")
        else:
            support = tuple(h.id for h in q.holding[:1])
            answer = JudgeAnswer(still_holds=True, support=support, reason=f"{q.head.id} stays")
        return JudgeCall(**made, answer=answer, attempts=1)


def _internship(path: Path | str = ":memory:", reversals: str = "supersede") -> Memory:
    mem = Memory(path, rules="all", grounder=GROUNDER, reversals=reversals)
    mem.fact("intern", "Leo got a summer internship at the Fraunhofer lab in Dresden")
    mem.plan("sublet", "Find Leo a sublet near the Fraunhofer lab", context=["intern"])
    mem.fact("gym", "The user renewed the climbing gym membership for a year")
    return mem


def test_a_reversal_the_judge_confirms_supersedes_the_old_fact_in_the_same_revision() -> None:
    mem = _internship()
    mem.judge = judge = Answers({"intern", "sublet"})
    report = mem.fact("off", "Leo's Fraunhofer internship has been cancelled")
    (reversal,) = report.reversals
    assert (reversal.old, reversal.outcome) == ("intern", "superseded")
    assert reversal.decided_by == "judge"
    assert reversal.question == ""
    assert [(c.id, c.action, c.by) for c in report.changed if c.id == "intern"] == [
        ("intern", "superseded", "off")
    ]
    assert report.invalidated == ["sublet"]  # asked in the same revision, and gone
    assert report.needs_confirmation == []
    assert mem.pending_review() == []
    assert {q.head.id for q in judge.asked} == {"intern", "sublet"}
    (first, *_) = judge.asked
    assert (first.head.id, first.premise.id, first.premise_change) == ("intern", "off", "asserted")
    assert {"off", "gym"} <= mem.holding()
    assert not {"intern", "sublet"} & mem.holding()


def test_a_reversal_the_judge_rejects_keeps_both_and_flags_nothing() -> None:
    mem = _internship()
    mem.judge = Answers(set())
    report = mem.fact("off", "Leo's Fraunhofer internship has been cancelled")
    (reversal,) = report.reversals
    assert (reversal.outcome, reversal.decided_by) == ("kept", "judge")
    assert report.needs_confirmation == [] and report.invalidated == []
    assert {"intern", "sublet", "off", "gym"} <= mem.holding()
    assert mem.pending_review() == []


def test_without_an_answer_a_person_is_asked_as_without_a_judge() -> None:
    mem = _internship()
    mem.judge = Answers({"intern"}, silent=True)
    report = mem.fact("off", "Leo's Fraunhofer internship has been cancelled")
    (reversal,) = report.reversals
    assert (reversal.outcome, reversal.decided_by) == ("asked", None)
    assert "decided_by" not in reversal.model_dump()  # the logged form is as it was
    assert report.needs_confirmation == ["intern", "sublet"]


def test_under_the_ask_policy_a_person_answers_every_reversal() -> None:
    mem = _internship(reversals="ask")
    mem.judge = judge = Answers({"intern", "sublet"})
    report = mem.fact("off", "Leo's Fraunhofer internship has been cancelled")
    assert [(r.old, r.outcome) for r in report.reversals] == [("intern", "asked")]
    assert "intern" in report.needs_confirmation
    assert "intern" not in {q.head.id for q in judge.asked}


def test_the_answer_is_logged_and_an_export_replays_to_the_same_log(tmp_path: Path) -> None:
    mem = _internship(tmp_path / "m.db")
    mem.judge = Answers({"intern", "sublet"})
    mem.fact("off", "Leo's Fraunhofer internship has been cancelled")
    (entry,) = mem.store.history()[-1:]
    assert any(c.question.head.id == "intern" for c in entry.calls)
    out = tmp_path / "log.jsonl"
    export(mem.store, out)
    mem.close()
    assert verify_export(out).replayed == 4


def test_an_answer_is_served_from_the_cache_the_next_time() -> None:
    first = _internship()
    first.judge = Answers({"intern", "sublet"})
    first.fact("off", "Leo's Fraunhofer internship has been cancelled")
    calls = first.store.history()[-1].calls
    again = _internship()
    again.judge = judge = Answers(set())  # would say the opposite, if it were asked
    again.store.conn.executemany(
        "INSERT OR REPLACE INTO judge_cache VALUES (?, ?)",
        [(c.key, c.model_dump_json()) for c in calls],
    )
    report = again.fact("off", "Leo's Fraunhofer internship has been cancelled")
    assert report.reversals[0].outcome == "superseded"
    assert "intern" not in {q.head.id for q in judge.asked}


def _visit() -> Memory:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("visit", "Daniel's friend Kenji is visiting from Osaka in May")
    mem.plan("rainier", "Take Kenji up Mount Rainier on the Saturday", context=["visit"])
    mem.fact("ride", "Daniel signed up for the Seattle to Portland bike ride in July")
    return mem


_OFF = "Kenji's leave got cancelled; he won't make it to Seattle this spring"


def test_a_judge_is_also_asked_about_facts_the_reading_does_not_name() -> None:
    """The reading names Seattle, so only the bike ride is a reversal a person could be asked
    about; the visit shares a name and nothing the reading names. The judge is asked about
    it too, and what it confirms is reported and revised like any reversal."""
    alone = _visit()
    report = alone.fact("off", _OFF)
    assert [(r.old, r.outcome) for r in report.reversals] == [("ride", "asked")]
    mem = _visit()
    mem.judge = judge = Answers({"visit", "rainier"})
    report = mem.fact("off", _OFF)
    assert [(r.old, r.outcome) for r in report.reversals] == [
        ("ride", "kept"),
        ("visit", "superseded"),
    ]
    assert report.invalidated == ["rainier"]
    assert report.needs_confirmation == []
    assert {"visit", "ride"} <= {q.head.id for q in judge.asked}


def test_a_possible_reversal_the_judge_does_not_confirm_is_left_out() -> None:
    for judge in (Answers(set()), Answers({"visit"}, silent=True)):
        mem = _visit()
        mem.judge = judge
        report = mem.fact("off", _OFF)
        assert [r.old for r in report.reversals] == ["ride"]  # the visit is not reported
        assert "visit" not in report.needs_confirmation and "visit" in mem.holding()


def _school(reversals: str = "check") -> Memory:
    mem = Memory(rules="all", grounder=GROUNDER, reversals=reversals)
    mem.fact("school", "Omar teaches chemistry at Ridgeway School")
    mem.plan("cover", "Arrange cover for Omar's Ridgeway chemistry classes on exam day")
    mem.fact("wedding", "Omar's sister Lina gets married in Porto on 6 June")
    return mem


_MOVED = "Omar teaches chemistry at Fairfield Academy"
"""A replacement told with no cue the grounder knows: no negation, no change word."""


def test_under_check_a_fact_with_no_turn_is_put_to_the_judge() -> None:
    """The reading finds no turn in the new job, so without ``check`` the judge is asked only
    whether the plan still holds beside the new fact (a blocker's question), and the old job
    holds beside the new one. Under ``check`` the judge is also asked about the fact that
    shares the most with it (not the wedding, which shares only the name), and what it
    confirms supersedes that fact in the same revision."""
    plain = _school("supersede")
    plain.judge = quiet = Answers({"school", "cover"})
    report = plain.fact("move", _MOVED)
    assert report.reversals == () and {q.head.id for q in quiet.asked} == {"cover"}
    assert {"school", "move"} <= plain.holding()
    mem = _school()
    mem.judge = judge = Answers({"school", "cover"})
    report = mem.fact("move", _MOVED)
    assert [(r.old, r.outcome, r.decided_by) for r in report.reversals] == [
        ("school", "superseded", "judge")
    ]
    assert report.invalidated == ["cover"]
    assert judge.asked[0].head.id == "school" and judge.asked[0].premise.id == "move"
    assert "wedding" not in {q.head.id for q in judge.asked}


def test_under_check_what_the_judge_keeps_is_not_reported_and_nothing_shared_asks_nothing() -> None:
    mem = _school()
    mem.judge = judge = Answers(set())
    report = mem.fact("move", _MOVED)
    assert report.reversals == () and report.needs_confirmation == []
    assert {"school", "cover", "move"} <= mem.holding()
    asked = len(judge.asked)
    report = mem.fact("gym", "The user renewed the climbing gym membership for a year")
    assert report.reversals == () and len(judge.asked) == asked  # shares nothing: no call


def test_check_without_a_judge_is_supersede() -> None:
    for policy in ("check", "supersede"):
        mem = _school(policy)
        report = mem.fact("move", _MOVED)
        assert report.reversals == () and {"school", "move"} <= mem.holding()
        off = mem.fact("off", "Omar's sister Lina called off the wedding in Porto")
        assert [(r.old, r.outcome) for r in off.reversals] == [("wedding", "asked")], policy


class _Slow(Answers):
    """Answers, after ``delay`` seconds for a question about one of ``slow``."""

    def __init__(self, gone: set[str], slow: set[str], delay: float) -> None:
        super().__init__(gone)
        self.slow, self.delay = slow, delay

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        if any(q.head.id in self.slow for q in questions):
            time.sleep(self.delay)
        return super().ask(questions)


def test_the_reversals_time_counts_against_the_revision_s_deadline() -> None:
    """The judge took the whole deadline answering the reversal: the sublet, which it would
    have been asked about next, is left to confirmation, not asked past the deadline."""
    mem = _internship()
    mem.judge_budget = JudgeBudget(seconds=0.2)
    mem.judge = judge = _Slow({"intern", "sublet"}, {"intern"}, 0.3)
    report = mem.fact("off", "Leo's Fraunhofer internship has been cancelled")
    assert [(r.old, r.outcome) for r in report.reversals] == [("intern", "superseded")]
    assert report.needs_confirmation == ["sublet"] and report.invalidated == []
    assert {q.head.id for q in judge.asked} == {"intern"}
    fast = _internship()
    fast.judge_budget = JudgeBudget(seconds=5.0)
    fast.judge = _Slow({"intern", "sublet"}, {"intern"}, 0.3)
    assert fast.fact("off", "Leo's Fraunhofer internship has been cancelled").invalidated == [
        "sublet"
    ]
