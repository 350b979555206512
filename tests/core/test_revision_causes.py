"""Which cause an undefined state is given, and which justification a kept state is said to
rest on, in the cases the mutation run (``scripts/mutation.sh``) found untested."""

from __future__ import annotations

from stategraph import Change, Justification, Memory, State
from stategraph.engine.revise import seeds
from stategraph.model import EdgeCheck, Origin


def test_a_candidate_that_stopped_holding_is_the_cause() -> None:
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.belief("b", context=["f"])
    entry = mem.retract("f").entry("b")
    assert entry is not None and entry.new.value == "undefined"
    assert entry.reason.cause == "unverified_candidate"


def test_an_undefined_premise_is_the_cause_when_every_candidate_holds() -> None:
    """x rests on a candidate g, which holds, and on a, checked as needed: once a and b
    block each other, x is undefined because of a, not because of its candidate."""
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.fact("g")
    mem.belief("a", because=[{"all": ["f"], "unless": ["b"]}])
    checked = Justification(
        head="x", premises=["g", "a"], origin=Origin.recovered, checked={"a": EdgeCheck.dependency}
    )
    # as a check by the rules or a judge records it (a caller may not: stategraph.provenance)
    mem._apply(Change(assert_=[State(id="x", kind="belief")], add_justifications=[checked]))
    report = mem.belief("b", because=[{"all": ["f"], "unless": ["a"]}])
    entry = report.entry("x")
    assert entry is not None and (entry.old.value, entry.new.value) == ("true", "undefined")
    assert entry.reason.cause == "undefined_premise" and entry.reason.undecided == ("a",)


def test_a_kept_state_is_never_said_to_rest_on_a_falsity_that_hinges_on_it() -> None:
    """x holds through g (and h, which goes), and ``f, not y`` holds too, but only because x
    makes y false: it is as low, and sorts first, yet must not be named as what carries x."""
    mem = Memory(candidates=None)
    for f in ("f", "g", "h"):
        mem.fact(f)
    mem.belief("x", because=["h"])
    mem.belief("y", because=[{"all": ["f"], "unless": ["x"]}])
    mem.revise(
        Change(
            add_justifications=[
                Justification(head="x", premises=["f"], unless=["y"]),
                Justification(head="x", premises=["g"]),
            ]
        )
    )
    report = mem.revise(
        Change(retract=["h"], add_justifications=[Justification(head="x", premises=["f", "g"])])
    )
    entry = report.entry("x")
    assert entry is not None and entry.verdict.value == "kept"
    assert entry.reason.surviving is not None and entry.reason.surviving.unless == ()


def test_an_undefined_blocker_outside_what_is_solved_still_blocks() -> None:
    """u and v block each other, so x (``f, not u``) is undefined. A change that reaches x but
    not u solves x with u frozen: undefined, not absent, so x stays undefined."""
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.fact("h")
    mem.retract("h")
    mem.belief("u", because=[{"all": ["f"], "unless": ["v"]}])
    mem.belief("v", because=[{"all": ["f"], "unless": ["u"]}])
    mem.belief("x", because=[{"all": ["f"], "unless": ["u"]}])
    assert mem.undefined() == {"u", "v", "x"}
    report = mem.revise(Change(add_justifications=[Justification(head="x", premises=["h"])]))
    assert report.solved == 1 and report.entries == ()
    assert mem.undefined() == {"u", "v", "x"} and mem.holding() == {"f"}


def test_a_retracted_state_the_cascade_passes_does_not_end_the_report() -> None:
    """a was retracted earlier; retracting f reaches it again (edges into a state that does
    not hold are open) and, after it in the report's order, x, which must still be graded."""
    mem = Memory(candidates=None)
    mem.fact("f")
    mem.belief("a", because=["f"])
    mem.belief("x", because=["f"])
    mem.retract("a")
    assert mem.retract("f").invalidated == ["x"]


def test_each_candidate_premise_counts_for_its_own_head() -> None:
    """a's candidate f1 goes; b's candidate x is solved too (it lost f1) but holds through
    g: a is undefined, waiting for a check, and b holds on, untouched. One candidate's node
    must not stand in for another's, and a candidate inside the cone carries its head while
    it holds."""
    mem = Memory(candidates=None)
    mem.fact("f1")
    mem.fact("g")
    mem.belief("x", because=[["f1"], ["g"]])
    mem.plan("a", context=["f1"])
    mem.plan("b", context=["x"])
    report = mem.retract("f1")
    assert [(e.id, e.new.value, e.reason.cause) for e in report.entries] == [
        ("a", "undefined", "unverified_candidate"),
        ("x", "true", "alternative_support"),
    ]
    assert [(e.head, e.premise, e.decided_by) for e in report.edges] == [("a", "f1", None)]
    assert mem.holding() == {"g", "x", "b"} and mem.undefined() == {"a"}


def test_seeds_say_how_the_change_acts_on_each_state() -> None:
    change = Change.model_validate(
        {
            "retract": ["r"],
            "supersede": [{"id": "s", "with": {"id": "s2"}}],
            "assert": [{"id": "n"}],
            "add_justifications": [
                {"head": "h", "premises": ["p"]},
                {"head": "r", "premises": ["p"]},
            ],
            "remove_justifications": [{"head": "k", "premises": ["p"]}],
        }
    )
    assert seeds(change) == {
        "h": "justification",
        "k": "justification",
        "r": "retracted",
        "s": "superseded",
        "n": "asserted",
        "s2": "asserted",
    }


def test_a_settled_premise_counts_as_height_zero() -> None:
    """x keeps o (a fact the change leaves alone, so outside what is graded) and p, recovered
    and checked independent, so resting on nothing: both are one step high, and the tie goes
    to the smaller justification, ``x <- o``."""
    mem = Memory(candidates=None)
    for f in ("f", "o", "p"):
        mem.fact(f)
    mem.belief("x", because=["f", "o"])
    recovered = Justification(head="x", premises=["p"], origin=Origin.recovered)
    mem.revise(Change(add_justifications=[recovered]))
    assert mem.justifications("x")[2].checked == {"p": EdgeCheck.independent}
    entry = mem.retract("f").entry("x")
    assert entry is not None and entry.verdict.value == "kept"
    assert entry.reason.surviving is not None
    assert (entry.reason.surviving.premises, entry.reason.surviving.origin) == (
        ("o",),
        Origin.declared,
    )
