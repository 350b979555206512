"""A rule link decides truth only from clean readings.

Every memory, not only a fact's replacement, carries the atoms of a clean reading alone: an
unclean one (a polarity cue left over, a rival of a filled role left unread) keeps its atoms
aside in ``metadata["withheld_atoms"]``, where the term index and the candidate proposer read
them as evidence, and no rule link rests on them or concludes them.
"""

from __future__ import annotations

from stategraph import Memory
from stategraph.grounding.reading import WITHHELD, evidence_atoms

GROUNDER = "stategraph.rule_grounder.v1"


def _state(mem: Memory, sid: str):  # type: ignore[no-untyped-def]
    (st,) = [s for s in mem.states() if s.id == sid]
    return st


def test_an_ambiguous_fact_carries_no_atoms_and_keeps_them_aside() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("dose", "The user takes 1000 mg of metformin, up from 500 mg.")
    st = _state(mem, "dose")
    assert st.atoms == ()
    assert st.metadata[WITHHELD] == {
        "atoms": ['dose(user,metformin,"1000mg")', "takes(user,metformin)"],
        "ambiguous": ["500mg"],
    }
    assert evidence_atoms(st.atoms, st.metadata) == tuple(st.metadata[WITHHELD]["atoms"])


def test_no_rule_link_rests_on_an_unclean_reading() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("dose", "The user takes 1000 mg of metformin, up from 500 mg.")
    mem.action("refill", "Refill the 1000 mg metformin prescription", status="pending")
    origins = {j.origin.value for j in mem.store.justifications_for({"refill"})}
    assert "rule" not in origins


def test_a_clean_reading_links_as_before() -> None:
    mem = Memory(rules="all", grounder=GROUNDER)
    mem.fact("dose", "The user takes 1000 mg of metformin.")
    mem.action("refill", "Refill the 1000 mg metformin prescription", status="pending")
    assert _state(mem, "dose").atoms
    rules = [j for j in mem.store.justifications_for({"refill"}) if j.origin.value == "rule"]
    assert [j.premises for j in rules] == [("dose",)]
