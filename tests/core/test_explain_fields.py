"""``why`` and ``why_not`` field by field: every status ``why_not`` gives, the refusal of
``why`` for a state that does not hold, a proof through shared premises, and a proof over a
candidate justification (the premises checked independent are not part of the proof; the
checks are). The mutation run (``scripts/mutation.sh``) found these untested."""

from __future__ import annotations

import pytest

from stategraph import Change, Justification, Memory, State
from stategraph.engine.explain import (
    Proof,
    ProofStep,
    WhyNot,
    WhyNotItem,
    confirmed_by,
    justification_value,
)
from stategraph.errors import NotHoldingError
from stategraph.model import EdgeCheck, JustificationRef, Origin, Truth


def test_why_not_says_what_a_state_is() -> None:
    mem = Memory(candidates=None, assume=False)
    mem.fact("f")
    mem.fact("gone")
    mem.fact("old")
    mem.belief("bare")
    mem.belief("held", because=["f"])
    mem.belief("dead", because=["gone"])
    mem.belief("a", because=[{"all": ["f"], "unless": ["b"]}])
    mem.belief("b", because=[{"all": ["f"], "unless": ["a"]}])
    mem.retract("gone")
    mem.supersede("old", {"id": "new"})
    status = {sid: mem.why_not(sid).status for sid in ("f", "gone", "old", "bare", "held")}
    status.update({sid: mem.why_not(sid).status for sid in ("dead", "a")})
    assert status == {
        "f": "active fact",
        "gone": "retracted",
        "old": "superseded by new",
        "bare": "no justification",
        "held": "holds",
        "dead": "unsupported",
        "a": "undecided",
    }
    (item,) = mem.why_not("dead").items
    assert (item.first_failed, item.blocked_by, item.value.value) == ("gone", None, "false")
    (item,) = mem.why_not("a").items
    assert (item.first_failed, item.blocked_by, item.value.value) == (None, "b", "undefined")


def test_why_refuses_a_state_that_does_not_hold() -> None:
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.belief("b", because=["f"])
    mem.retract("f")
    with pytest.raises(NotHoldingError) as caught:
        mem.why("b")
    assert (caught.value.state_id, caught.value.truth) == ("b", "false")
    mem.fact("g")
    mem.belief("u", because=[{"all": ["g"], "unless": ["v"]}])
    mem.belief("v", because=[{"all": ["g"], "unless": ["u"]}])
    with pytest.raises(NotHoldingError) as caught:
        mem.why("u")
    assert (caught.value.state_id, caught.value.truth) == ("u", "undefined")
    assert str(caught.value) == (
        "state 'u' does not hold (it is undefined): ask why-not instead "
        "(Memory.why_not('u'), or stategraph why-not STORE u)"
    )


def test_a_proof_through_shared_premises_has_every_step_once() -> None:
    """h rests on a, b and c; b also on a; a and c on f: a depth-first walk meets a and f
    more than once, and must still reach every ancestor it uses, each once, at its height
    (b, and g with it, are left out: h's lower justification does without them)."""
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.fact("g")
    mem.belief("a", because=["f"])
    mem.belief("b", because=[["a", "g"]])
    mem.belief("c", because=["f"])
    mem.belief("h", because=[["a", "b", "c"], ["c", "a"]])
    proof = mem.why("h")
    steps = {s.id: (s.height, s.by.premises if s.by else None) for s in proof.steps}
    assert steps == {
        "f": (0, None),
        "a": (1, ("f",)),
        "c": (1, ("f",)),
        "h": (2, ("a", "c")),
    }


def test_a_proof_meets_a_shared_premise_again_and_goes_on() -> None:
    """h rests on a, c and d, each on f: the walk meets f a second time before it reaches
    a, and must not stop there."""
    mem = Memory(candidates=None)
    mem.fact("f")
    for sid in ("a", "c", "d"):
        mem.belief(sid, because=["f"])
    mem.belief("h", because=[["a", "c", "d"]])
    steps = [(s.id, s.height) for s in mem.why("h").steps]
    assert steps == [("f", 0), ("a", 1), ("c", 1), ("d", 1), ("h", 2)]


def test_a_proof_over_candidates_leaves_out_what_was_checked_independent() -> None:
    mem = Memory(candidates=None, assume=False)
    mem.revise(Change(assert_=[State(id="f"), State(id="p"), State(id="h", kind="belief")]))
    checked = Justification(
        head="h",
        premises=["f", "p"],
        origin=Origin.recovered,
        checked={"p": EdgeCheck.independent},
        notes={"p": "the rules derive h without p"},
    )
    mem._apply(Change(add_justifications=[checked]))  # as the rules' check records it
    proof = mem.why("h")
    (step,) = [s for s in proof.steps if s.id == "h"]
    assert step.by is not None and step.by.premises == ("f",)
    assert step.by.origin is Origin.recovered
    assert proof.checks == {"p": "the rules derive h without p"}
    assert {s.id for s in proof.steps} == {"f", "h"}


ESCAPED = [*range(32), *range(127, 160), 0x2028, 0x2029, *range(0x202A, 0x202F)]
ESCAPED += list(range(0x2066, 0x206A))
KEPT = [32, 126, 160, 0x2027, 0x202F, 0x2065, 0x206A, ord("\\")]
"""Characters on either side of each escaped range, and the backslash (which ``ascii`` would
double: the escapes are for the characters above, not a quoting of the whole text)."""


def _ref(premises: tuple[str, ...], **more: object) -> JustificationRef:
    return JustificationRef(premises=premises, **more)  # type: ignore[arg-type]


@pytest.mark.parametrize("code", ESCAPED + KEPT)
def test_renderers_escape_exactly_the_control_and_bidi_characters(code: int) -> None:
    """A memory's text or id cannot forge a line or reorder one: every control, line- or
    paragraph-separator and bidi character is escaped, and nothing else is."""
    ch = chr(code)
    proof = Proof(
        root="f", steps=(ProofStep(id="f", kind="fact", text=f"a{ch}b", height=0, by=None),)
    )
    item = WhyNotItem(
        justification=_ref((f"p{ch}q",)), value=Truth.false, first_failed=None, blocked_by=None
    )
    why_not = WhyNot(id="x", truth=Truth.false, status="unsupported", items=(item,))
    shown = ascii(ch)[1:-1] if code in ESCAPED else ch
    assert proof.render() == f"f [fact] a{shown}b  (fact)"
    assert why_not.render().splitlines()[1] == f"  <- [p{shown}q] (declared): false"


def test_a_proof_renders_every_step_in_its_words() -> None:
    steps = (
        ProofStep(id="f", kind="fact", text="", height=0, by=None),
        ProofStep(id="g", kind="fact", text="", height=0, by=None),
        ProofStep(
            id="h",
            kind="belief",
            text="",
            height=1,
            by=_ref(("f", "g"), unless=("u", "v"), origin=Origin.rule, rules=("p:1", "p:2")),
        ),
        ProofStep(id="r", kind="belief", text="", height=0, by=_ref((), origin=Origin.review)),
        ProofStep(
            id="s",
            kind="belief",
            text="t",
            height=2,
            by=_ref(("h", "r", "f"), notes={"f": "checked"}),
        ),
    )
    assert Proof(root="s", steps=steps, checks={"c": "independent"}).render().splitlines() == [
        "s [belief] t  <- declared",
        "    (checked)",
        "  h [belief]  <- rule via p:1, p:2, unless u, v (none holds)",
        "    f [fact]  (fact)",
        "    g [fact]  (fact)",
        "  r [belief]  <- confirmed by ?",
        "  f [fact]  (fact)",
        "candidate c: independent",
    ]


def test_deep_proofs_name_their_depth_past_forty_levels() -> None:
    steps = [ProofStep(id="s0", kind="fact", text="", height=0, by=None)]
    steps += [
        ProofStep(id=f"s{i}", kind="belief", text="", height=i, by=_ref((f"s{i - 1}",)))
        for i in range(1, 43)
    ]
    lines = Proof(root="s42", steps=tuple(steps)).render().splitlines()
    assert lines[40] == "  " * 40 + "s2 [belief]  <- declared"
    assert lines[41] == "  " * 40 + "[depth 41] s1 [belief]  <- declared"


def test_a_confirmation_says_who_when_and_why_as_far_as_it_is_known() -> None:
    ref = _ref((), origin=Origin.review, notes={"by": "ana"})
    assert confirmed_by(ref) == "confirmed by ana"
    ref = _ref((), origin=Origin.review, notes={"by": "ana", "at": "2026-01-02", "note": "ok"})
    assert confirmed_by(ref) == "confirmed by ana on 2026-01-02: ok"


def test_why_not_words_a_justification_with_and_without_unless() -> None:
    items = (
        WhyNotItem(
            justification=_ref(("a", "b")), value=Truth.false, first_failed="a", blocked_by=None
        ),
        WhyNotItem(
            justification=_ref(("a",), unless=("u", "w")),
            value=Truth.undefined,
            first_failed=None,
            blocked_by="u",
        ),
    )
    text = WhyNot(id="x", truth=Truth.false, status="unsupported", items=items).render()
    assert text.splitlines() == [
        "x is false: unsupported",
        "  <- [a, b] (declared): premise a does not hold",
        "  <- [a] unless [u, w] (declared): blocked by u",
    ]


def test_why_not_goes_on_after_a_confirmation() -> None:
    items = (
        WhyNotItem(
            justification=_ref((), origin=Origin.review, notes={"by": "ana"}),
            value=Truth.true,
            first_failed=None,
            blocked_by=None,
        ),
        WhyNotItem(
            justification=_ref(("a",)), value=Truth.false, first_failed="a", blocked_by=None
        ),
    )
    text = WhyNot(id="x", truth=Truth.true, status="holds", items=items).render()
    assert text.splitlines() == [
        "x is true: holds",
        "  <- confirmed by ana (true)",
        "  <- [a] (declared): premise a does not hold",
    ]


T, U, F = Truth.true, Truth.undefined, Truth.false


@pytest.mark.parametrize(
    ("p", "u", "candidate", "expected"),
    [
        (T, F, False, T),
        (T, T, False, F),
        (T, U, False, U),
        (U, F, False, U),
        (U, T, False, F),
        (F, U, False, F),
        (T, F, True, T),
        (F, F, True, U),
        (U, U, True, U),
        (F, T, True, F),
    ],
)
def test_a_candidate_justification_with_an_unless_has_the_three_valued_truth(
    p: Truth, u: Truth, candidate: bool, expected: Truth
) -> None:
    """``p, not u``: false if p is false or u true, true if p is true and u false, undefined
    otherwise; an unchecked candidate p counts as undefined once it stops holding. With p
    checked, a recovered justification has the value of the same declared one."""
    checked = {} if candidate else {"p": EdgeCheck.dependency}
    j = Justification(
        head="h", premises=["p"], unless=["u"], origin=Origin.recovered, checked=checked
    )
    values = {"p": p, "u": u}
    assert justification_value(j, values.__getitem__) is expected
    if not candidate:
        declared = Justification(head="h", premises=["p"], unless=["u"])
        assert justification_value(declared, values.__getitem__) is expected
