"""Candidate proposal: which stored memories a derived memory written without a basis gets."""

from __future__ import annotations

from stategraph import Memory, State
from stategraph.grounding.terms import argument_terms, lexical_terms
from stategraph.model import Origin
from stategraph.store import SQLiteStore
from stategraph.text.candidates import CandidateProposer


def store_of(mem: Memory) -> SQLiteStore:
    assert isinstance(mem.store, SQLiteStore)
    return mem.store


def proposed(mem: Memory, sid: str) -> dict[str, str]:
    (j,) = [j for j in mem.justifications(sid) if j.origin is Origin.recovered]
    return j.proposed


def test_terms_are_words_grams_and_grounded_arguments() -> None:
    assert {"g:mov", "g:ovi", "g:vin", "g:ing", "g:to"} <= lexical_terms("Moving to")
    assert {"g:深圳", "g:圳南", "g:南山"} <= lexical_terms("深圳南山")
    assert argument_terms(['moves(user,shanghai,shenzhen,"2026-12")', "x(unknown)"]) == {
        "a:user",
        "a:shanghai",
        "a:shenzhen",
        "a:2026-12",
    }
    assert argument_terms(["0", '"s"', "not an atom("]) == set()


def test_a_shared_grounded_argument_meets_across_languages() -> None:
    mem = Memory(candidates=CandidateProposer(k=1))
    mem.fact("f1", "", atoms=['moves(user,shanghai,shenzhen,"2026-12")'])
    mem.fact("f2", "The user likes hiking")
    mem.belief("b1", "通勤时间按深圳南山算", atoms=["commute_city(user,shenzhen)"])
    assert proposed(mem, "b1") == {"f1": "entity"}


def test_lexical_neighbours_rank_first_and_only_holding_ones() -> None:
    mem = Memory(candidates=CandidateProposer(k=1))
    mem.fact("f1", "The dentist appointment is on Friday at Smile Clinic")
    mem.fact("f2", "Smile Clinic moved its dentist office downtown")
    mem.fact("f3", "Jazz records on vinyl")
    mem.retract("f2")
    mem.action("a1", "Remind the user about the Smile Clinic dentist appointment")
    assert proposed(mem, "a1") == {"f1": "lexical"}


def test_while_the_facts_are_few_every_one_is_a_candidate() -> None:
    """``candidates.v2``: the fact a conversation is about often shares no word with what was
    derived from it; it was left out when it was neither above a lexical floor nor among the
    last two."""
    mem = Memory(candidates=CandidateProposer())
    mem.fact("f1", "I'll work remotely from Lisbon from January to August")
    mem.fact("f2", "I'm buying a flat in Porto")
    mem.fact("f3", "Rita, an accountant in Lisbon, does my Portuguese paperwork")
    mem.belief("b1", "The user becomes a tax resident this year")
    assert set(proposed(mem, "b1")) == {"f1", "f2", "f3"}
    assert proposed(mem, "b1")["f1"] == "few_facts"  # no word, no argument in common
    report = mem.supersede("f1", {"id": "f1b", "text": "I'm staying in Munich after all"})
    assert report.needs_confirmation == ["b1"]


def test_one_shared_word_is_enough_among_many_facts() -> None:
    """Beyond ``k`` facts a memory is ranked, never cut at a floor: one rare shared word in
    two long sentences puts the only fact on the subject ahead of facts that share none."""
    mem = Memory(candidates=CandidateProposer(k=3))
    mem.fact("f0", "邻居家上个月抱回来一只柯基幼犬，每天早上都在楼道里叫个不停")
    for i in range(12):
        mem.fact(f"n{i}", f"第{i}号备忘：周末去超市采购日用品和水果")
    mem.plan("p1", "下周带幼犬去宠物医院打第二针疫苗并做体内驱虫")
    assert "f0" in proposed(mem, "p1")


def test_beyond_k_facts_the_nearest_fill_the_slots() -> None:
    def build() -> Memory:
        mem = Memory(candidates=CandidateProposer(k=3))
        for i in range(10):
            mem.fact(f"f{i}", f"Errand number {i}")
        mem.plan("p1", "Pack for the Tokyo trip")
        return mem

    one, two = proposed(build(), "p1"), proposed(build(), "p1")
    assert one == two == {"f9": "recent", "f8": "recent", "f7": "recent"}


def test_nothing_to_propose_makes_an_assumption() -> None:
    mem = Memory()
    report = mem.belief("b1", "The user likes tacos")
    (j,) = mem.justifications("b1")
    assert (j.origin, j.premises) == (Origin.assumed, ())
    assert report.changed[0].new.value == "true"
    assert mem.why("b1").step("b1").by.origin is Origin.assumed  # type: ignore[union-attr]


def test_a_declared_basis_given_later_replaces_the_stand_ins() -> None:
    mem = Memory()
    mem.fact("f1", "The user flies to Tokyo")
    mem.plan("p1", "Book a Tokyo hotel")
    assert [j.origin for j in mem.justifications("p1")] == [Origin.recovered]
    mem.revise({"add_justifications": [{"head": "p1", "premises": ["f1"]}]})
    assert [j.origin for j in mem.justifications("p1")] == [Origin.declared]


def test_common_terms_weigh_little_and_postings_are_bounded() -> None:
    """At scale a term most memories carry says little: it shrinks, and at most
    ``postings`` memories are read for it."""
    mem = Memory(candidates=CandidateProposer(k=1, near=0))
    mem.bulk_load([State(id=f"n{i}", text=f"the user note {i}") for i in range(200)])
    mem.fact("f1", "The user flies to Reykjavik")
    mem.plan("p1", "Book a hotel in Reykjavik for the user")
    assert proposed(mem, "p1") == {"f1": "lexical"}
    store = store_of(mem)
    assert len(store.postings("g:use", 10)) == 10
