"""A namespaced key as a state id: valid, readable where it can be, reversible always."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stategraph.errors import InvalidInputError
from stategraph.integrations.ids import namespace_prefix, parse_id, state_id
from stategraph.model import normalise_id


def test_plain_keys_read_as_typed() -> None:
    assert state_id(("memories", "u1"), "move") == "memories/u1/move"
    assert state_id(("memories", "u1"), "move", 2) == "memories/u1/move#2"
    assert state_id(("记忆",), "宽带") == "记忆/宽带"
    assert namespace_prefix(("memories", "u1")) == "memories/u1/"
    assert parse_id("memories/u1/move#2") == (("memories", "u1"), "move", 2)


def test_separators_and_unsafe_characters_are_escaped_reversibly() -> None:
    sid = state_id(("a/b", "c%d"), " x#1.y/z\n\u202e ")
    assert sid == "a%2Fb/c%25d/%20x%231%2Ey%2Fz%0A%u202E%20"
    assert parse_id(sid) == (("a/b", "c%d"), " x#1.y/z\n\u202e ", 1)


def test_text_normalisation_would_change_is_escaped_so_two_spellings_stay_two_keys() -> None:
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    a, b = state_id(("n",), composed), state_id(("n",), decomposed)
    assert a == "n/café" and a != b
    assert parse_id(b) == (("n",), decomposed, 1)


def test_ids_this_mapping_did_not_make_are_not_read_as_keys() -> None:
    for foreign in ("m1", "a/b#1", "a/b#02", "a//b", "a/%2f", "/x"):
        assert parse_id(foreign) is None, foreign


def test_an_id_past_the_length_limit_is_refused_naming_the_limit() -> None:
    with pytest.raises(InvalidInputError, match="at most 512"):
        state_id(("n",), "k" * 600)
    with pytest.raises(InvalidInputError, match="namespace"):
        state_id((), "k")


labels = st.text(min_size=1, max_size=12).filter(lambda s: "." not in s and "\x00" not in s)


@given(st.lists(labels, min_size=1, max_size=3), st.text(max_size=12), st.integers(1, 99))
def test_every_key_round_trips_through_a_valid_id(
    namespace: list[str], key: str, version: int
) -> None:
    sid = state_id(tuple(namespace), key, version)
    assert normalise_id(sid) == sid
    assert parse_id(sid) == (tuple(namespace), key, version)
    assert sid.startswith(namespace_prefix(namespace))


def test_without_langgraph_the_store_module_says_what_to_install() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['langgraph'] = None\n"
        "import stategraph.integrations, stategraph.integrations.ids\n"
        "try:\n    import stategraph.integrations.langgraph\n"
        "except ImportError as exc:\n    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert 'pip install "stategraph[langgraph]"' in done.stdout
