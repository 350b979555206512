"""Rule links: the support graph out of atoms and rule packs, and candidate edges checked by
logic. States carry explicit atoms here so that these tests hold the linking to its contract
whatever the grounder learns; the text-only end-to-end runs are at the bottom."""

from __future__ import annotations

from typing import Any

import pytest

from stategraph import Memory
from stategraph.cli.demo import run

MOVE = 'moves(user,shanghai,shenzhen,"2026-12")'


def rules_memory() -> Memory:
    return Memory(rules="all")


def st(sid: str, kind: str, *atoms: str, **extra: Any) -> dict[str, Any]:
    return {"id": sid, "kind": kind, "atoms": list(atoms), **extra}


COMMUTE = "rule:commute_city(user,shenzhen)"


def proof_ids(mem: Memory, sid: str) -> list[str]:
    return [step.id for step in mem.why(sid).steps]


def test_rules_link_a_belief_to_the_fact_it_rests_on() -> None:
    mem = rules_memory()
    mem.add(st("m1", "fact", MOVE))
    mem.add(st("m2", "belief", "commute_city(user,shenzhen)"))
    mem.add(st("m3", "action", "cancel_utility(user,broadband)"))
    mem.add(st("m4", "fact", "prefers_cuisine(user,cantonese)"))
    (j,) = mem.justifications("m2")
    assert (j.premises, j.origin.value) == ((COMMUTE,), "rule")
    # the atom steps: m1 carries the move, the move gives a home city, the home city the commute
    assert proof_ids(mem, "m2") == [
        "m1",
        f"atom:{MOVE}",
        "rule:home_city(user,shenzhen)",
        "atom:home_city(user,shenzhen)",
        COMMUTE,
        "m2",
    ]
    (rules,) = [s.by.rules for s in mem.why("m2").steps if s.id == COMMUTE]  # type: ignore[union-attr]
    assert all(r.startswith("relocation:") for r in rules) and len(rules) == 1
    report = mem.supersede("m1", st("m1b", "fact", "stays(user,shanghai)"))
    assert report.invalidated == ["m2", "m3"] and report.consequences == {"m3": "cancel"}
    assert report.entry("m4") is None
    assert all(not e.id.startswith(("atom:", "rule:")) for e in report.entries)
    lost = report.entry("m2").reason.lost[0]  # type: ignore[union-attr]
    assert lost.justification.origin.value == "rule" and lost.failed == (COMMUTE,)


def test_compatible_update_keeps_rule_derived_states_and_flags_declared_ones() -> None:
    mem = rules_memory()
    mem.add(st("m1", "fact", MOVE))
    mem.add(st("m2", "belief", "commute_city(user,shenzhen)"))
    mem.belief("m6", "book movers for December", because=["m1"])  # declared only
    report = mem.supersede("m1", st("m1b", "fact", 'moves(user,shanghai,shenzhen,"2027-01")'))
    # the commute rests on the home city, which the new move gives as the old one did: its
    # own justification is untouched, and its proof now goes through m1b
    assert report.entry("m2") is None and mem.truth("m2").value == "true"
    assert "m1b" in proof_ids(mem, "m2") and "m1" not in proof_ids(mem, "m2")
    m6 = report.entry("m6")
    assert m6 is not None and m6.verdict.value == "needs_confirmation"
    assert (m6.reason.cause, m6.decided_by.value) == ("compatible_update", "policy")


def test_an_incompatible_supersession_invalidates_declared_dependents() -> None:
    mem = rules_memory()
    mem.add(st("m1", "fact", MOVE))
    mem.add(st("m2", "belief", "commute_city(user,shenzhen)"))
    mem.belief("m6", "book movers for December", because=["m1"])
    report = mem.supersede("m1", st("m1b", "fact", "stays(user,shanghai)"))
    assert report.invalidated == ["m2", "m6"]


def test_candidates_are_checked_by_the_rules() -> None:
    mem = rules_memory()
    mem.add(st("m1", "fact", MOVE))
    mem.add(st("m4", "fact", "prefers_cuisine(user,cantonese)"))
    mem.add(st("m5", "plan", "recommend(user,activities,shenzhen)"), context=["m1", "m4"])
    (recovered,) = [j for j in mem.justifications("m5") if j.origin.value == "recovered"]
    assert recovered.checked == {"m1": "dependency", "m4": "independent"}
    assert "only through m1" in recovered.notes["m1"]
    assert "without m4" in recovered.notes["m4"]
    assert mem.retract("m4").entries == ()
    assert mem.retract("m1").invalidated == ["m5"]


def test_candidates_logic_cannot_decide_stay_undecided() -> None:
    mem = rules_memory()
    mem.add(st("m1", "fact", MOVE))
    mem.add(st("m7", "plan"), context=["m1"])  # no atoms: the rules say nothing
    (recovered,) = mem.justifications("m7")
    assert recovered.checked == {}
    entry = mem.retract("m1").entry("m7")
    assert entry is not None and entry.verdict.value == "needs_confirmation"
    assert entry.reason.cause == "unverified_candidate"


def test_unless_through_rules_invalidates_and_restores() -> None:
    mem = rules_memory()
    mem.add(st("d", "fact", "diagnosed(user,bacterial_infection)"))
    mem.add(st("p", "belief", "prescribed(user,amoxicillin)"))
    assert mem.holding() == {"d", "p"}
    report = mem.add(st("a", "fact", "allergic(user,penicillin)"))
    assert report.invalidated == ["p"]
    # written now, the alternative rests on the allergy through the rules alone
    mem.add(st("q", "belief", "prescribed(user,azithromycin)"))
    assert {j.origin.value for j in mem.justifications("q")} == {"rule"}
    report = mem.retract("a")
    assert report.restored == ["p"] and report.invalidated == ["q"]


def test_rule_settings_persist(tmp_path: Any) -> None:
    path = tmp_path / "m.db"
    Memory(path, rules=["relocation"]).close()
    with Memory.open(path) as mem:
        assert mem.rules == ("relocation",)
        mem.add(st("m1", "fact", MOVE))
        mem.add(st("m2", "belief", "commute_city(user,shenzhen)"))
        assert mem.justifications("m2")[0].origin.value == "rule"


def test_malformed_atoms_are_refused() -> None:
    mem = rules_memory()
    with pytest.raises(ValueError, match="atoms of m1"):
        mem.add(st("m1", "fact", "moves(user,"))
    assert mem.states() == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_seed_scenario_from_text_alone(lang: str) -> None:
    report = run(lang, text_only=True)
    assert report.invalidated == ["m2", "m3"]
    assert report.consequences == {"m3": "cancel"}
    assert report.entry("m4") is None
    for sid in ("m2", "m3"):
        lost = report.entry(sid).reason.lost  # type: ignore[union-attr]
        assert lost and all(x.justification.origin.value == "rule" for x in lost)
        assert all(p.startswith("rule:") for x in lost for p in x.justification.premises)


def test_candidate_classification_shows_in_why() -> None:
    mem = rules_memory()
    mem.add(st("m1", "fact", MOVE))
    mem.add(st("m4", "fact", "prefers_cuisine(user,cantonese)"))
    mem.add(st("m5", "plan", "recommend(user,activities,shenzhen)"), context=["m1", "m4"])
    rendered = mem.why("m5").render()
    assert "only through m1" in rendered and "without m4" in rendered
    assert "only through m1" in mem.why_not("m5").render()


def test_firings_with_the_same_atoms_are_one_justification_naming_both_rules() -> None:
    # m1 gives recommend(user,restaurants,tokyo) through two rules (the trip, the event
    # there): the two firings cite different atoms, so two justifications of one node; a
    # second trip to Tokyo adds one firing, and nothing to m2
    mem = rules_memory()
    mem.add(
        st(
            "m1",
            "fact",
            'trip(user,tokyo,"2026-05-10")',
            'event_in(user,conference,tokyo,"2026-05-10")',
        )
    )
    mem.add(st("m2", "plan", "recommend(user,restaurants,tokyo)"))
    node = "rule:recommend(user,restaurants,tokyo)"
    assert len(mem.justifications(node)) == 2
    mem.add(st("m3", "fact", 'trip(user,tokyo,"2026-09-01")'))
    assert len(mem.justifications(node)) == 3
    assert [j.premises for j in mem.justifications("m2")] == [(node,)]
    import clingo

    from stategraph.grounding.packs import Firing
    from stategraph.text.linking import firing_justifications

    head, trip = clingo.parse_term("h(x)"), clingo.parse_term("t(x)")
    merged = firing_justifications(
        [Firing("relocation:72", head, (trip,)), Firing("relocation:71", head, (trip,))]
    )
    assert [j.rules for j in merged.values()] == [("relocation:71", "relocation:72")]


def test_a_state_is_grounded_with_the_year_it_was_created() -> None:
    import datetime

    mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
    created = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    mem.add({"id": "m1", "kind": "fact", "text": "用户12月从上海搬到深圳", "created_at": created})
    mem.add({"id": "m2", "kind": "fact", "text": "用户12月从上海搬到广州"})
    assert mem.state("m1").atoms == ('moves(user,shanghai,shenzhen,"2026-12")',)  # type: ignore[union-attr]
    assert mem.state("m2").atoms == ('moves(user,shanghai,guangzhou,"--12")',)  # type: ignore[union-attr]


def test_a_declared_justification_and_the_rules_link_stand_side_by_side() -> None:
    mem = rules_memory()
    mem.add(st("m1", "fact", MOVE))
    mem.add(st("m2", "belief", "commute_city(user,shenzhen)"), because=["m1"])
    justs = {(j.origin.value, j.premises) for j in mem.justifications("m2")}
    assert justs == {("declared", ("m1",)), ("rule", (COMMUTE,))}
    # the writer's own justification can be taken back; the rules' link stays
    mem.revise({"remove_justifications": [{"head": "m2", "premises": ["m1"]}]})
    assert [(j.origin.value, j.premises) for j in mem.justifications("m2")] == [
        ("rule", (COMMUTE,))
    ]
    assert mem.truth("m2").value == "true"


def test_a_change_may_not_name_an_atom_node() -> None:
    from stategraph.errors import InvalidInputError

    mem = rules_memory()
    mem.add(st("m1", "fact", MOVE))
    mem.add(st("m2", "belief", "commute_city(user,shenzhen)"))
    for change in (
        {"retract": [COMMUTE]},
        {"assert": [{"id": "atom:x", "kind": "fact"}]},
        {"assert": [{"id": "x", "kind": "atom"}]},
        {"add_justifications": [{"head": "m2", "premises": [COMMUTE]}]},
    ):
        with pytest.raises(InvalidInputError, match="atom node"):
            mem.revise(change)


def test_top_down_orders_firings_as_the_grounder_does() -> None:
    """The top-down evaluator's cached sort key of firings is :func:`derive`'s order exactly
    (the firings it merges into a kept list stay in that order)."""
    import clingo

    from stategraph.grounding.packs import Firing, firing_order
    from stategraph.text.topdown import _firing_order

    terms = [MOVE, 'moves(user,"a\\"b",x,"2026-01")', "f(-3,(a,b),g(h))", "dose(user,2)", "x"]
    symbols = [clingo.parse_term(t) for t in terms]
    firings = [
        Firing(f"pack:{i}", symbols[i % 5], tuple(symbols[:i]), tuple(symbols[i:][:1]))
        for i in range(5)
    ]
    assert [_firing_order(f) for f in firings] == [firing_order(f) for f in firings]
    assert sorted(firings, key=_firing_order) == sorted(firings, key=firing_order)
