"""Ids are strings, on every surface: anything else is refused, never turned into one.

``str(...)`` of a number, a boolean or None names another state: YAML 1.1 reads ``012`` as
10, ``no`` as False, ``12:30`` as 750, ``0x10`` as 16 and ``1_000`` as 1000, and JSON
``null`` became the id ``"None"``; a bare string given where a list of ids belongs was read as
its letters. Here each way in is shown to refuse what is not an id (``InvalidInputError``,
naming the field, nothing written), and YAML files to keep an unquoted id as it is written.
The HTTP API and the MCP server are in ``tests/service/test_strict_bodies.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stategraph import Memory
from stategraph.bench.cases import load_case
from stategraph.cli.main import EXIT_INPUT, main
from stategraph.errors import InvalidInputError

NOT_IDS = [12, 10.5, True, None, {"a": 1}, b"f"]
"""A number, a float, a boolean, null, a mapping and bytes: none of them an id."""

YAML_TRAPS = {"012": "10", "no": "False", "12:30": "750", "0x10": "16", "1_000": "1000"}
"""An unquoted id in a YAML file, and the id ``str()`` of what YAML 1.1 reads made of it."""


def seeded() -> Memory:
    mem = Memory(candidates=None)
    mem.fact("f")
    for name in ("12", "10.5", "True", "None", "{'a': 1}", "b'f'"):  # what str() would name
        mem.fact(name)
    mem.belief("b", because=["f"])
    return mem


def written(mem: Memory) -> tuple[Any, ...]:
    return (mem.states(), mem.justifications(), len(mem.history()), sorted(mem.holding()))


def _attempts(mem: Memory, bad: Any) -> dict[str, Callable[[], Any]]:
    """Every way an id enters the Python API, each given ``bad`` where the id belongs."""
    j = {"head": "b", "premises": ["f"]}
    return {
        "retract": lambda: mem.revise({"retract": [bad]}),
        "retract, one": lambda: mem.revise({"retract": bad}),
        "Memory.retract": lambda: mem.retract(bad),
        "assert": lambda: mem.revise({"assert": [{"id": bad}]}),
        "supersede": lambda: mem.revise({"supersede": {"id": bad, "with": {"id": "g"}}}),
        "supersede with": lambda: mem.supersede("f", {"id": bad}),
        "head": lambda: mem.revise({"add_justifications": [{**j, "head": bad}]}),
        "premises": lambda: mem.revise({"add_justifications": [{**j, "premises": ["f", bad]}]}),
        "unless": lambda: mem.revise({"add_justifications": [{**j, "unless": [bad]}]}),
        "remove": lambda: mem.revise({"remove_justifications": [{**j, "premises": [bad]}]}),
        "because": lambda: mem.belief("c", because=[bad]),
        "because, all": lambda: mem.belief("c", because=[["f", bad]]),
        "because, mapping": lambda: mem.belief("c", because=[{"all": [bad]}]),
        "Memory.add unless": lambda: mem.belief("c", because=["f"], unless=[bad]),
        "context": lambda: mem.belief("c", context=[bad]),
        "fact context": lambda: mem.fact("g", context=[bad]),
        "bulk state": lambda: mem.bulk_load([{"id": bad}]),
        "bulk premise": lambda: mem.bulk_load(
            [{"id": "c", "kind": "belief"}], [{"head": "c", "premises": [bad]}]
        ),
        "truth": lambda: mem.truth(bad),
        "why": lambda: mem.why(bad),
        "why_not": lambda: mem.why_not(bad),
        "confirm": lambda: mem.confirm(bad, by="ana"),
    }


@pytest.mark.parametrize("bad", NOT_IDS, ids=repr)
def test_the_python_api_refuses_what_is_not_an_id(bad: Any) -> None:
    """Before: ``retract: [12]`` retracted the state ``"12"``, ``premises: [None]`` cited
    ``"None"``, bytes were decoded into an id, and ``because=[12]`` ended in a ``TypeError``."""
    mem = seeded()
    before = written(mem)
    for name, attempt in _attempts(mem, bad).items():
        with pytest.raises(InvalidInputError):
            attempt()
        assert written(mem) == before, name


def test_the_refusal_names_the_field_and_the_value() -> None:
    mem = seeded()
    with pytest.raises(InvalidInputError) as info:
        mem.revise({"add_justifications": [{"head": "b", "premises": ["f", None]}]})
    assert info.value.errors == [
        (
            "add_justifications.0.premises",
            "an id is a string, not NoneType None: write it in quotes",
        )
    ]
    with pytest.raises(InvalidInputError) as info:
        mem.belief("c", because=["f", 12])
    assert info.value.errors == [
        (
            "because.1",
            "an alternative is an id, a list of ids, or {'all': [...], 'unless': [...]}, not "
            "int 12",
        )
    ]


def test_a_bare_string_is_one_id_not_its_letters() -> None:
    """Before: ``because="m1"`` meant "m, or else 1", ``context="m1"`` the candidates m and
    1, and ``{"all": "m1"}`` the premises m and 1."""
    mem = Memory(candidates=None)
    mem.fact("m1")
    mem.belief("a", because="m1")
    mem.belief("b", because={"all": "m1", "unless": "x"})
    mem.plan("c", context="m1")
    mem.belief("d", because=["m1"], unless="x")
    assert [(j.premises, j.unless) for j in mem.justifications("a")] == [(("m1",), ())]
    assert [(j.premises, j.unless) for j in mem.justifications("b")] == [(("m1",), ("x",))]
    assert [j.premises for j in mem.justifications("c")] == [("m1",)]
    assert [j.unless for j in mem.justifications("d")] == [("x",)]
    assert mem.retract("m1").invalidated == ["a", "b", "d"]


def _store_with_traps(path: Path) -> None:
    with Memory(path, candidates=None) as mem:
        for written_as, read_as in YAML_TRAPS.items():
            mem.fact(written_as)
            mem.fact(read_as)
        mem.fact("f")


def test_a_yaml_change_file_keeps_unquoted_ids_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The issue's file: before, it retracted 10, False, 750, 16 and 1000 and left the states
    it names standing."""
    store, change = tmp_path / "m.db", tmp_path / "change.yaml"
    _store_with_traps(store)
    change.write_text(
        "retract: [012, no, 12:30, 0x10, 1_000]\n"
        "assert:\n  - {id: 007, kind: belief}\n"
        "add_justifications:\n  - {head: 007, premises: [f], unless: [yes]}\n",
        encoding="utf-8",
    )
    assert main(["revise", str(store), "--change", str(change), "--json"]) == 0, capsys
    report = json.loads(capsys.readouterr().out)
    assert sorted(c["id"] for c in report["changed"] if c["action"] == "retracted") == sorted(
        YAML_TRAPS
    )
    with Memory(store) as mem:
        assert not any(mem.is_active(name) for name in YAML_TRAPS)
        assert all(mem.is_active(name) for name in YAML_TRAPS.values())
        assert [(j.premises, j.unless) for j in mem.justifications("007")] == [(("f",), ("yes",))]


def test_a_yaml_number_tagged_as_one_is_not_an_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A tag says "this is a number": that is refused, naming the field, and nothing is
    written."""
    store, change = tmp_path / "m.db", tmp_path / "change.yaml"
    _store_with_traps(store)
    change.write_text("retract: [!!int 012]\n", encoding="utf-8")
    assert main(["revise", str(store), "--change", str(change)]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "retract" in err and "not int 10" in err
    with Memory(store) as mem:
        assert mem.is_active("10") and len(mem.history()) == 2 * len(YAML_TRAPS) + 1


@pytest.mark.parametrize("bad", [10, None, False, {"a": 1}], ids=repr)
def test_a_json_change_file_with_an_id_that_is_not_a_string_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: Any
) -> None:
    store, change = tmp_path / "m.db", tmp_path / "change.json"
    _store_with_traps(store)
    change.write_text(json.dumps({"retract": [bad]}), encoding="utf-8")
    assert main(["revise", str(store), "--change", str(change)]) == EXIT_INPUT
    assert "retract: an id is a string" in capsys.readouterr().err
    with Memory(store) as mem:
        assert len(mem.history()) == 2 * len(YAML_TRAPS) + 1
        assert all(mem.is_active(s.id) for s in mem.states())


@pytest.mark.parametrize(
    "line",
    [
        {"head": "b", "premises": [1]},
        {"head": "b", "premises": ["f"], "unless": [None]},
        {"head": "b", "premises": "f", "unless": [False]},
    ],
    ids=["premise 1", "unless null", "unless false"],
)
def test_an_import_line_with_an_id_that_is_not_a_string_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: dict[str, Any]
) -> None:
    store, source = tmp_path / "m.db", tmp_path / "in.jsonl"
    rows = [{"id": "f", "kind": "fact"}, {"id": "1", "kind": "fact"}, {"id": "b", "kind": "belief"}]
    source.write_text("".join(json.dumps(r) + "\n" for r in [*rows, line]), encoding="utf-8")
    assert main(["import", str(store), str(source)]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert f"{source}:4" in err and "an id is a string" in err
    with Memory(store) as mem:
        assert mem.states() == [] and mem.history() == []


@pytest.mark.parametrize(
    "basis",
    [{"because": [[1]]}, {"because": "f1"}, {"context": [None]}, {"unless": [True]}],
    ids=["because 1", "because a string", "context null", "unless true"],
)
def test_an_imported_memory_with_an_id_that_is_not_a_string_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, basis: dict[str, Any]
) -> None:
    """``import --memories`` reads ``because``, ``unless`` and ``context`` as ``add`` does. A
    bare string is one id: "f1" is a valid basis (before, the alternatives "f" or "1")."""
    store, source = tmp_path / "m.db", tmp_path / "in.jsonl"
    rows = [{"id": name, "kind": "fact"} for name in ("f1", "1", "None", "True")]
    rows.append({"id": "b", "kind": "belief", **basis})
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code = main(["import", str(store), str(source), "--memories"])
    err = capsys.readouterr().err
    if basis == {"because": "f1"}:
        assert code == 0, err
        with Memory(store) as mem:
            assert [j.premises for j in mem.justifications("b")] == [("f1",)]
        return
    assert code == EXIT_INPUT and f"{source}:5" in err, err
    with Memory(store) as mem:
        assert mem.states() == [] and mem.history() == []


def test_a_case_file_keeps_unquoted_ids_as_written(tmp_path: Path) -> None:
    """Before, ``012`` was the number 10 and the case was refused ("not a valid string")."""
    case = tmp_path / "numbers-en-01.yaml"
    case.write_text(
        "id: numbers-en-01\nlang: en\ntrack: declared\n"
        "memories:\n"
        "  - {id: 012, kind: fact, text: a}\n"
        "  - {id: 1_000, kind: belief, text: b, because: [[012]]}\n"
        "  - {id: 0x10, kind: belief, text: c, because: [{all: [012], unless: [no]}]}\n"
        "  - {id: no, kind: fact, text: d}\n"
        "change: {retract: [012]}\n"
        "expect: {invalidated: [1_000, 0x10], kept: [no], depth: {1_000: 1, 0x10: 1}}\n",
        encoding="utf-8",
    )
    loaded = load_case(case)
    assert [m.id for m in loaded.memories] == ["012", "1_000", "0x10", "no"]
    assert loaded.change.retract == ("012",)
    assert loaded.expect.invalidated == ("1_000", "0x10")
    assert loaded.memories[2].because[0].unless == ("no",)
