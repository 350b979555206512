"""Drug interactions in the health pack: what taking one thing rules out, and what to
suggest instead.

The knowledge is data in ``rules/packs/health.lp`` (``drug_class``, ``interacts``,
``substitute``); these tables check that a class-level interaction reaches every member, that
unrelated drugs stay untouched, and that an interaction never feeds back into prescriptions.
"""

from __future__ import annotations

import clingo
import pytest

from stategraph.grounding import derive


def heads(inputs: list[str]) -> set[str]:
    """Test input only: literal atom strings written in this file."""
    return {str(f.head) for f in derive([clingo.parse_term(t) for t in inputs], ["health"])}


# (inputs, must be derived, must not be derived)
TABLE = [
    (
        ["takes(user,warfarin)"],
        {
            "contraindicated(user,ibuprofen)",
            "contraindicated(user,naproxen)",
            "contraindicated(user,celecoxib)",
            "contraindicated(user,nsaids)",
            "suggest_instead(user,acetaminophen)",
        },
        {"contraindicated(user,acetaminophen)", "contraindicated(user,alcohol)"},
    ),
    (
        ['dose(user,apixaban,"5mg")'],
        {"contraindicated(user,aspirin)", "suggest_instead(user,acetaminophen)"},
        set(),
    ),
    (
        ["takes(user,metronidazole)"],
        {"contraindicated(user,alcohol)", "suggest_instead(user,non_alcoholic)"},
        {"contraindicated(user,ibuprofen)"},
    ),
    (
        ["takes(user,alprazolam)"],
        {"contraindicated(user,alcohol)"},
        {"contraindicated(user,grapefruit)"},
    ),
    (
        ["takes(user,simvastatin)"],
        {"contraindicated(user,grapefruit)"},
        {"contraindicated(user,alcohol)"},
    ),
    (["takes(user,atorvastatin)"], set(), {"contraindicated(user,grapefruit)"}),
    (
        ["takes(user,sildenafil)"],
        {"contraindicated(user,nitroglycerin)", "contraindicated(user,isosorbide)"},
        set(),
    ),
    (
        ["takes(user,phenelzine)"],
        {"contraindicated(user,tyramine)", "contraindicated(user,sertraline)"},
        set(),
    ),
    (["takes(user,doxycycline)"], {"contraindicated(user,dairy)"}, set()),
    (["takes(user,lithium)"], {"contraindicated(user,ibuprofen)"}, set()),
    (["takes(user,aspirin)"], set(), {"contraindicated(user,aspirin)"}),
    (["takes(user,levothyroxine)"], set(), {"contraindicated(user,ibuprofen)"}),
    (
        ["takes(user,warfarin)", "allergic(user,acetaminophen)"],
        {"contraindicated(user,ibuprofen)"},
        {"suggest_instead(user,acetaminophen)"},
    ),
    (
        ["diagnosed(user,arthritis)", "takes(user,warfarin)"],
        {"prescribed(user,acetaminophen)"},
        {"prescribed(user,ibuprofen)"},
    ),
    (["allergic(user,nsaids)"], {"suggest_instead(user,acetaminophen)"}, set()),
    (
        ["diagnosed(user,pregnancy)"],
        {"contraindicated(user,naproxen)", "contraindicated(user,alcohol)"},
        {"contraindicated(user,acetaminophen)"},
    ),
    (["diagnosed(user,peptic_ulcer)"], {"contraindicated(user,aspirin)"}, set()),
    (["diagnosed(user,liver_disease)"], {"contraindicated(user,alcohol)"}, set()),
    (["diagnosed(father,pregnancy)"], set(), {"contraindicated(user,ibuprofen)"}),
    (
        ["suggest_instead(user,ibuprofen)", "purchase(user,alcohol)"],
        {"suggest_instead(user,ibuprofen)", "purchase(user,alcohol)"},
        set(),
    ),
    (
        ["suggest_instead(user,ibuprofen)", "purchase(user,alcohol)", "diagnosed(user,pregnancy)"],
        set(),
        {"suggest_instead(user,ibuprofen)", "purchase(user,alcohol)"},
    ),
    # A substitute is suggested only for what it replaces, never on its own.
    (["suggest_instead(user,acetaminophen)"], set(), {"suggest_instead(user,acetaminophen)"}),
]


@pytest.mark.parametrize(("inputs", "present", "absent"), TABLE)
def test_interaction_table(inputs: list[str], present: set[str], absent: set[str]) -> None:
    derived = heads(inputs)
    assert present <= derived, present - derived
    assert not absent & derived, absent & derived


def test_suggestion_rests_on_the_avoided_drug() -> None:
    firings = derive(
        [clingo.parse_term("contraindicated(user,ibuprofen)")], ["health"], potential=True
    )
    got = [f for f in firings if str(f.head) == "suggest_instead(user,acetaminophen)"]
    assert [str(p) for p in got[0].premises] == ["contraindicated(user,ibuprofen)"]
    assert [str(u) for u in got[0].unless] == ["contraindicated(user,acetaminophen)"]
