"""Fuzzing the loaders, and the public API behind them, with Hypothesis.

Whatever the bytes, a loader returns a value or raises an :class:`InputFileError`; what it
returns for an ordinary document is what ``yaml.safe_load``/``json.loads`` return; and a
loaded change given to ``Memory.revise`` succeeds or raises a ``StategraphError``, leaving a
log that verifies. The example budget comes from the profile in ``tests/conftest.py`` (``ci``:
100 per property, derandomized; ``STATEGRAPH_HYPOTHESIS_PROFILE=deep`` for 20,000).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from stategraph import Memory
from stategraph.errors import (
    InputFileError,
    InputLimitError,
    InvalidInputError,
    StategraphError,
)
from stategraph.loaders import CASE, CHANGE, IMPORT, Limits, load_change, parse_json, parse_yaml

YAML_PIECES = (
    "retract", "assert", "supersede", "with", "id", "kind", "text", "m1", "m2", "fact", ":",
    ": ", "- ", "[", "]", "{", "}", ", ", "\n", "  ", "&a ", "*a", "&b ", "*b", "<<: ", "? ",
    "!!str ", "!!python/object ", "!x ", "'", '"', "#", "---\n", "...\n", "|\n", ">\n", "~",
    "1", "2.5", "2026-12-01", "true", "\t", "\\", "\x00", "\ufeff", "é", "深圳", "%YAML 1.1\n",
)  # fmt: skip
JSON_PIECES = (
    "{", "}", "[", "]", ":", ",", '"', '"id"', '"head"', '"premises"', '"x"', "1", "-1e999",
    "NaN", "Infinity", "true", "null", "\\", "\\u0000", "\\ud800", " ", "\n", "é",
)  # fmt: skip

yaml_soup = st.lists(st.sampled_from(YAML_PIECES), max_size=60).map("".join)
json_soup = st.lists(st.sampled_from(JSON_PIECES), max_size=60).map("".join)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=25,
)


@given(st.one_of(yaml_soup, st.text(max_size=200)))
def test_any_text_parses_or_is_refused_cleanly(text: str) -> None:
    for limits in (CHANGE, CASE):
        try:
            parse_yaml(text, "fuzz.yaml", limits)
        except InputFileError as exc:
            assert str(exc).startswith("fuzz.yaml")


@given(st.one_of(json_soup, st.text(max_size=200)))
def test_any_text_as_an_import_line_parses_or_is_refused_cleanly(text: str) -> None:
    try:
        parse_json(text, "in.jsonl", IMPORT, 7)
    except InputFileError as exc:
        assert str(exc).startswith("in.jsonl")
        assert exc.line is None or exc.line >= 7


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300) | yaml_soup.map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_any_bytes_as_a_change_file(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "change.yaml"
    path.write_bytes(data)
    try:
        change = load_change(path)
    except InputFileError as exc:
        assert exc.path == str(path)
    else:
        assert isinstance(change, dict)


@given(json_values)
def test_ordinary_documents_load_as_the_standard_parsers_read_them(value: Any) -> None:
    """Where no id stands: there a plain scalar is kept as written (``test_strict_ids.py``)."""
    text = json.dumps(value)
    assert parse_json(text, "v.json", CASE) == json.loads(text)
    dumped = yaml.safe_dump(value, allow_unicode=True)
    no_ids = replace(CASE, ids=frozenset())
    assert parse_yaml(dumped, "v.yaml", no_ids) == yaml.safe_load(dumped)


@given(st.lists(st.sampled_from(["list", "map"]), min_size=1, max_size=120), st.booleans())
def test_nesting_is_refused_exactly_past_the_limit(shape: list[str], flow: bool) -> None:
    limits = Limits(max_bytes=1 << 20, max_depth=64)
    text = "x"
    for kind in reversed(shape):
        text = f"[{text}]" if kind == "list" else f'{{"k": {text}}}'
    for parse in (parse_json, parse_yaml):
        try:
            parse(text, "deep", limits)
        except InputLimitError as exc:
            assert len(shape) > 64 and exc.limit == "max_depth"
        except InputFileError:
            assert parse is parse_json  # a bare x is YAML, not JSON
        else:
            assert len(shape) <= 64


@given(st.lists(st.sampled_from(["retract", "assert", "id", "kind", "x"]), min_size=2, max_size=6))
def test_a_repeated_key_is_always_refused(keys: list[str]) -> None:
    text = "".join(f"{k}: {i}\n" for i, k in enumerate(keys))
    try:
        parse_yaml(text, "c.yaml", CHANGE)
    except InputFileError as exc:
        assert len(set(keys)) < len(keys) and "duplicate key" in str(exc)
    else:
        assert len(set(keys)) == len(keys)


ids = st.sampled_from(["f", "b", "a", "new", "", " ", "x\ny", "深圳", "f\x00"])
states = st.fixed_dictionaries(
    {"id": ids},
    optional={
        "kind": st.sampled_from(["fact", "belief", "action", "plan", "1bad", ""]),
        "text": st.text(max_size=10),
        "status": st.sampled_from(["pending", "executed", "maybe"]),
        "metadata": json_values,
        "atoms": st.lists(st.text(max_size=5), max_size=2),
    },
)
changes = st.fixed_dictionaries(
    {},
    optional={
        "retract": st.one_of(ids, st.lists(ids, max_size=3), json_values),
        "assert": st.one_of(st.lists(states, max_size=3), json_values),
        "supersede": st.one_of(st.fixed_dictionaries({"id": ids, "with": states}), json_values),
        "add_justifications": st.lists(
            st.fixed_dictionaries(
                {"head": ids},
                optional={"premises": st.lists(ids, max_size=2), "unless": st.lists(ids)},
            ),
            max_size=2,
        ),
        "extra": json_values,
    },
)


new_facts = st.fixed_dictionaries(
    {"id": st.sampled_from(["g", "h", "b2"])}, optional={"text": st.text(max_size=10)}
)
sound_changes = st.fixed_dictionaries(
    {},
    optional={
        "retract": st.lists(st.sampled_from(["f", "b", "a"]), max_size=2, unique=True),
        "assert": st.lists(new_facts, max_size=2, unique_by=lambda s: s["id"]),
        "supersede": st.fixed_dictionaries({"id": st.just("f"), "with": new_facts}),
    },
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(changes, sound_changes))
def test_a_loaded_change_through_the_public_api(tmp_path: Path, change: dict[str, Any]) -> None:
    path = tmp_path / "change.yaml"
    path.write_text(yaml.safe_dump(change, allow_unicode=True), encoding="utf-8")
    loaded = load_change(path)
    mem = Memory()
    mem.fact("f", "it rains")
    mem.belief("b", "take an umbrella", because=["f"])
    mem.action("a", "buy one", because=["b"], status="pending")
    try:
        mem.revise(loaded)
    except StategraphError as exc:
        event(f"refused: {type(exc).__name__}")
        assert mem.verify_log() == 3
    else:
        event("revised")
        assert mem.verify_log() == 4


MALFORMED_ATOMS = {
    "0": "is a number",
    '"x"': "is a string",
    "(a,b)": "is a tuple",
    "\x80": "does not parse",
    "p(上海)": "does not parse",
    "p(X)": "does not parse",
    "p(a) :- q(a)": "does not parse",
    "#inf": "is #inf",
}


@pytest.mark.parametrize("rules", [None, ["relocation"]], ids=["no packs", "packs"])
@pytest.mark.parametrize("atom", sorted(MALFORMED_ATOMS))
def test_a_state_with_a_malformed_atom_is_refused_cleanly(
    atom: str, rules: list[str] | None
) -> None:
    """A malformed atom is refused where it enters, with or without rule packs, naming the
    atom, and nothing is written. (Before, without packs, all of them were stored; with
    packs, an atom such as ``0`` reached the term index.)"""
    mem = Memory(rules=rules, candidates=None) if rules else Memory()
    mem.fact("f", "a fact")
    writes = {
        "add": lambda: mem.belief("b", "x", atoms=[atom]),
        "assert": lambda: mem.revise({"assert": [{"id": "b", "kind": "fact", "atoms": [atom]}]}),
        "supersede": lambda: mem.supersede("f", {"id": "g", "atoms": ["lives_in(u,x)", atom]}),
        "bulk load": lambda: mem.bulk_load([{"id": "b", "kind": "fact", "atoms": [atom]}], []),
    }
    for what, write in writes.items():
        with pytest.raises(InvalidInputError) as err:
            write()
        message = str(err.value)
        assert "atoms" in message and repr(atom) in message, (what, message)
        assert MALFORMED_ATOMS[atom] in message, (what, message)
    assert {s.id for s in mem.states()} == {"f"} and mem.is_active("f")
    assert mem.verify_log() == 1
