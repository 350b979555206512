"""Bad input gets a specific error naming the offending thing, and nothing is written."""

from __future__ import annotations

import re
from typing import Any

import pytest

from stategraph import Memory
from stategraph.engine.graph import SupportGraph
from stategraph.errors import (
    DuplicateStateError,
    InvalidChangeError,
    InvalidInputError,
    InvalidKindError,
    SelfJustificationError,
    StategraphError,
    UnknownStateError,
)
from stategraph.model import Change, Justification


@pytest.fixture
def mem() -> Memory:
    m = Memory()
    m.fact("f", "a fact")
    m.belief("b", "a belief", because=["f"])
    return m


@pytest.mark.parametrize(
    ("change", "error", "names"),
    [
        ({"retract": ["nope"]}, UnknownStateError, "nope"),
        ({"assert": [{"id": "f"}]}, InvalidChangeError, "'f' already exists"),
        ({"assert": [{"id": "x", "kind": "wish"}]}, InvalidKindError, "wish"),
        ({"assert": [{"id": "x", "kind": "bad kind"}]}, InvalidInputError, "kind"),
        ({"assert": [{"id": ""}]}, InvalidInputError, "id"),
        (
            {"retract": ["f"], "supersede": {"id": "f", "with": {"id": "g"}}},
            InvalidChangeError,
            "f",
        ),
        (
            {"add_justifications": [{"head": "b", "premises": ["b"]}]},
            SelfJustificationError,
            "'b'",
        ),
        (
            {"add_justifications": [{"head": "b", "premises": ["f"], "unless": ["b"]}]},
            SelfJustificationError,
            "'b'",
        ),
        (
            {"add_justifications": [{"head": "b", "premises": ["ghost"]}]},
            UnknownStateError,
            "ghost",
        ),
        (
            {"add_justifications": [{"head": "ghost", "premises": ["f"]}]},
            UnknownStateError,
            "ghost",
        ),
        ({"add_justifications": [{"head": "f", "premises": ["b"]}]}, InvalidChangeError, "'f'"),
        ({"remove_justifications": [{"head": "b", "premises": ["x"]}]}, InvalidChangeError, "'b'"),
        ({"retract": "f", "bogus": 1}, InvalidInputError, "bogus"),
    ],
)
def test_bad_changes_are_refused_and_nothing_changes(
    mem: Memory, change: dict[str, Any], error: type[Exception], names: str
) -> None:
    before = (mem.holding(), mem.states(), mem.justifications(), len(mem.history()))
    with pytest.raises(error, match=names) as info:
        mem.revise(change)
    assert isinstance(info.value, StategraphError)
    assert (mem.holding(), mem.states(), mem.justifications(), len(mem.history())) == before


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            {"assert": [{"id": "x"}, {"id": "x", "text": "again"}]},
            "'x' appears twice in this change (in assert)",
        ),
        (
            {"assert": [{"id": "x"}], "supersede": {"id": "f", "with": {"id": "x"}}},
            "'x' appears twice in this change (in assert and supersede)",
        ),
        (
            {"supersede": [{"id": "f", "with": {"id": "g"}}, {"id": "b", "with": {"id": "g"}}]},
            "'g' appears twice in this change (in supersede)",
        ),
        (
            {"retract": ["f"], "supersede": {"id": "f", "with": {"id": "g"}}},
            "'f' appears twice in this change (in retract and supersede)",
        ),
    ],
)
def test_an_id_given_twice_in_one_change_says_so(
    mem: Memory, change: dict[str, Any], says: str
) -> None:
    """Not "already exists" (the id is free in the store) nor "already inactive" (it is
    active): the change itself names it twice."""
    before = (mem.states(), mem.justifications(), len(mem.history()))
    with pytest.raises(InvalidChangeError, match=re.escape(says)) as info:
        mem.revise(change)
    assert "already" not in str(info.value)
    assert (mem.states(), mem.justifications(), len(mem.history())) == before


@pytest.mark.parametrize(
    "change",
    [{}, {"retract": []}, {"assert": [], "supersede": [], "add_justifications": []}, Change()],
)
def test_an_empty_change_is_refused_and_logs_nothing(
    mem: Memory, change: dict[str, Any] | Change
) -> None:
    before = len(mem.history())
    with pytest.raises(InvalidChangeError, match="nothing to change") as info:
        mem.revise(change)
    assert info.value.field == "change"
    with pytest.raises(InvalidChangeError, match="nothing to change"):
        mem.retract()
    assert len(mem.history()) == before
    assert mem.verify_log() == before


def test_duplicate_add(mem: Memory) -> None:
    with pytest.raises(StategraphError, match="already exists"):
        mem.fact("f")


def test_retracting_twice(mem: Memory) -> None:
    mem.retract("f")
    with pytest.raises(InvalidChangeError, match="already inactive"):
        mem.retract("f")
    graph = SupportGraph()
    graph.add_state(mem.state("f"))
    with pytest.raises(DuplicateStateError, match="'f' already exists"):
        graph.add_state(mem.state("f"))


def test_errors_carry_their_data(mem: Memory) -> None:
    with pytest.raises(UnknownStateError) as info:
        mem.why("zzz")
    assert info.value.state_id == "zzz"
    with pytest.raises(InvalidKindError) as kind:
        mem.add({"id": "x", "kind": "wish"})
    assert kind.value.kind == "wish" and "belief" in kind.value.known


def test_a_checked_premise_that_is_not_a_premise_is_refused_on_the_engines_path(
    mem: Memory,
) -> None:
    """A caller cannot give ``checked`` (the boundary refuses it); the engine's own path
    (a judge's or a review's change) is refused too if it names a premise the justification
    does not cite, with the field and the head."""
    mem.fact("g", "another fact")
    j = Justification(head="b", premises=("f",), origin="recovered", checked={"g": "dependency"})
    with pytest.raises(InvalidChangeError) as info:
        mem._apply(Change(add_justifications=(j,)))
    assert (info.value.field, info.value.state_id) == ("add_justifications", "b")
    assert str(info.value) == (
        "invalid change (add_justifications): checked premise 'g' is not a premise"
    )
    assert len(mem.history()) == 3  # nothing logged


def test_bad_because_shape(mem: Memory) -> None:
    with pytest.raises(InvalidInputError, match="only 'all' and 'unless'"):
        mem.belief("c", because=[{"any": ["f"]}])


def test_negative_max_depth() -> None:
    with pytest.raises(InvalidInputError, match="max_depth"):
        Memory(max_depth=-1)


_UNKNOWN = ": add the state first, or check the spelling"


@pytest.mark.parametrize(
    ("change", "error", "says", "data"),
    [
        (
            {},
            InvalidChangeError,
            "invalid change (change): nothing to change: name states to retract, assert or "
            "supersede, or justifications to add or remove",
            {"field": "change", "state_id": ""},
        ),
        (
            {"assert": [{"id": "f"}]},
            DuplicateStateError,
            "invalid change (assert): state id 'f' already exists: pick a new id, or supersede "
            "the old state",
            {"field": "assert", "state_id": "f"},
        ),
        (
            {"supersede": {"id": "b", "with": {"id": "f"}}},
            DuplicateStateError,
            "invalid change (supersede): state id 'f' already exists: pick a new id, or supersede "
            "the old state",
            {"field": "supersede", "state_id": "f"},
        ),
        (
            {"assert": [{"id": "x"}], "supersede": {"id": "f", "with": {"id": "x"}}},
            InvalidChangeError,
            "invalid change (supersede): state id 'x' appears twice in this change (in assert "
            "and supersede): give each new state its own id",
            {"field": "supersede", "state_id": "x"},
        ),
        (
            {"retract": ["nope"]},
            UnknownStateError,
            "unknown state id 'nope' (named in retract)" + _UNKNOWN,
            {"state_id": "nope", "context": "named in retract"},
        ),
        (
            {"supersede": {"id": "nope", "with": {"id": "g"}}},
            UnknownStateError,
            "unknown state id 'nope' (named in supersede)" + _UNKNOWN,
            {"state_id": "nope", "context": "named in supersede"},
        ),
        (
            {"retract": ["f"], "supersede": {"id": "f", "with": {"id": "g"}}},
            InvalidChangeError,
            "invalid change (supersede): state id 'f' appears twice in this change (in retract "
            "and supersede): retract it or supersede it, once",
            {"field": "supersede", "state_id": "f"},
        ),
        (
            {"retract": ["gone"]},
            InvalidChangeError,
            "invalid change (retract): state 'gone' is already inactive",
            {"field": "retract", "state_id": "gone"},
        ),
        (
            {"supersede": {"id": "gone", "with": {"id": "g"}}},
            InvalidChangeError,
            "invalid change (supersede): state 'gone' is already inactive",
            {"field": "supersede", "state_id": "gone"},
        ),
        (
            {"add_justifications": [{"head": "ghost", "premises": ["f"]}]},
            UnknownStateError,
            "unknown state id 'ghost' (head of an added justification)" + _UNKNOWN,
            {"state_id": "ghost", "context": "head of an added justification"},
        ),
        (
            {"add_justifications": [{"head": "f", "premises": ["b"]}]},
            InvalidChangeError,
            "invalid change (add_justifications): 'f' is a fact, which holds without "
            "justification; justify a derived state (belief, plan, action) instead",
            {"field": "add_justifications", "state_id": "f"},
        ),
        (
            {"add_justifications": [{"head": "b", "premises": ["ghost"]}]},
            UnknownStateError,
            "unknown state id 'ghost' (premise of b)" + _UNKNOWN,
            {"state_id": "ghost", "context": "premise of b"},
        ),
        (
            {
                "add_justifications": [
                    {"head": "b", "premises": ["f"], "checked": {"zz": "independent"}}
                ]
            },
            InvalidInputError,
            "invalid change: add_justifications.0.checked: filled in by the engine, never "
            "given: drop it",
            {"what": "change"},
        ),
        (
            {"remove_justifications": [{"head": "b", "premises": ["x"], "unless": ["y"]}]},
            InvalidChangeError,
            "invalid change (remove_justifications): 'b' has no justification ['x'] unless ['y']",
            {"field": "remove_justifications", "state_id": "b"},
        ),
    ],
)
def test_each_refusal_word_for_word(
    mem: Memory, change: dict[str, Any], error: type[Exception], says: str, data: dict[str, str]
) -> None:
    """What a refused change says, and the field and id it names, exactly: a caller shows the
    words to a user and acts on the data (the part of the change to fix, the id at fault)."""
    mem.fact("gone", "retracted before the change")
    mem.retract("gone")
    with pytest.raises(error) as info:
        mem.revise(change)
    assert str(info.value) == says
    assert {k: getattr(info.value, k) for k in data} == data
