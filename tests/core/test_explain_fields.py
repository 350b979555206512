"""``why`` and ``why_not`` field by field: every status ``why_not`` gives, the refusal of
``why`` for a state that does not hold, a proof through shared premises, and a proof over a
candidate justification (the premises checked independent are not part of the proof; the
checks are). The mutation run (``scripts/mutation.sh``) found these untested."""

from __future__ import annotations

import pytest

from stategraph import Change, Justification, Memory, State
from stategraph.errors import NotHoldingError
from stategraph.model import EdgeCheck, Origin


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
    mem.revise(Change(add_justifications=[checked]))
    proof = mem.why("h")
    (step,) = [s for s in proof.steps if s.id == "h"]
    assert step.by is not None and step.by.premises == ("f",)
    assert step.by.origin is Origin.recovered
    assert proof.checks == {"p": "the rules derive h without p"}
    assert {s.id for s in proof.steps} == {"f", "h"}
