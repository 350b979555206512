"""Candidate proposal: which stored memories a derived memory written without a basis gets."""

from __future__ import annotations

from stategraph import Memory, State
from stategraph.candidates import CandidateProposer
from stategraph.model import Origin
from stategraph.store import SQLiteStore
from stategraph.terms import argument_terms, lexical_terms


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
    mem = Memory(candidates=CandidateProposer(recent=0))
    mem.fact("f1", "", atoms=['moves(user,shanghai,shenzhen,"2026-12")'])
    mem.fact("f2", "The user likes hiking")
    mem.belief("b1", "通勤时间按深圳南山算", atoms=["commute_city(user,shenzhen)"])
    assert proposed(mem, "b1") == {"f1": "entity"}


def test_lexical_neighbours_above_the_floor_and_holding_only() -> None:
    mem = Memory(candidates=CandidateProposer(recent=0))
    mem.fact("f1", "The dentist appointment is on Friday at Smile Clinic")
    mem.fact("f2", "Smile Clinic moved its dentist office downtown")
    mem.fact("f3", "Jazz records on vinyl")
    mem.retract("f2")
    mem.action("a1", "Remind the user about the Smile Clinic dentist appointment")
    assert proposed(mem, "a1") == {"f1": "lexical"}


def test_the_newest_memories_are_candidates_whatever_their_words() -> None:
    mem = Memory(candidates=CandidateProposer(recent=1))
    mem.fact("f1", "小吴决定考浙大计算机专硕，12月底初试")
    mem.plan("p1", "每天早上7点去图书馆复习数学一")
    assert proposed(mem, "p1") == {"f1": "recent"}


def test_at_most_k_candidates_chosen_deterministically() -> None:
    def build() -> Memory:
        mem = Memory(candidates=CandidateProposer(k=3))
        for i in range(10):
            mem.fact(f"f{i}", f"The Tokyo trip note number {i}")
        mem.plan("p1", "Pack for the Tokyo trip")
        return mem

    one, two = proposed(build(), "p1"), proposed(build(), "p1")
    assert len(one) == 3 and one == two
    assert {"f9", "f8"} <= set(one)  # the two newest keep their slots


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


def test_common_terms_are_skipped_and_postings_bounded() -> None:
    """At scale a term most memories carry says nothing: it is never read."""
    mem = Memory(candidates=CandidateProposer(recent=0, min_df_cap=5, max_df_share=0.05))
    mem.bulk_load([State(id=f"n{i}", text=f"the user note {i}") for i in range(200)])
    mem.fact("f1", "The user flies to Reykjavik")
    mem.plan("p1", "Book a hotel in Reykjavik for the user")
    assert proposed(mem, "p1") == {"f1": "lexical"}
    store = store_of(mem)
    assert store.term_df(["g:use"])["g:use"] > 200 * 0.05  # "user": a stop term here
    assert len(store.postings("g:use", 10)) == 10
