"""Candidates by evidence (candidates.v3): what a derived memory shares with the memories it
may rest on; when nothing, the facts of its session or turn; never every fact in the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from stategraph import Memory, State
from stategraph.model import Origin
from stategraph.text.candidates import proposer_from_config
from stategraph.text.evidence import EvidenceProposer, evidence_units

GROUNDED = {"rules": "all", "grounder": "stategraph.rule_grounder.v1"}


def proposed(mem: Memory, sid: str) -> dict[str, str]:
    found = [j for j in mem.justifications(sid) if j.origin is Origin.recovered]
    return found[0].proposed if found else {}


def test_units_leave_out_stop_words_years_and_the_user() -> None:
    units = evidence_units(State(id="x", text="The user's passport expires in 2031, remind him"))
    assert set(units) == {"w:passport", "w:expires"}
    zh = evidence_units(State(id="y", text="每月5号交徐汇区的房租"))
    assert {"g:房租", "g:徐汇"} <= set(zh) and "g:每月" not in zh and "g:的房" not in zh


def test_the_fact_with_evidence_is_the_candidate_not_every_fact() -> None:
    mem = Memory(**GROUNDED, candidates=EvidenceProposer(contemporaries=False))
    mem.fact("rent", "李伟在徐汇区租了一套一居室，月租6500元。")
    mem.fact("trip", "Li Wei flies to Tokyo on 2027-04-10 for a five-day holiday.")
    mem.fact("dentist", "Li Wei's dentist appointment is on 2027-03-18 at 3 pm.")
    mem.fact("dog", "Li Wei has a two-year-old corgi named Doudou.")
    mem.action("pay", "每月5号交徐汇区的房租6500元。")
    assert set(proposed(mem, "pay")) == {"rent"}
    mem.action("taxi", "Book a taxi to the airport on 2027-04-10 for the Tokyo holiday.")
    assert set(proposed(mem, "taxi")) == {"trip"}


def test_the_session_s_facts_are_candidates_beside_the_evidence() -> None:
    mem = Memory(**GROUNDED)
    mem.fact("rent", "李伟在徐汇区租了一套一居室，月租6500元。", session="s2")
    mem.fact("lease", "The lease ends next March.", session="s2")
    mem.fact("trip", "Li Wei flies to Tokyo on 2027-04-10 for a five-day holiday.", session="s5")
    mem.action("pay", "每月5号交徐汇区的房租6500元。", session="s2")
    assert proposed(mem, "pay") == {"rent": "entity", "lease": "session"}  # 徐汇, 6500


def test_with_no_evidence_the_facts_of_the_session_and_never_another_one() -> None:
    mem = Memory()
    mem.fact("lisbon", "I'll work remotely from Lisbon from January to August", session="s1")
    mem.fact("porto", "I'm buying a flat in Porto", session="s2")
    mem.fact("cello", "My sister plays the cello", session="s1")
    mem.belief("tax", "The user becomes a tax resident this year", session="s1")
    assert proposed(mem, "tax") == {"cello": "session", "lisbon": "session"}
    assert mem.state("tax").session == "s1"


def test_with_no_evidence_and_no_session_the_turn_and_never_the_whole_store() -> None:
    mem = Memory(candidates=EvidenceProposer(turn=3, contemporaries=False))
    for i in range(6):
        mem.fact(f"f{i}", f"Unrelated fact number {i} about topic{i}")
    mem.belief("b", "The user becomes a tax resident this year")
    assert proposed(mem, "b") == {"f3": "turn", "f4": "turn", "f5": "turn"}
    mem.belief("alone", "Something nobody said before", session="s9")
    assert proposed(mem, "alone") == {}  # a session of its own: nothing, an assumption
    assert [j.origin for j in mem.justifications("alone")] == [Origin.assumed]


def test_a_derived_candidate_brings_its_own_candidates() -> None:
    mem = Memory(candidates=EvidenceProposer(contemporaries=False))
    mem.fact("f", "The Siemens offer in Munich starts in March")
    mem.plan("p", "Look for a flat near the Siemens campus")
    mem.action("a", "Ask the agent about flat viewings near the campus")
    assert proposed(mem, "p") == {"f": "lexical"}
    assert proposed(mem, "a") == {"p": "lexical", "f": "inherited"}


def test_not_inherited_what_rests_on_a_derived_candidate_waits_for_it() -> None:
    """Not inherited: when the offer goes, the plan is asked about and the action waits on
    the plan (recall grades it rests_on_doubt), instead of a second question beside it."""
    mem = Memory(candidates=EvidenceProposer(contemporaries=False, inherit=False))
    mem.fact("f", "The Siemens offer in Munich starts in March")
    mem.plan("p", "Look for a flat near the Siemens campus")
    mem.action("a", "Ask the agent about flat viewings near the campus")
    assert proposed(mem, "a") == {"p": "lexical"}
    assert mem.retract("f").needs_confirmation == ["p"]
    (hit,) = [r for r in mem.recall("flat viewings", k=5) if r.id == "a"]
    assert hit.status == "rests_on_doubt" and hit.ask_first is not None
    assert mem.reject("p", by="ana").needs_confirmation == ["a"]


def test_what_a_memory_inherits_is_bounded() -> None:
    """An agent that writes the same plan every week: each copy is a candidate of the next,
    and each brought all its own candidates along, 40 a memory at the median on the dense
    workload. Now at most ``k`` are inherited, the best candidate's first."""
    mem = Memory(candidates=EvidenceProposer(k=4, contemporaries=False))
    for i in range(12):
        mem.fact(f"f{i}", f"Fact about zorblax{i} quintessence")
        mem.plan(f"p{i}", "Call grandma on Sunday evening", context=[f"f{i}"])
    mem.plan("last", "Call grandma on Sunday evening")
    found = proposed(mem, "last")
    assert sum(how == "inherited" for how in found.values()) == 4
    assert sum(how == "lexical" for how in found.values()) == 4


def test_the_configuration_is_logged_and_read_back() -> None:
    proposer = EvidenceProposer(k=5, relative=0.25, inherit=False)
    assert proposer_from_config(proposer.config()) == proposer


def test_a_store_without_sessions_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path) as mem:
        mem.fact("f", "The user flies to Tokyo")
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX docs_by_session")
    conn.execute("ALTER TABLE docs DROP COLUMN session")
    conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    with Memory(path) as mem:
        mem.fact("g", "The user packs for Tokyo", session="s1")
        found = mem.store.in_session("s1", 5, ["fact"])  # type: ignore[attr-defined]
        assert [(seq, sid) for seq, sid, _size in found] == [(2, "g")]


def _two_parts(cover: float | None) -> Memory:
    mem = Memory(candidates=EvidenceProposer(contemporaries=False, cover=cover))
    mem.fact("board", "Priya presents the quarterly review to the board on 14 March")
    mem.fact("dev", "Dev Okafor wants to see the draft slides by 7 March")
    mem.fact("gym", "Priya swims at the Chorlton baths on Mondays")
    mem.fact("mum", "Priya's mum loves the draft beer at the Old Mill")
    mem.action("send", "Send Dev the draft board slides by 7 March")
    return mem


def test_a_fact_that_alone_shares_a_rare_part_is_a_candidate_under_the_bar() -> None:
    """The to-do shares Dev, the slides and the date with Dev's deadline, and only the board
    with the board meeting: under half the best evidence, so the bar alone drops the meeting,
    and cancelling it would leave the to-do silent. With ``cover`` the meeting is kept for the
    part no better candidate shares; the draft beer shares only what Dev's deadline covers
    already, and the swim nothing."""
    assert set(proposed(_two_parts(None), "send")) == {"dev"}
    mem = _two_parts(0.5)
    assert proposed(mem, "send") == {"dev": "lexical", "board": "lexical"}
    report = mem.retract("board")
    assert report.needs_confirmation == ["send"]  # asked, not kept silently


def test_a_log_written_before_cover_replays_without_it() -> None:
    config = EvidenceProposer().config()
    assert config["cover"] == 0.5
    del config["cover"], config["cover_facts"]
    assert proposer_from_config(config) == EvidenceProposer(cover=None, cover_facts=False)


def test_a_unit_only_a_derived_candidate_shares_is_not_covered() -> None:
    """The to-do shares the nursery and its sessions with the derived to-do about them, and
    the nursery alone with the fact that the child starts there. Where the derived candidate
    does not pass a change of that fact on (nothing inherited), the fact is a candidate too,
    and moving the start asks about the to-do."""

    def made(cover_facts: bool) -> Memory:
        proposer = EvidenceProposer(contemporaries=False, inherit=False, cover_facts=cover_facts)
        mem = Memory(candidates=proposer)
        mem.fact("start", "Alfie starts at Bramblewood nursery on Monday 2 September")
        mem.fact("plot", "The allotment harvest show is on Saturday 31 August")
        for i, thing in enumerate(["kettle", "bicycle", "piano", "glasses", "passport", "lamp"]):
            mem.fact(f"other{i}", f"The {thing} needs looking at")
        mem.action("confirm", "Confirm the Tuesday settling sessions with Bramblewood nursery")
        mem.action("book", "Book settling sessions at Bramblewood nursery for 28 August")
        return mem

    assert set(proposed(made(False), "book")) == {"confirm"}
    mem = made(True)
    assert set(proposed(mem, "book")) == {"confirm", "start"}
    report = mem.supersede(
        "start", {"id": "start2", "text": "Alfie starts at Bramblewood nursery on 9 September"}
    )
    assert "book" in report.needs_confirmation
