"""A change told as a fact is seen as one.

Agents write "Actually the move is off" as a new fact, not as a supersession. Added as it is,
both the move and its cancellation would hold, and so would the commute belief and the
broadband to-do that rest on the move. A new fact that reads as reversing or replacing a
holding one (a turn: negation, cancellation, reversal or change cue, or an atom that undoes
the old one; plus a shared subject, event or time) is reported, and by the memory's policy it
supersedes the old fact (a clean reading) or puts the old fact and what rests on it to a
person. Never are both kept silently.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.cli.demo import SCENARIO, build
from stategraph.errors import InvalidInputError
from stategraph.service.settings import MemorySettings
from stategraph.store.sqlite import SQLiteStore

GROUNDER = "stategraph.rule_grounder.v1"

CALLED_OFF = {
    "en": [
        "The user decided to stay in Shanghai and cancelled the move",
        "The move to Shenzhen is off",
        "Actually the user is not moving to Shenzhen after all",
        "The user will stay in Shanghai",
        "Moving to Shenzhen? That's not happening anymore",
        "The user is staying in Shanghai; no move this year",
    ],
    "zh": [
        "用户最终决定留在上海，取消搬迁计划",
        "搬家的事黄了",
        "用户不搬去深圳了",
        "用户决定继续住在上海",
        "去深圳的事不再考虑了",
        "搬到深圳的计划取消了",
    ],
}
PHRASINGS = [(lang, text) for lang, texts in CALLED_OFF.items() for text in texts]


def _gone(report) -> set[str]:  # type: ignore[no-untyped-def]
    return set(report.invalidated) | set(report.needs_confirmation)


def _asking(lang: str) -> Memory:
    """The seed scenario's memory, text only, under the ``ask`` policy."""
    mem = Memory(rules="all", grounder=GROUNDER, reversals="ask")
    t = SCENARIO[lang]
    mem.fact("m1", t["m1"])
    mem.belief("m2", t["m2"])
    mem.action("m3", t["m3"])
    mem.fact("m4", t["m4"])
    return mem


@pytest.mark.parametrize(("lang", "text"), PHRASINGS)
def test_a_move_called_off_as_a_new_fact_is_never_kept_silently(lang: str, text: str) -> None:
    mem = build(lang, text_only=True)
    report = mem.fact("m1b", text)
    assert {"m2", "m3"} <= _gone(report)
    assert [r.old for r in report.reversals] == ["m1"]
    assert "m4" in mem.holding() and "m4" not in _gone(report)


@pytest.mark.parametrize(("lang", "text"), PHRASINGS)
def test_a_move_called_off_as_a_supersession_is_never_kept_silently(lang: str, text: str) -> None:
    mem = build(lang, text_only=True)
    report = mem.supersede("m1", {"id": "m1b", "text": text})
    assert {"m2", "m3"} <= _gone(report)
    assert "m4" not in _gone(report)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_retracted_move_takes_its_dependents(lang: str) -> None:
    report = build(lang, text_only=True).retract("m1")
    assert set(report.invalidated) == {"m2", "m3"}


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Actually the user is not moving to Shenzhen after all"),
        ("en", "The user will stay in Shanghai"),
        ("zh", "用户不搬去深圳了"),
        ("zh", "用户决定继续住在上海"),
    ],
)
def test_a_clean_reversal_supersedes_the_old_fact(lang: str, text: str) -> None:
    mem = build(lang, text_only=True)
    report = mem.fact("m1b", text)
    (reversal,) = report.reversals
    assert (reversal.new, reversal.old, reversal.clean) == ("m1b", "m1", True)
    assert reversal.outcome == "superseded"
    assert [(c.id, c.action, c.by) for c in report.changed if c.id == "m1"] == [
        ("m1", "superseded", "m1b")
    ]
    assert report.invalidated == ["m2", "m3"]
    assert report.consequences == {"m3": "cancel"}


def test_a_reversal_read_loosely_asks_a_person_and_keeps_the_values() -> None:
    mem = build("zh", text_only=True)
    report = mem.fact("m1b", "搬家的事黄了")
    (reversal,) = report.reversals
    assert (reversal.old, reversal.clean, reversal.outcome) == ("m1", False, "asked")
    assert reversal.question == "“搬家的事黄了”是否取代了“用户计划 2026-12 从上海搬到深圳”？"
    assert report.needs_confirmation == ["m1", "m2", "m3"]
    assert {e.reason.cause for e in report.entries} == {"possibly_replaced"}
    assert {"m1", "m2", "m3", "m1b"} <= mem.holding()  # values kept until a person answers
    assert [(p.id, p.cause) for p in mem.pending_review()] == [
        ("m1", "possibly_replaced"),
        ("m2", "possibly_replaced"),
        ("m3", "possibly_replaced"),
    ]
    (asked,) = [r for r in mem.recall("用户计划 深圳", k=10) if r.id == "m1"]
    assert asked.ask_first == reversal.question


def test_rejecting_the_old_fact_takes_what_rested_on_it() -> None:
    mem = _asking("en")
    mem.fact("m1b", "The user will stay in Shanghai")
    report = mem.reject("m1", by="li")
    assert report.invalidated == ["m2", "m3"]
    assert mem.pending_review() == []
    assert "m4" in mem.holding()


def test_confirming_the_old_fact_keeps_it_and_settles_the_doubt_it_cast() -> None:
    mem = _asking("en")
    mem.fact("m1b", "The user will stay in Shanghai")
    mem.confirm("m1", by="li", note="both hold: a stay until the move")
    assert mem.pending_review() == []
    assert {"m1", "m1b", "m2", "m3", "m4"} <= mem.holding()


def test_the_ask_policy_asks_even_about_a_clean_reversal() -> None:
    mem = _asking("en")
    report = mem.fact("m1b", "The user will stay in Shanghai")
    (reversal,) = report.reversals
    assert (reversal.clean, reversal.outcome) == (True, "asked")
    assert report.needs_confirmation == ["m1", "m2", "m3"]
    assert mem.config["reversals"] == "ask"


def test_a_new_value_told_as_a_fact_replaces_the_old_one() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("dentist", "The user has a dentist appointment on 2027-03-18.")
    mem.action("remind", "On 2027-03-17 remind the user of the dentist appointment.")
    mem.fact("doctor", "The user sees the doctor on 2027-03-20.")
    report = mem.fact("moved", "The dentist appointment moved to 2027-03-25.")
    assert [(r.old, r.outcome) for r in report.reversals] == [("dentist", "superseded")]
    assert report.invalidated == ["remind"]
    assert "doctor" in mem.holding()


@pytest.mark.parametrize(
    "text",
    [
        "The user loves the beaches in Shenzhen.",  # shares a place, no turn
        # a turn about something else: 不用 is about renting, not about Shenzhen
        "公司给用户在深圳安排了员工宿舍，到了就能直接入住，不用自己租房",
        "The user does not eat pork.",  # a turn, nothing shared
        "The user also has a doctor appointment on 2026-12-20.",  # another thing, no turn
    ],
)
def test_a_new_fact_that_reverses_nothing_is_only_added(text: str) -> None:
    mem = build("en", text_only=True)
    mem.fact("dentist", "The user has a dentist appointment on 2026-12-05.")
    report = mem.fact("new", text)
    assert report.reversals == ()
    assert report.needs_confirmation == [] and report.invalidated == []


def test_the_policy_is_kept_in_the_store(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path, rules="all", grounder=GROUNDER, reversals="ask"):
        pass
    with Memory(path) as mem:
        assert mem.reversals == "ask"
    with Memory(path, reversals="supersede") as mem:
        assert mem.reversals == "supersede"
        assert "reversals" not in mem.config  # the default is not logged
    with pytest.raises(InvalidInputError, match="reversals"):
        Memory(reversals="keep both")


def test_the_command_line_and_the_service_keep_the_policy(tmp_path: Path) -> None:
    path = tmp_path / "cli.db"
    done = subprocess.run(
        [sys.executable, "-m", "stategraph", "add", str(path), "--id", "f", "--text",
         "The user plans to move to Shenzhen", "--rules", "all", "--grounder", GROUNDER,
         "--reversals", "ask"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Memory(path) as mem:
        assert mem.reversals == "ask"
    settings = MemorySettings.from_config({"grounder": GROUNDER, "reversals": "ask"})
    store = SQLiteStore(tmp_path / "tenant.db")
    with settings.memory(store, write=True):
        pass
    assert SQLiteStore(tmp_path / "tenant.db").get_setting("reversals") == "ask"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the sparse workload's stream: each "won't travel to X" was asked as reversing every
        # earlier fact about a trip or an event, 18 a new fact
        (
            "The user is going to a concert in Xuzhou on February 7, 2025.",
            "The user won't travel to Phuket this year.",
        ),
        ("The user won't travel to Macau this year.", "The user won't travel to Phuket this year."),
        # the same denial said again, word for word
        ("The user doesn't drink alcohol.", "The user doesn't  drink alcohol"),
    ],
)
def test_what_shares_no_thing_the_new_fact_names_is_no_reversal(old: str, new: str) -> None:
    mem = Memory(rules="all", grounder=GROUNDER, reversals="ask")
    mem.fact("old", old)
    report = mem.fact("new", new)
    assert report.reversals == () and report.needs_confirmation == []


def _internship() -> Memory:
    mem = Memory(rules="all", grounder=GROUNDER, reversals="ask")
    mem.fact("intern", "Leo got a summer internship at the Fraunhofer lab in Dresden")
    mem.plan("sublet", "Find Leo a sublet near the Fraunhofer lab", context=["intern"])
    mem.fact("gym", "The user renewed the climbing gym membership for a year")
    return mem


def test_a_turn_no_rule_reads_is_matched_by_the_evidence_it_shares() -> None:
    """No pack knows internships: the holding fact that shares the most with the new one (a
    rare name) is asked about, and what rests on it with it; the gym is not."""
    mem = _internship()
    report = mem.fact("off", "Leo's Fraunhofer internship has been cancelled")
    assert [(r.old, r.clean, r.outcome) for r in report.reversals] == [("intern", False, "asked")]
    assert report.needs_confirmation == ["intern", "sublet"]
    assert mem.truth("intern") is mem.truth("sublet") is mem.truth("gym")  # values kept


def test_a_memory_already_in_doubt_is_asked_about_again_with_the_reversal() -> None:
    """The sublet was put in doubt when the visa went; the internship it also rests on is then
    told as cancelled. It is asked about again, naming the internship, its value kept: before,
    only memories that held were, and the sublet stayed silent under the second cause."""
    mem = _internship()
    mem.fact("visa", "Leo's German student visa runs until September")
    mem.plan("flat", "Find Leo a flat in Dresden for the summer", context=["intern", "visa"])
    assert mem.retract("visa").needs_confirmation == ["flat"]
    report = mem.fact("off", "Leo's Fraunhofer internship has been cancelled")
    assert "flat" in report.needs_confirmation
    (entry,) = [e for e in report.entries if e.id == "flat"]
    assert entry.reason.undecided == ("intern",)
    assert entry.old is entry.new is mem.truth("flat")


def test_a_turn_sharing_no_evidence_with_any_fact_matches_nothing() -> None:
    mem = _internship()
    report = mem.fact("off", "The dentist visit on Friday has been cancelled")
    assert report.reversals == () and report.needs_confirmation == []


def _guitar() -> Memory:
    mem = Memory(rules="all", grounder=GROUNDER, reversals="ask")
    mem.fact("class", "Kofi teaches a beginners' guitar class at the Brixton community centre")
    mem.fact("aunt", "Kofi's aunt Ama visits from Accra every December")
    mem.fact("gig", "Kofi plays a gig at the Windmill pub on Friday at 9 pm")
    mem.plan(
        "strings", "Buy spare strings for the beginners before the next class", context=["class"]
    )
    return mem


def test_a_new_value_the_turn_names_is_not_what_the_old_fact_must_share() -> None:
    """A number in the clause of a turn is its new value, not a thing the old fact must share:
    the class at the centre that moves to 7 names no 7, and is asked about (before, no fact
    shared the 7 and nothing was)."""
    mem = _guitar()
    report = mem.fact(
        "moved", "The centre gave our slot to a Zumba group, so the beginners meet at 7 from now on"
    )
    assert "class" in {r.old for r in report.reversals}
    assert "strings" in report.needs_confirmation


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Rachel is dating Ben, a chef she met in Lisbon", "Ben and I split up last weekend"),
        ("Nora sings in the Lanterns, a folk band", "The Lanterns closed down, no more gigs"),
        ("齐悦每月参加一次胡同读书会", "胡同读书会那个群我退了"),
        ("马骏每月定投3000元沪深300指数基金", "沪深300基金那个我先停了"),
    ],
)
def test_an_end_told_in_chat_words_is_asked_about(old: str, new: str) -> None:
    """Endings as people tell them ("split up", "no more", 退了, 停了) are turns."""
    mem = Memory(rules="all", grounder=GROUNDER, reversals="ask")
    mem.fact("old", old)
    mem.fact("other", "The user's sister lives in Leeds")
    report = mem.fact("new", new)
    assert [r.old for r in report.reversals] == ["old"]


def _daniel(city: str = "Seattle") -> Memory:
    """An agent's memory of a dozen facts, in Seattle, where the user lives: in a store of
    three every word is rare, and the city is not (unless ``city`` names another)."""
    mem = Memory(rules="all", grounder=GROUNDER, reversals="ask")
    mem.fact("visit", "Daniel's friend Kenji is visiting from Osaka 8 to 15 May")
    mem.fact("ride", "Daniel signed up for the Seattle to Portland bike ride in July")
    mem.plan("pizza", "Do a sourdough pizza night for Kenji", context=["visit"])
    for i, text in enumerate(
        [
            "Daniel's beagle Pepper eats prescription kidney food",
            f"Daniel volunteers at a {city} food bank on Saturday mornings",
            "Daniel's sister Ruth lives in Portland with two kids",
            "Daniel is sitting the AWS architect exam on 18 May",
            f"The landlord of the {city} flat is redoing its bathroom in April",
            "Daniel's mother turns seventy in June",
            "Daniel pays 2,100 dollars a month for his flat",
            f"Daniel's car is due for its {city} emissions test in August",
        ]
    ):
        mem.fact(f"f{i}", text)
    return mem


def test_an_ending_matches_the_fact_it_shares_a_rare_name_with() -> None:
    """The turn names Seattle, which Kenji's visit does not: with an ending ("cancelled"), the
    fact that shares a rare name (Kenji) is a match though it names no Seattle."""
    mem = _daniel()
    report = mem.fact("off", "Kenji's leave got cancelled; he won't make it to Seattle this spring")
    assert "visit" in {r.old for r in report.reversals}
    assert "pizza" in report.needs_confirmation


def test_a_fact_near_the_best_match_is_asked_about_too() -> None:
    """Where Seattle is as rare as Kenji, the bike ride shares a little more with the new fact
    than Kenji's visit: evidence that close cannot tell them apart, and both are asked."""
    mem = _daniel(city="Tacoma")
    report = mem.fact("off", "Kenji's leave got cancelled; he won't make it to Seattle this spring")
    assert {"visit", "ride"} <= {r.old for r in report.reversals}


def test_a_bare_negation_matches_no_fact_that_names_nothing_it_names() -> None:
    """Without an ending the turn's things still decide: "has never been to Seattle" names
    Seattle, and Kenji's visit, which does not, is no match (the bike ride is asked about:
    it names Seattle)."""
    mem = _daniel()
    report = mem.fact("new", "Kenji has never been to Seattle")
    assert "visit" not in {r.old for r in report.reversals}


def test_no_dry_run_when_nothing_rests_on_the_old_fact() -> None:
    """The dry run of retracting an old fact takes nothing else when nothing cites it: a store
    that says so is not asked to solve it (an import of 4,000 memories made 177 of them)."""
    from stategraph.engine.revise import Revision, Writes
    from stategraph.model import Change, Report, Reversal
    from stategraph.reversal import note_reversals

    asked = Reversal(new="n", old="o", clean=False, shared=(), outcome="asked", question="?")
    report = Report(
        change=Change(), changed=(), entries=(), cone_size=0, solved=0, max_depth=None, method="-"
    )
    rev = Revision(report, Writes(), {})

    def solve(change: Change):  # type: ignore[no-untyped-def]
        raise AssertionError(f"solved {change}")

    out = note_reversals(rev, (asked,), solve, {"o": "fact"}, frozenset(), lambda ids: set())
    assert out.report.needs_confirmation == ["o"]


def test_near_matches_are_near_the_best_one_not_the_last() -> None:
    """Scores 1.0, 0.8 and 0.61: the third is within a quarter of the second, not of the
    best, and is no match (measured from the last one kept, each could pull the bar lower)."""
    from stategraph.grounding import ground
    from stategraph.model import State
    from stategraph.text.reversals import evidence_matches
    from stategraph.values import TRUE

    facts = {s: State(id=s, kind="fact", text=f"fact {s}") for s in ("a", "b", "c")}
    scores = {"a": 1.0, "b": 0.8, "c": 0.61}

    class Shared:
        def __init__(self) -> None:
            self.shared = {s: {f"w:{s}": v} for s, v in scores.items()}

        def total(self, sid: str) -> float:
            return scores[sid]

        def ranked(self) -> list[str]:
            return sorted(scores, key=lambda s: -scores[s])

    class Reads:
        def postings(self, term: str, limit: int) -> list[tuple[int, str, int]]:
            return []

        def state(self, sid: str):  # type: ignore[no-untyped-def]
            return facts[sid], True, TRUE

    new = State(id="new", kind="fact", text="That is not happening anymore")
    found = ground(new.text)
    assert found.turns
    got = evidence_matches(Reads(), new, found, lambda s: True, lambda r, s, k: Shared())
    assert [m.old for m in got] == ["a", "b"]


def test_without_a_judge_an_ending_that_matched_nothing_asks_about_the_nearest_fact() -> None:
    """The reading names Seattle, which the visit does not, so the visit is no match a
    person is asked about from the reading alone; with nothing matched and no judge to put
    it to, the fact that shares the most with the ending is asked about rather than kept
    silently beside it (with a judge it goes to the judge: tests/judge)."""
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("visit", "Daniel's friend Kenji is visiting from Osaka in May")
    mem.plan("rainier", "Take Kenji up Mount Rainier on the Saturday", context=["visit"])
    mem.fact("rent", "Daniel pays 1,900 dollars rent on the first of each month")
    report = mem.fact("off", "Kenji's leave got cancelled; he won't make it to Seattle this spring")
    assert [(r.old, r.outcome) for r in report.reversals] == [("visit", "asked")]
    assert {"visit", "rainier"} <= set(report.needs_confirmation)
    assert "rent" not in report.needs_confirmation
    assert {"visit", "rainier"} <= mem.holding()  # their values kept: a person decides


@pytest.mark.parametrize(
    ("kept", "gone"),
    [
        ("Li Wei has a two-year-old corgi named Doudou.", "我们不养狗了，送给了朋友。"),
        ("我们家养了一只柯基，叫豆豆。", "We don't have the dog anymore, we gave it to a friend."),
    ],
)
def test_a_pet_given_away_told_as_a_fact_takes_what_was_planned_for_it(
    kept: str, gone: str
) -> None:
    """The seed scenario's dog, told in either language and given away in the other: keeping
    a pet grounds to ``keeps_pet``, which its negation ends, so the new fact finds the old one
    and what rested on it is no longer kept silently."""
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("dog", kept)
    mem.plan("walk", "Walk Doudou every evening at 7 after Li Wei gets home.", context=["dog"])
    mem.fact("rent", "李伟在徐汇区租了一套一居室，月租6500元。")
    report = mem.fact("gone", gone)
    assert [(r.old, r.outcome) for r in report.reversals] == [("dog", "superseded")]
    assert "dog" not in mem.holding() and "walk" in _gone(report) | set(report.needs_confirmation)
    assert "rent" in mem.holding() and "rent" not in report.needs_confirmation
