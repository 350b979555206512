"""A rule link decides truth only from clean readings.

Every memory, not only a fact's replacement, carries only atoms read cleanly: an atom from a
clause with a polarity cue left over, or with a rival of one of its roles left unread, is kept
aside in ``metadata["withheld_atoms"]``, where the term index and the candidate proposer read it
as evidence, and no rule link rests on it or concludes it. The atoms of the text's clean clauses
are carried as before.
"""

from __future__ import annotations

from stategraph import Memory
from stategraph.grounding.reading import NAMED, WITHHELD, evidence_atoms
from stategraph.model import State

GROUNDER = "stategraph.rule_grounder.v1"


def _state(mem: Memory, sid: str) -> State:
    (st,) = [s for s in mem.states() if s.id == sid]
    return st


def _origins(mem: Memory, sid: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(j.origin.value, j.premises) for j in mem.store.justifications_for({sid})]


def test_an_ambiguous_fact_carries_no_atoms_and_keeps_them_aside() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("home", "The user lives in Shanghai or Hangzhou.")
    st = _state(mem, "home")
    assert st.atoms == ()
    assert st.metadata[WITHHELD] == {
        "atoms": ["lives_in(user,shanghai)"],
        "ambiguous": ["hangzhou"],
    }
    assert evidence_atoms(st.atoms, st.metadata) == ("lives_in(user,shanghai)",)


def test_no_rule_link_rests_on_an_unclean_reading() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("home", "The user lives in Shanghai or Hangzhou.")
    mem.belief("commute", "Commute time is computed for Shanghai.")
    assert [o for o, _ in _origins(mem, "commute")] == ["recovered"]


def test_a_clean_reading_links_as_before() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("home", "The user lives in Shanghai.")
    mem.belief("commute", "Commute time is computed for Shanghai.")
    # through the atom nodes (stategraph.nodes): the commute city's rule node, on the home
    assert _origins(mem, "commute") == [("rule", ("rule:commute_city(user,shanghai)",))]
    assert mem.retract("home").invalidated == ["commute"]


def test_the_clean_clauses_of_a_text_are_carried() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("ulcer", "用户做胃镜确诊了十二指肠溃疡，医生交代溃疡没好之前不要吃布洛芬、阿司匹林")
    st = _state(mem, "ulcer")
    assert st.atoms == ("diagnosed(user,peptic_ulcer)",)
    assert st.metadata[WITHHELD]["atoms"] == ["contraindicated(user,ibuprofen)"]


def test_what_a_text_names_outside_its_atoms_is_kept_as_evidence() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.action("rent", "每月5号提醒用户交徐汇区的房租6500元。")
    st = _state(mem, "rent")
    assert st.atoms == ()
    assert st.metadata[NAMED] == ["shanghai", "6500", "cny"]


def test_logic_never_calls_a_candidate_read_unclean_independent() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("home", "The user lives in Shanghai.")
    mem.fact("unsure", "The user lives in Shanghai or Hangzhou.")
    mem.belief("commute", "Commute time is computed for Shanghai.", context=["home", "unsure"])
    justs = mem.store.justifications_for({"commute"})
    (cand,) = [j for j in justs if j.origin.value == "recovered"]
    assert cand.checked.get("home") is not None  # the rules read it: logic decides
    assert "unsure" not in cand.checked  # the rules never saw what it says
