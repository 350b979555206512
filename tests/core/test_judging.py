"""The judge inside a revision: which questions are asked, the basis check, what is recorded.

The judges here are small scripted implementations of the ``Judge`` protocol (the real
OpenAI-compatible client is tested against a loopback server in ``tests/judge/``); what is
under test is the engine: what it asks, what it accepts, and what an answer changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from stategraph import Memory, audit
from stategraph.judge import JudgeAnswer, JudgeCall, Question, ReplayJudge, question_key
from stategraph.judge.settle import JudgeBudget
from stategraph.model import DecidedBy, EdgeCheck, Origin, Truth

Answer = Callable[[Question], JudgeAnswer | None]


class Scripted:
    """A judge answering with a function of the question; records what it was asked."""

    name = "test.scripted.v1"
    model = "script"

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.asked: list[Question] = []

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        out = []
        for q in questions:
            self.asked.append(q)
            a = self.answer(q)
            out.append(
                JudgeCall(
                    key=question_key(q, self.model),
                    question=q,
                    judge=self.name,
                    model=self.model,
                    answer=a,
                    error=None if a is not None else "timeout",
                    attempts=1,
                    prompt_tokens=100,
                    completion_tokens=20,
                )
            )
        return out


def depends(q: Question) -> JudgeAnswer:
    return JudgeAnswer(still_holds=False, reason="it rested on that")


def holds_on_first(q: Question) -> JudgeAnswer:
    support = (q.holding[0].id,) if q.holding else ()
    return JudgeAnswer(still_holds=True, support=support, reason="other support")


def trip_memory(judge: Scripted | None = None, path: Path | None = None) -> Memory:
    """A plan written with two candidates: the trip it rests on and a neighbour."""
    mem = Memory(path, judge=judge)
    mem.fact("f1", "The user flies to Tokyo on May 10")
    mem.fact("f2", "The user likes sushi")
    mem.plan("p1", "Book a sushi dinner in Tokyo", context=["f1", "f2"])
    return mem


def test_without_a_judge_a_lost_candidate_goes_to_confirmation() -> None:
    mem = trip_memory()
    report = mem.retract("f1")
    assert report.needs_confirmation == ["p1"]
    assert report.entry("p1").reason.cause == "unverified_candidate"  # type: ignore[union-attr]
    assert report.edge_counts == {
        "considered": 1,
        "logic": 0,
        "asked": 0,
        "judge": 0,
        "flagged": 1,
    }


def test_does_not_hold_confirms_the_dependency_and_logic_invalidates() -> None:
    judge = Scripted(depends)
    mem = trip_memory(judge)
    report = mem.retract("f1")
    assert report.invalidated == ["p1"]
    entry = report.entry("p1")
    assert entry is not None and entry.decided_by is DecidedBy.judge
    (edge,) = report.edges
    assert (edge.head, edge.premise, edge.check, edge.decided_by) == (
        "p1",
        "f1",
        EdgeCheck.dependency,
        DecidedBy.judge,
    )
    (q,) = judge.asked
    assert (q.head.id, q.premise.id, q.premise_change) == ("p1", "f1", "retracted")
    (j,) = mem.justifications("p1")
    assert j.checked == {"f1": EdgeCheck.dependency} and "rested on that" in j.notes["f1"]
    calls = mem.history()[-1].calls
    assert [c.key for c in calls] == [question_key(q, "script")]


def test_still_holds_with_support_becomes_a_judge_justification() -> None:
    judge = Scripted(holds_on_first)
    mem = trip_memory(judge)
    report = mem.retract("f1")
    assert report.kept == ["p1"] and mem.truth("p1") is Truth.true
    (q,) = judge.asked
    assert [h.id for h in q.holding] == ["f2"]  # held before and after; f1 is the premise
    by_origin = {j.origin: j for j in mem.justifications("p1")}
    assert by_origin[Origin.judge].premises == ("f2",)
    assert by_origin[Origin.recovered].checked == {"f1": EdgeCheck.independent}
    # the answer is recorded: losing f2 later puts only the f2 edge in question, f1's is settled
    judge.answer = depends
    assert mem.retract("f2").invalidated == ["p1"]
    assert [(q.head.id, q.premise.id) for q in judge.asked] == [("p1", "f1"), ("p1", "f2")]


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (JudgeAnswer(still_holds=True, reason="trust me"), "names no support"),
        (JudgeAnswer(still_holds=True, support=("f1",), reason="x"), "not among the holding"),
        (JudgeAnswer(still_holds=True, support=("p1",), reason="x"), "not among the holding"),
        (JudgeAnswer(still_holds=True, support=("zz",), reason="x"), "not among the holding"),
        (None, "no answer: timeout"),
    ],
)
def test_the_basis_check_rejects_a_rubber_stamp(answer: JudgeAnswer | None, why: str) -> None:
    mem = trip_memory(Scripted(lambda q: answer))
    report = mem.retract("f1")
    assert report.needs_confirmation == ["p1"]
    (edge,) = report.edges
    assert edge.asked and edge.decided_by is None and why in edge.note
    assert {j.origin for j in mem.justifications("p1")} == {Origin.recovered}


def test_a_state_moved_by_the_change_is_never_offered_as_support() -> None:
    judge = Scripted(holds_on_first)
    mem = Memory(judge=judge)
    mem.fact("f1", "The user flies to Tokyo")
    mem.belief("b1", "A Tokyo hotel is needed", because=["f1"])
    mem.plan("p1", "Book the Tokyo hotel near the office", context=["f1", "b1"])
    mem.retract("f1")
    asked = [q for q in judge.asked if q.head.id == "p1"]
    assert asked and all("b1" not in {h.id for h in q.holding} for q in asked)  # fell with f1


def test_a_memory_offered_only_for_being_recent_is_never_offered_as_support() -> None:
    judge = Scripted(holds_on_first)
    mem = Memory(judge=judge)
    mem.fact("f1", "The user flies to Tokyo on May 10")
    mem.fact("f2", "The user likes sushi")
    mem.plan("p1", "Book a sushi dinner in Tokyo")
    mem.fact("f3", "The user's sister plays the cello")  # written last, shares nothing
    report = mem.retract("f1")
    (q,) = judge.asked
    assert [h.id for h in q.holding] == ["f2"]  # its own candidate, about sushi
    assert report.kept == ["p1"] and mem.justifications("p1")[-1].premises == ("f2",)


def test_a_chain_is_settled_in_rounds_shallowest_first() -> None:
    judge = Scripted(depends)
    mem = Memory(judge=judge, candidates=None)  # the context alone: a1 rests on p1
    mem.fact("f1", "The user moves to Shenzhen in December")
    mem.fact("f9", "The user likes hiking")
    mem.plan("p1", "Look for a flat in Nanshan", context=["f1", "f9"])
    mem.action("a1", "Call the Nanshan agent on Friday", context=["p1", "f9"])
    report = mem.retract("f1")
    assert report.invalidated == ["a1", "p1"]
    assert [(q.head.id, q.premise.id) for q in judge.asked] == [("p1", "f1"), ("a1", "p1")]
    # depths count from the change as asked, not from the answers later rounds were seeded with
    assert [(e.id, e.depth) for e in report.entries] == [("p1", 1), ("a1", 2)]
    assert judge.asked[1].premise_change == "no_longer_holds"


def test_an_identical_question_in_a_later_revision_is_served_from_the_stores_cache(
    tmp_path: Path,
) -> None:
    """A question whose answer was rejected leaves the edge undecided, so it can come back:
    the same question in a later revision (after the store is reopened, with a judge that
    never saw it) is answered from the store's cache, and the model is not asked again."""
    stamp: Answer = lambda q: JudgeAnswer(still_holds=True, reason="trust me")  # noqa: E731
    first = Scripted(stamp)
    with Memory.open(tmp_path / "m.db", judge=first, candidates=None) as mem:
        mem.fact("f0", "The user flies to Tokyo on May 10")
        mem.belief("f1", "The user will be in Tokyo in May", because=["f0"])
        mem.fact("f2", "The user likes sushi")
        mem.plan("p1", "Book a sushi dinner in Tokyo", context=["f1", "f2"])
        asked = mem.retract("f0")
        (call,) = mem.history()[-1].calls
    assert asked.needs_confirmation == ["p1"] and len(first.asked) == 1
    assert not call.cached and call.attempts == 1
    second = Scripted(stamp)
    with Memory.open(tmp_path / "m.db", judge=second, candidates=None) as mem:
        declared = {"head": "p1", "premises": ["f2"]}
        assert mem.revise({"add_justifications": [declared]}).restored == ["p1"]
        again = mem.revise({"remove_justifications": [declared]})  # p1 is undecided again
        (served,) = mem.history()[-1].calls
    assert second.asked == []  # the store answered: the model was not asked
    assert served.key == call.key and served.cached and served.attempts == 0
    assert served.answer == call.answer
    assert again.needs_confirmation == ["p1"] and again.edges == asked.edges


def test_each_store_keeps_its_own_cache(tmp_path: Path) -> None:
    judge = Scripted(depends)
    for name in ("a.db", "b.db"):
        with trip_memory(judge, tmp_path / name) as mem:
            assert mem.retract("f1").invalidated == ["p1"]
    first, second = judge.asked
    assert question_key(first, "script") == question_key(second, "script")  # asked twice


def test_cached_answers_are_served_without_the_model(tmp_path: Path) -> None:
    judge = Scripted(depends)
    mem = trip_memory(judge, tmp_path / "m.db")
    first = mem.retract("f1")
    calls = mem.history()[-1].calls
    mem.close()
    # a copy of the store before the revision, revised again: the log's calls replay it
    replay = ReplayJudge(calls)
    again = trip_memory(None, tmp_path / "n.db")
    again.judge = replay
    second = again.retract("f1")
    assert second.to_json() == first.to_json()
    assert all(c.cached and c.attempts == 0 for c in again.history()[-1].calls)


def test_the_budget_bounds_the_calls() -> None:
    judge = Scripted(depends)
    mem = Memory(judge=judge, judge_budget=JudgeBudget(calls=1), candidates=None)
    mem.fact("f1", "The user flies to Tokyo")
    mem.plan("p1", "Book a Tokyo hotel", context=["f1"])
    mem.plan("p2", "Buy a Tokyo metro card", context=["f1"])
    report = mem.retract("f1")
    assert len(judge.asked) == 1
    assert report.invalidated == ["p1"] and report.needs_confirmation == ["p2"]
    flagged = [e for e in report.edges if e.decided_by is None]
    assert [e.note for e in flagged] == ["not asked: the revision's judge budget is spent"]


class Slow(Scripted):
    """A judge that takes ``seconds`` to answer each batch."""

    def __init__(self, answer: Answer, seconds: float) -> None:
        super().__init__(answer)
        self.seconds = seconds

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        time.sleep(self.seconds)
        return super().ask(questions)


def test_past_the_deadline_the_next_round_is_recorded_unasked_and_replays(
    tmp_path: Path,
) -> None:
    judge = Slow(depends, seconds=0.3)
    mem = Memory(judge=judge, judge_budget=JudgeBudget(seconds=0.2), candidates=None)
    mem.fact("f1", "The user moves to Shenzhen in December")
    mem.plan("p1", "Look for a flat in Nanshan", context=["f1"])
    mem.action("a1", "Call the Nanshan agent on Friday", context=["p1"])
    report = mem.retract("f1")
    # the first round was answered after the deadline; the second was not sent
    assert [(q.head.id, q.premise.id) for q in judge.asked] == [("p1", "f1")]
    assert report.invalidated == ["p1"] and report.needs_confirmation == ["a1"]
    late = "deadline: the revision's judge time (0.2 s) ran out before it was asked"
    assert [c.error for c in mem.history()[-1].calls] == [None, late]
    assert [e.note for e in report.edges if e.head == "a1"] == [f"no answer: {late}"]
    audit.export(mem.store, tmp_path / "log.jsonl")  # type: ignore[arg-type]
    result = audit.verify_export(tmp_path / "log.jsonl")  # replayed without the clock
    assert result.replayed == result.count == 4 and result.not_replayed == ""


class PromptV1(Scripted):
    """A judge still on the first prompt version (as every call logged before v2 was)."""

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        return [
            c.model_copy(
                update={
                    "key": question_key(c.question, self.model, "counterfactual.v1"),
                    "prompt_version": "counterfactual.v1",
                }
            )
            for c in super().ask(questions)
        ]


def test_a_log_of_the_first_prompt_version_and_no_deadline_replays(tmp_path: Path) -> None:
    judge = PromptV1(depends)
    mem = Memory(judge=judge, judge_budget=JudgeBudget(seconds=None), candidates=None)
    mem.fact("f1", "The user moves to Shenzhen in December")
    mem.plan("p1", "Look for a flat in Nanshan", context=["f1"])
    mem.action("a1", "Call the Nanshan agent on Friday", context=["p1"])
    assert mem.retract("f1").invalidated == ["a1", "p1"]
    assert "seconds" not in mem.history()[-1].config  # logged as before the deadline existed
    audit.export(mem.store, tmp_path / "log.jsonl")  # type: ignore[arg-type]
    result = audit.verify_export(tmp_path / "log.jsonl")
    assert result.replayed == result.count == 4


def test_logic_decides_before_the_judge_is_asked() -> None:
    judge = Scripted(depends)
    mem = Memory(judge=judge)
    mem.fact("f1", "The user flies to Tokyo")
    mem.fact("f2", "The user has a Tokyo office")
    mem.plan("p1", "Book a Tokyo hotel", because=["f2"], context=["f1"])
    report = mem.retract("f1")
    assert judge.asked == [] and report.invalidated == [] and mem.truth("p1") is Truth.true
    (j,) = [j for j in mem.justifications("p1") if j.origin is Origin.recovered]
    assert j.checked == {"f1": EdgeCheck.independent}  # decided when it was written


def test_an_asserted_fact_is_checked_against_the_stand_ins_it_may_defeat() -> None:
    defeated = Scripted(depends)
    mem = Memory(judge=defeated)
    mem.fact("f1", "The user moves to Manchester for a job at Auto Trader")
    mem.belief("b1", "The user pays the removal firm for the Manchester move out of pocket")
    mem.fact("f2", "Auto Trader pays the removal firm for the Manchester move")
    assert mem.truth("b1") is Truth.false
    (q,) = [q for q in defeated.asked if q.head.id == "b1"]
    assert (q.premise.id, q.premise_change) == ("f2", "asserted")
    (j,) = mem.justifications("b1")
    assert "f2" in j.unless
    assert mem.retract("f2").restored == ["b1"]


def test_without_a_judge_an_asserted_fact_flags_what_it_may_defeat() -> None:
    mem = Memory()
    mem.fact("f1", "The user moves to Manchester for a job at Auto Trader")
    mem.belief("b1", "The user pays the removal firm for the Manchester move out of pocket")
    report = mem.fact("f2", "Auto Trader pays the removal firm for the Manchester move")
    assert mem.truth("b1") is Truth.true  # logic has no reason to drop it
    entry = report.entry("b1")
    assert entry is not None and entry.verdict.value == "needs_confirmation"
    assert (entry.reason.cause, entry.reason.undecided) == ("possibly_defeated", ("f2",))
    (edge,) = report.edges
    assert edge.blocker and edge.decided_by is None and "no judge" in edge.note


def test_a_memory_already_in_doubt_is_reported_again_by_the_fact_that_may_defeat_it() -> None:
    """A correction of one of its candidates left the flight undefined; the wedding called
    off later touches it again, and the report says so, with this change's cause and the
    value it has (nothing is decided for it), rather than leave it to the earlier question."""
    mem = Memory()
    mem.fact("review", "Priya's review with Tom is on Tuesday 19 March")
    mem.fact("wedding", "Priya's sister Anjali is getting married in Kochi on 22 April")
    mem.plan("flight", "Priya flies out to Kochi on 18 April", context=["review", "wedding"])
    mem.supersede("review", {"id": "review2", "text": "Priya's review is on Thursday 21 March"})
    assert mem.truth("flight") is Truth.undefined
    report = mem.fact("off", "Anjali and Dev have called it off, so Priya isn't going to Kochi")
    entry = report.entry("flight")
    assert entry is not None and entry.verdict.value == "needs_confirmation"
    assert entry.old is entry.new is Truth.undefined
    assert (entry.reason.cause, entry.reason.undecided) == ("possibly_defeated", ("off",))
    assert mem.truth("flight") is Truth.undefined


def test_what_rests_on_a_possibly_defeated_memory_is_asked_once_it_is_settled() -> None:
    """A doubt does not travel through a candidate only in doubt: p1 is asked about when a
    person says b1 no longer holds, not before."""
    mem = Memory()
    mem.fact("f1", "The user moves to Manchester for a job at Auto Trader")
    mem.belief("b1", "The user pays the removal firm for the Manchester move out of pocket")
    mem.plan("p1", "Set aside savings on 10 October", context=["b1"])  # no word of f2
    mem.plan("p2", "Keep the gym membership", because=["f1"])  # a declared basis: untouched
    report = mem.fact("f2", "Auto Trader pays the removal firm for the Manchester move")
    flagged = {e.id: (e.depth, e.reason.undecided) for e in report.entries}
    assert flagged == {"b1": (1, ("f2",))}
    assert mem.truth("p1") is Truth.true and report.invalidated == []
    assert mem.reject("b1", by="ana").needs_confirmation == ["p1"]


MOVE_TEXT = "The user plans to move from Shanghai to Shenzhen in December 2026"
UNREAD = "The user changed their mind about it"  # the grounder reads nothing in it


def move_memory(judge: Scripted | None = None, path: Path | None = None) -> Memory:
    """A belief the rules link to a move; no candidates proposed, so only the rules link."""
    mem = Memory(
        path, rules="all", grounder="stategraph.rule_grounder.v1", judge=judge, candidates=None
    )
    mem.fact("m1", MOVE_TEXT)
    mem.belief("m2", "Commute times are computed for Shenzhen Nanshan")
    return mem


def test_without_a_judge_an_unreadable_replacement_that_ends_is_read_closed_world() -> None:
    mem = move_memory()
    (linked,) = mem.justifications("m2")
    report = mem.supersede("m1", {"id": "m1b", "text": UNREAD})  # "changed their mind"
    assert report.invalidated == ["m2"]  # nothing derives m2 any more
    assert mem.justifications("m2") == [linked]


def test_without_a_judge_an_unreadable_replacement_that_ends_nothing_asks_a_person() -> None:
    """Read as nothing, and neither denying nor ending anything, a replacement may keep the
    old fact ("the client is in Xiaoshan, the trip is still on the 20th") as well as undo it:
    logic does not decide from a reading it does not have, and a person does."""
    mem = move_memory()
    (linked,) = mem.justifications("m2")
    report = mem.supersede("m1", {"id": "m1b", "text": "The user talked it over with Wei"})
    assert report.invalidated == [] and report.needs_confirmation == ["m2"]
    assert mem.truth("m2") is Truth.undefined
    (entry,) = report.entries
    assert entry.reason.undecided == ("m1",)
    assert linked in mem.justifications("m2")


def test_a_correction_read_as_nothing_keeps_the_ticket_for_a_person() -> None:
    """The correction names the client's district and keeps the trip's dates; read as nothing
    (a bare negation, no ending), it no longer takes the train ticket the rules link to the
    trip: the ticket waits for a person."""
    mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
    mem.fact("trip", "晓雯11月20日到21日要去杭州滨江出差，拜访客户青禾科技。")
    mem.add({"id": "ticket", "kind": "action", "status": "pending",
             "text": "订11月20日上午从虹桥去杭州的高铁票。"})  # fmt: skip
    assert any(j.origin is Origin.rule for j in mem.justifications("ticket"))
    fixed = "更正一下：青禾科技在萧山，不在滨江，出差还是11月20日到21日。"
    report = mem.supersede("trip", {"id": "trip2", "text": fixed})
    assert report.invalidated == [] and report.needs_confirmation == ["ticket"]


def test_an_unreadable_replacement_leaves_rule_links_to_the_judge() -> None:
    mem = move_memory(Scripted(lambda q: None))  # a judge that never answers
    (linked,) = mem.justifications("m2")
    assert linked.origin is Origin.rule
    report = mem.supersede("m1", {"id": "m1b", "text": UNREAD})
    # The grounder reads nothing in m1b: whether it still carries m2 is put to the judge,
    # and with no answer m2 waits for a person. Its rule link stays (it no longer holds).
    assert report.invalidated == [] and report.needs_confirmation == ["m2"]
    assert report.entry("m2").reason.cause == "unverified_candidate"  # type: ignore[union-attr]
    assert {
        (j.origin, j.premises, tuple(j.proposed.items())) for j in mem.justifications("m2")
    } == {
        (Origin.rule, linked.premises, ()),
        (Origin.recovered, ("m1",), (("m1", "superseded"),)),
    }


@pytest.mark.parametrize(
    ("answer", "value"), [(depends, Truth.false), (holds_on_first, Truth.true)]
)
def test_the_judge_says_what_an_unreadable_replacement_carries(
    answer: Answer, value: Truth
) -> None:
    judge = Scripted(answer)
    mem = move_memory(judge)
    mem.supersede("m1", {"id": "m1b", "text": UNREAD})
    ((asked),) = judge.asked
    assert (asked.head.id, asked.premise.id, asked.premise_change) == ("m2", "m1", "superseded")
    assert asked.replacement is not None and asked.replacement.id == "m1b"
    assert mem.truth("m2") is value


def test_a_readable_replacement_is_decided_by_the_rules() -> None:
    judge = Scripted(holds_on_first)
    mem = move_memory(judge)
    report = mem.supersede(
        "m1", {"id": "m1b", "text": "The user plans to move from Shanghai to Hangzhou in 2026"}
    )
    assert report.invalidated == ["m2"] and judge.asked == []


def test_relinking_keeps_the_candidate_an_unreadable_replacement_left() -> None:
    mem = move_memory(Scripted(lambda q: None))
    mem.supersede("m1", {"id": "m1b", "text": UNREAD})
    # A new move relinks m2: it carries m2 now, and the candidate through m1 must not turn
    # back into the rule link (which would settle it without anyone deciding).
    mem.fact("m3", "The user will move from Shanghai to Shenzhen in December 2026")
    assert mem.truth("m2") is Truth.true
    linked = mem.justifications("m2")
    assert {(j.origin, j.premises) for j in linked} == {
        (Origin.recovered, ("m1",)),
        (Origin.rule, ("rule:commute_city(user,shenzhen)",)),
    }
    assert "m3" in [step.id for step in mem.why("m2").steps]


# --- one question per derived memory ------------------------------------------------------


def two_trips(judge: Scripted) -> Memory:
    """A plan written with two facts in context, both of which a change will retract."""
    mem = Memory(judge=judge, candidates=None)
    mem.fact("f1", "The user flies to Tokyo on May 10")
    mem.fact("f2", "The user flies on to Osaka on May 12")
    mem.fact("f3", "The user likes sushi")
    mem.plan("p1", "Book a sushi dinner in Kansai", context=["f1", "f2", "f3"])
    return mem


def test_one_question_covers_every_candidate_a_memory_lost() -> None:
    judge = Scripted(depends)
    mem = two_trips(judge)
    report = mem.revise({"retract": ["f1", "f2"]})
    (q,) = judge.asked  # one question, not one per edge
    assert [(c.memory.id, c.change) for c in q.changed] == [
        ("f1", "retracted"),
        ("f2", "retracted"),
    ]
    assert [h.id for h in q.holding] == ["f3"]
    assert report.invalidated == ["p1"]
    assert {(e.premise, e.check) for e in report.edges} == {
        ("f1", EdgeCheck.dependency),
        ("f2", EdgeCheck.dependency),
    }
    (j,) = mem.justifications("p1")
    assert j.checked == {"f1": EdgeCheck.dependency, "f2": EdgeCheck.dependency}
    assert "depends on f1, f2" in j.notes["f1"]


def test_still_holds_about_several_marks_each_independent_on_one_judged_support() -> None:
    judge = Scripted(holds_on_first)
    mem = two_trips(judge)
    report = mem.revise({"retract": ["f1", "f2"]})
    assert report.kept == ["p1"] and len(judge.asked) == 1
    by_origin = {j.origin: j for j in mem.justifications("p1")}
    assert by_origin[Origin.judge].premises == ("f3",)
    assert "asked about f1, f2" in by_origin[Origin.judge].notes["judge"]
    assert by_origin[Origin.recovered].checked == {
        "f1": EdgeCheck.independent,
        "f2": EdgeCheck.independent,
    }


def test_a_rubber_stamp_about_several_leaves_each_edge_undecided() -> None:
    judge = Scripted(lambda q: JudgeAnswer(still_holds=True, reason="trust me"))
    mem = two_trips(judge)
    report = mem.revise({"retract": ["f1", "f2"]})
    assert report.needs_confirmation == ["p1"]
    assert [(e.premise, e.decided_by) for e in report.edges] == [("f1", None), ("f2", None)]
    assert all("rubber stamp" in e.note for e in report.edges)


class PerEdge(Scripted):
    """A judge on the prompt version of one question per edge (as calls logged before v3)."""

    prompt_version = "counterfactual.v2"

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        return [
            c.model_copy(
                update={
                    "key": question_key(c.question, self.model, self.prompt_version),
                    "prompt_version": self.prompt_version,
                }
            )
            for c in super().ask(questions)
        ]


def test_a_log_of_one_question_per_edge_is_asked_and_replayed_edge_by_edge(
    tmp_path: Path,
) -> None:
    judge = PerEdge(depends)
    mem = Memory(judge=judge, candidates=None)
    mem.fact("f1", "The user flies to Tokyo on May 10")
    mem.fact("f2", "The user flies on to Osaka on May 12")
    mem.plan("p1", "Book a sushi dinner in Kansai", context=["f1", "f2"])
    assert mem.revise({"retract": ["f1", "f2"]}).invalidated == ["p1"]
    assert [(q.premise.id, q.also) for q in judge.asked] == [("f1", ()), ("f2", ())]
    audit.export(mem.store, tmp_path / "log.jsonl")  # type: ignore[arg-type]
    result = audit.verify_export(tmp_path / "log.jsonl")
    assert result.replayed == result.count == 4
