"""Bad input gets a specific error naming the offending thing, and nothing is written."""

from __future__ import annotations

from typing import Any

import pytest

from stategraph import Memory
from stategraph.errors import (
    DuplicateStateError,
    InvalidChangeError,
    InvalidInputError,
    InvalidKindError,
    SelfJustificationError,
    StategraphError,
    UnknownStateError,
)
from stategraph.graph import SupportGraph


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


def test_bad_because_shape(mem: Memory) -> None:
    with pytest.raises(InvalidInputError, match="only 'all' and 'unless'"):
        mem.belief("c", because=[{"any": ["f"]}])


def test_negative_max_depth() -> None:
    with pytest.raises(InvalidInputError, match="max_depth"):
        Memory(max_depth=-1)
