"""Rule packs: premise atoms → derived atoms, per pack, plus firing structure and errors."""

from __future__ import annotations

import re

import clingo
import pytest

from stategraph.errors import StategraphError
from stategraph.grounding import RulePack, RulePackError, derive, list_packs, load_pack
from stategraph.grounding.frames import load_frames
from stategraph.grounding.packs import BUILTINS


def atoms(*texts: str) -> list[clingo.Symbol]:
    """Test input only: parse literal atom strings written in this file."""
    return [clingo.parse_term(t) for t in texts]


def heads(inputs: list[str], packs: list[str]) -> set[str]:
    return {str(f.head) for f in derive(atoms(*inputs), packs)}


MOVE = 'moves(user,shanghai,shenzhen,"2026-12")'

# (pack, premise atoms, atoms that must be derived, atoms that must not be derived)
TABLE = [
    (
        "relocation",
        [MOVE],
        {
            "home_city(user,shenzhen)",
            "commute_city(user,shenzhen)",
            "recommend(user,activities,shenzhen)",
            "cancel_utility(user,broadband)",
            "relocating(user)",
        },
        {"home_city(user,shanghai)"},
    ),
    (
        "relocation",
        [MOVE, "lives_in(user,shanghai)"],
        {"home_city(user,shenzhen)"},
        {"home_city(user,shanghai)", "commute_city(user,shanghai)"},
    ),
    (
        "relocation",
        ["stays(user,shanghai)"],
        {"home_city(user,shanghai)", "commute_city(user,shanghai)"},
        {"cancel_utility(user,broadband)", "relocating(user)"},
    ),
    (
        "relocation",
        ["lives_in(user,shanghai)", "works_in(user,shenzhen)"],
        {"commute_city(user,shanghai)", "commute_city(user,shenzhen)"},
        {"home_city(user,shenzhen)"},
    ),
    (
        "relocation",
        ["moves(user,shenzhen,shenzhen,unknown)"],
        {"home_city(user,shenzhen)"},
        {"cancel_utility(user,broadband)", "relocating(user)"},
    ),
    ("relocation", ["prefers_cuisine(user,cantonese)"], set(), {"recommend(user,restaurants,_)"}),
    (
        "relocation",
        ["maybe(moves(user,unknown,shenzhen,unknown))"],
        set(),
        {"home_city(user,shenzhen)"},
    ),
    (
        "scheduling",
        ['appointment(user,dentist,"2026-12-05")', 'trip(user,beijing,"2026-12-05")'],
        {"remind(user,dentist)", "book_hotel(user,beijing)", "reschedule(user,dentist,beijing)"},
        set(),
    ),
    (
        "scheduling",
        ["appointment(user,dentist,unknown)", "trip(user,beijing,unknown)"],
        {"remind(user,dentist)"},
        {"reschedule(user,dentist,beijing)"},
    ),
    (
        "scheduling",
        ['trip(user,beijing,"2026-11")', "lives_in(user,beijing)"],
        set(),
        {"book_hotel(user,beijing)"},
    ),
    (
        "health",
        ["diagnosed(user,diabetes)"],
        {
            "prescribed(user,metformin)",
            "on_medication(user,metformin)",
            "refill_reminder(user,metformin)",
        },
        {"prescribed(user,insulin)"},
    ),
    (
        "health",
        ["diagnosed(user,bacterial_infection)", "allergic(user,penicillin)"],
        {"contraindicated(user,amoxicillin)", "prescribed(user,azithromycin)"},
        {"prescribed(user,amoxicillin)", "refill_reminder(user,amoxicillin)"},
    ),
    ("health", ["takes(user,insulin)"], {"refill_reminder(user,insulin)"}, set()),
    (
        "finance",
        ["identity_verified(user)", "transfer_request(user,5000,cny)"],
        {"account_limit(user,standard)", "scheduled_transfer(user,5000,cny)"},
        {"account_limit(user,enhanced)"},
    ),
    (
        "finance",
        ["identity_verified(user)", "transfer_request(user,60000,cny)"],
        {"account_limit(user,standard)"},
        {"scheduled_transfer(user,60000,cny)"},
    ),
    (
        "finance",
        ["identity_verified(user)", "address_verified(user)", "transfer_request(user,60000,cny)"],
        {"account_limit(user,enhanced)", "scheduled_transfer(user,60000,cny)"},
        set(),
    ),
    (
        "finance",
        ["identity_verified(user)", "flagged(user)", "transfer_request(user,10,cny)"],
        set(),
        {"account_limit(user,standard)", "scheduled_transfer(user,10,cny)"},
    ),
    (
        "finance",
        ["identity_verified(user)", "transfer_request(user,10,unknown)"],
        {"account_limit(user,standard)"},
        {"scheduled_transfer(user,10,unknown)"},
    ),
]


@pytest.mark.parametrize(("pack", "inputs", "present", "absent"), TABLE)
def test_pack_table(pack: str, inputs: list[str], present: set[str], absent: set[str]) -> None:
    derived = heads(inputs, [pack])
    assert present <= derived
    for pattern in absent:
        regex = re.escape(pattern).replace("_", "[^,()]+")
        assert not any(re.fullmatch(regex, h) for h in derived), pattern


def test_firing_records_premises_and_unless() -> None:
    firings = derive(atoms("lives_in(user,shanghai)"), ["relocation"])
    home = next(f for f in firings if str(f.head) == "home_city(user,shanghai)")
    assert [str(p) for p in home.premises] == ["lives_in(user,shanghai)"]
    assert [str(u) for u in home.unless] == ["relocating(user)"]
    assert home.rule.startswith("relocation:")


def test_pack_knowledge_is_not_a_premise() -> None:
    firings = derive(atoms("allergic(user,penicillin)"), ["health"])
    contra = next(f for f in firings if str(f.head) == "contraindicated(user,amoxicillin)")
    assert [str(p) for p in contra.premises] == ["allergic(user,penicillin)"]
    assert not any(str(f.head).startswith(("contains(", "first_line(")) for f in firings)


def test_alternative_support_gives_two_firings() -> None:
    firings = derive(
        atoms("identity_verified(user)", "address_verified(user)", "transfer_request(user,5,cny)"),
        ["finance"],
    )
    transfer = [f for f in firings if str(f.head) == "scheduled_transfer(user,5,cny)"]
    assert len(transfer) == 2


def test_derive_is_deterministic() -> None:
    inputs = atoms(MOVE, "diagnosed(user,diabetes)")
    first = [f.to_dict() for f in derive(inputs, list_packs())]
    assert first == [f.to_dict() for f in derive(list(reversed(inputs)), list_packs())]


def test_no_atoms_no_firings() -> None:
    assert derive([], list_packs()) == []


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("p(X) :- q(Y).", "unsafe"),
        ("p(X :- q(X).", "syntax error|unexpected"),
        ("{ p(X) } :- q(X).", "single atom"),
        ("p(X) :- #count { Y : q(Y) } = X.", "only literals|not an atom"),
        ("#external q(1).", "unsupported statement"),
        (":- q(1).", "single atom"),
    ],
)
def test_malformed_packs_raise(text: str, match: str) -> None:
    with pytest.raises(RulePackError, match=match) as info:
        derive(atoms("q(1)"), [RulePack.from_text("bad", text)])
    assert isinstance(info.value, StategraphError)
    assert isinstance(info.value, ValueError)
    assert info.value.pack == "bad"


def test_unstratified_pack_is_rejected() -> None:
    pack = RulePack.from_text("loop", "p :- q(1), not r.\nr :- q(1), not p.")
    with pytest.raises(RulePackError, match="stratified"):
        derive(atoms("q(1)"), [pack])


def test_unknown_pack_names_the_shipped_ones() -> None:
    with pytest.raises(RulePackError, match="relocation"):
        load_pack("nope")


def test_anonymous_variables_are_allowed() -> None:
    pack = RulePack.from_text("anon", "p(X) :- q(X,_).")
    firing = derive(atoms("q(1,2)"), [pack])[0]
    assert str(firing.head) == "p(1)"
    assert [str(p) for p in firing.premises] == ["q(1,2)"]


# ---- documentation and vocabulary --------------------------------------------------------


@pytest.mark.parametrize("name", ["relocation", "scheduling", "health", "finance"])
def test_every_predicate_is_documented(name: str) -> None:
    pack = load_pack(name)
    assert pack.used
    assert pack.used <= set(pack.docs), pack.used - set(pack.docs)
    unused = {
        sig for sig in set(pack.docs) - pack.used if "premise of no rule" not in pack.docs[sig]
    }
    assert not unused, f"documented predicates that no rule uses: {unused}"


def _frame_signatures() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for frame in load_frames():
        out.setdefault(frame.domain, set()).add(f"{frame.predicate}/{len(frame.args)}")
    return out


def test_extractor_vocabulary_matches_the_packs() -> None:
    frames = _frame_signatures()
    assert set(frames) == set(list_packs())
    for domain, signatures in frames.items():
        docs = load_pack(domain).docs
        assert signatures <= set(docs), (domain, signatures - set(docs))


def test_every_pack_input_has_a_frame() -> None:
    grounded = {s for sigs in _frame_signatures().values() for s in sigs}
    for name in list_packs():
        pack = load_pack(name)
        inputs = pack.used - pack.heads - BUILTINS  # builtins come from derive itself
        assert inputs <= grounded, (name, inputs - grounded)
