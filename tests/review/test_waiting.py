"""A memory that holds only through a memory in doubt is never returned as ``holds``: it
rests on doubt, and the question to ask first is the one about what it rests on
(stategraph.review.waiting)."""

from __future__ import annotations

from pathlib import Path

from stategraph import Change, Justification, Memory, Truth
from stategraph.review.waiting import Doubts


def _chain(mem: Memory) -> Memory:
    """F, a belief B resting on F as a candidate, a plan D resting on B as a candidate, an
    action A resting on D, and an unrelated fact G with a plan H on it."""
    mem.fact("F", "The user flies to Tokyo on 2027-04-10")
    mem.belief("B", "The user needs a Japanese visa", context=["F"])
    mem.plan("D", "Apply for the visa at the consulate", context=["B"])
    mem.plan("A", "Print the consulate's form", context=["D"])
    mem.fact("G", "The user rents a flat in Xuhui")
    mem.plan("H", "Pay the rent on the 5th", context=["G"])
    return mem


def _waits(mem: Memory, sid: str) -> list[str]:
    return Doubts(mem.store).waits_on(sid)


def test_what_holds_through_a_memory_in_doubt_waits_on_it() -> None:
    mem = _chain(Memory(candidates=None))
    mem.retract("F")
    assert mem.truth("D") is Truth.true  # a doubt does not travel through a candidate
    assert _waits(mem, "D") == ["B"]
    assert _waits(mem, "A") == ["B"]  # through D, which holds
    assert _waits(mem, "H") == [] and _waits(mem, "G") == []


def test_a_support_that_needs_nothing_in_doubt_is_enough() -> None:
    mem = _chain(Memory(candidates=None))
    mem.fact("V", "The user already has a visa appointment")
    mem.revise(Change(add_justifications=(Justification(head="D", premises=("V",)),)))
    mem.retract("F")
    assert _waits(mem, "D") == [] and _waits(mem, "A") == []


def test_once_settled_nothing_waits() -> None:
    mem = _chain(Memory(candidates=None))
    mem.retract("F")
    mem.confirm("B", by="ana")
    assert _waits(mem, "D") == []
    mem2 = _chain(Memory(candidates=None))
    mem2.retract("F")
    report = mem2.reject("B", by="ana")
    assert report.needs_confirmation == ["D"]  # now D itself is asked about
    assert _waits(mem2, "A") == ["D"]


def test_recall_says_rests_on_doubt_and_asks_about_the_basis(tmp_path: Path) -> None:
    with _chain(Memory(tmp_path / "m.db", candidates=None)) as mem:
        mem.retract("F")
        (hit,) = mem.recall("consulate form", k=1)
        assert hit.id == "A" and hit.status == "rests_on_doubt"
        assert hit.ask_first is not None
        assert hit.ask_first.startswith('"Print the consulate\'s form" rests on "The user needs')
        assert 'Does "The user needs a Japanese visa" still hold?' in hit.ask_first
        assert "B, which is in doubt" in hit.reason
        assert hit.ask_about == "B"  # confirm or reject B to settle it
        (belief,) = mem.recall("Japanese visa", k=1)
        assert (belief.id, belief.status, belief.ask_about) == ("B", "needs_confirmation", "B")
        ids = {r.id for r in mem.recall("visa consulate form", k=10, include_doubtful=False)}
        assert ids.isdisjoint({"A", "B", "D"})
        (rent,) = mem.recall("rent", k=1)
        assert rent.status == "holds" and rent.ask_first is None


def test_recall_asks_in_the_memory_s_language() -> None:
    mem = Memory(candidates=None)
    mem.fact("F", "我们4月10日飞东京")
    mem.belief("B", "需要办日本签证", context=["F"])
    mem.plan("D", "去领事馆递交签证材料", context=["B"])
    mem.retract("F")
    (hit,) = [r for r in mem.recall("领事馆 签证材料", k=5) if r.id == "D"]
    assert hit.status == "rests_on_doubt"
    assert hit.ask_first is not None and hit.ask_first.startswith("“去领事馆递交签证材料”所依据的")


def test_recall_as_of_a_revision_grades_as_it_was(tmp_path: Path) -> None:
    with _chain(Memory(tmp_path / "m.db", candidates=None)) as mem:
        before = mem.history()[-1].seq
        mem.retract("F")
        (now,) = mem.recall("consulate form", k=1)
        (then,) = mem.as_of(before).recall("consulate form", k=1)
        assert now.status == "rests_on_doubt" and then.status == "holds"


def test_one_reader_shares_what_it_read_and_answers_the_same() -> None:
    mem = _chain(Memory(candidates=None))
    mem.retract("F")
    doubts = Doubts(mem.store)
    assert [doubts.waits_on(s) for s in ("A", "D", "H", "A")] == [["B"], ["B"], [], ["B"]]
    assert doubts("B") and not doubts("D") and not doubts("missing")


def test_a_cycle_back_through_the_memory_is_no_support() -> None:
    """Q rests on the belief in doubt, and also on P, which rests only on Q: the loop through
    P supports nothing by itself, so P and Q both wait on the belief."""
    mem = Memory(candidates=None)
    mem.fact("F", "The user flies to Tokyo on 2027-04-10")
    mem.belief("B", "The user needs a Japanese visa", context=["F"])
    mem.plan("Q", "Apply for the visa at the consulate", context=["B"])
    mem.plan("P", "Print the consulate's form", because=["Q"])
    mem.revise(Change(add_justifications=(Justification(head="Q", premises=("P",)),)))
    mem.retract("F")
    assert mem.truth("P") is Truth.true and mem.truth("Q") is Truth.true
    assert _waits(mem, "P") == ["B"] and _waits(mem, "Q") == ["B"]


def test_a_blocker_in_doubt_is_waited_on() -> None:
    mem = Memory(candidates=None)
    mem.fact("T", "The user flies to Tokyo on 2027-04-10")
    mem.action("K", "Book the Shinjuku hotel", because=["T"], status="executed")
    mem.plan("S", "Keep looking for a hotel near the venue", unless=["K"])
    assert mem.truth("S") is Truth.false  # booked: no need to look
    report = mem.retract("T")
    # the booking was made: a person says whether it stands; meanwhile it does not block
    assert report.needs_confirmation == ["K"] and mem.truth("K") is Truth.false
    assert report.restored == ["S"]
    assert _waits(mem, "S") == ["K"]  # if the booking stands, S goes again
    mem.confirm("K", by="ana")
    assert mem.truth("S") is Truth.false


def test_the_review_queue_says_what_rests_on_each_memory_in_doubt(tmp_path: Path) -> None:
    with _chain(Memory(tmp_path / "m.db", candidates=None)) as mem:
        mem.retract("F")
        (pending,) = mem.pending_review()
        assert pending.id == "B" and pending.waiting == ("D", "A")  # settled with it
        mem.fact("V", "The user already has a visa appointment")
        mem.revise(Change(add_justifications=(Justification(head="D", premises=("V",)),)))
        (pending,) = mem.pending_review()
        assert pending.waiting == ()  # D holds without B now, and A through D
        assert Doubts(mem.store).resting_on("H") == []


def test_the_review_command_prints_what_rests_on_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    with _chain(Memory(tmp_path / "m.db", candidates=None)) as mem:
        mem.retract("F")
    done = subprocess.run(
        [sys.executable, "-m", "stategraph", "review", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "2 rest on it, settled with it: D, A" in done.stdout


def test_a_blocker_through_an_atom_node_in_doubt_is_waited_on_and_never_named() -> None:
    """The move already made is the blocker here by its atom: the rules derive the commute
    belief from where the user lives unless the user is relocating, and only the move's atom
    says so. When its basis goes, the move is asked about with its value false and the
    commute belief comes back, resting on that question; the walk goes through the atom
    nodes to the move, and names no atom node, nor lists one in the review queue."""
    mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
    mem.fact("home", "The user lives in Shenzhen")
    mem.fact("job", "The user got a job offer in Guangzhou")
    mem.action(
        "move",
        "The user will move from Shenzhen to Guangzhou in March 2026",
        because=["job"],
        status="executed",
    )
    mem.belief("commute", "Commute time is computed for Shenzhen")
    assert mem.truth("commute") is Truth.false  # relocating blocks it
    report = mem.retract("job")
    assert report.needs_confirmation == ["move"] and report.restored == ["commute"]
    assert _waits(mem, "commute") == ["move"]
    (recalled,) = [r for r in mem.recall("commute Shenzhen") if r.id == "commute"]
    assert (recalled.status, recalled.ask_about) == ("rests_on_doubt", "move")
    (pending,) = mem.pending_review()
    assert pending.id == "move" and pending.waiting == ("commute",)
    mem.confirm("move", by="ana")  # the move stands: relocating again
    assert mem.truth("commute") is Truth.false
