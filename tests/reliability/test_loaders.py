"""The safe loaders refuse hostile files quickly, with an error naming the file, line and limit.

Every file here is a real file on disk read through :mod:`stategraph.loaders`, the way
``revise --change``, ``stategraph import`` and ``stategraph bench`` read theirs.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest
import yaml

from stategraph.bench.cases import CaseError, load_case
from stategraph.errors import (
    DuplicateKeyError,
    InputFileError,
    InputLimitError,
    InputSyntaxError,
    InvalidInputError,
    UnreadableInputError,
)
from stategraph.loaders import (
    CASE,
    CHANGE,
    IMPORT,
    Limits,
    import_records,
    load_case_data,
    load_change,
    parse_json,
    parse_yaml,
    read_jsonl,
)


def billion_laughs(levels: int = 10, width: int = 9, tail: str = "") -> str:
    """The classic alias bomb: ``width ** levels`` values from a few hundred bytes."""
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n" + tail


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


# ---- the alias bomb ------------------------------------------------------------------------


@pytest.mark.parametrize("tail", ["", "retract: *a9\n"])
def test_alias_bomb_in_a_change_file_is_refused_at_the_first_alias(
    tmp_path: Path, tail: str
) -> None:
    path = write(tmp_path, "bomb.yaml", billion_laughs(tail=tail))
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(InputLimitError) as info:
        load_change(path)
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    err = info.value
    assert (err.limit, err.value, err.line, err.path) == ("max_aliases", 0, 2, str(path))
    assert "bomb.yaml:2:" in str(err) and "max_aliases=0" in str(err)
    assert elapsed < 0.5, elapsed
    assert peak < 5_000_000, peak  # unguarded, the expansion reached 5.9 GB (issue 14)


def test_alias_bomb_in_a_case_file_is_capped_by_expanded_size(tmp_path: Path) -> None:
    path = write(tmp_path, "bomb.yaml", billion_laughs(tail="memories: *a9\n"))
    started = time.perf_counter()
    with pytest.raises(InputLimitError) as info:
        load_case_data(path)
    assert time.perf_counter() - started < 0.5
    assert info.value.limit == "max_nodes" and info.value.value == CASE.max_nodes
    assert info.value.line is not None and info.value.line <= 10
    # and through the case loader, the same fault as a CaseError naming the file
    with pytest.raises(CaseError, match=r"bomb\.yaml.*max_nodes"):
        load_case(path)


def test_a_few_aliases_are_fine_in_a_case_file(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "x: &a [m1, m2]\ny: *a\nz: [*a, *a]\n")
    assert load_case_data(path) == {"x": ["m1", "m2"], "y": ["m1", "m2"], "z": [["m1", "m2"]] * 2}


def test_aliases_count_toward_depth(tmp_path: Path) -> None:
    nest = "[" * 40 + "x" + "]" * 40
    text = f"a: &deep {nest}\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[*deep]]]]]]]]]]]]]]]]]]]]]]]]]\n"
    with pytest.raises(InputLimitError) as info:
        load_case_data(write(tmp_path, "c.yaml", text))
    assert (info.value.limit, info.value.line) == ("max_depth", 2)


# ---- nesting -------------------------------------------------------------------------------


def test_a_change_nested_2000_levels_is_refused_without_recursion(tmp_path: Path) -> None:
    flow = write(tmp_path, "flow.yaml", "retract: " + "[" * 2000 + "]" * 2000 + "\n")
    block = write(tmp_path, "block.yaml", "".join(f"{'  ' * i}k{i}:\n" for i in range(2000)))
    as_json = write(tmp_path, "deep.json", '{"retract": ' + "[" * 2000 + "]" * 2000 + "}")
    for path, line in ((flow, 1), (block, 65), (as_json, 1)):
        with pytest.raises(InputLimitError) as info:
            load_change(path)
        assert (info.value.limit, info.value.value) == ("max_depth", 64), path
        assert info.value.line == line, (path, str(info.value))


def test_an_import_line_nested_5000_levels_is_refused_with_its_line(tmp_path: Path) -> None:
    deep = '{"id": "x", "metadata": ' + "[" * 5000 + "]" * 5000 + "}"
    lines = [json.dumps({"id": "a", "kind": "fact"}), "", deep]
    path = write(tmp_path, "in.jsonl", "\n".join(lines) + "\n")
    with pytest.raises(InputLimitError) as info:
        list(read_jsonl(path))
    assert (info.value.limit, info.value.line) == ("max_depth", 3)
    assert f"{path}:3:" in str(info.value)


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = json.dumps({"text": "[" * 500 + "{" * 500 + '\\"]'})
    assert parse_json(text, "t.json", IMPORT) == json.loads(text)


def test_the_depth_limit_is_exact() -> None:
    limits = Limits(max_bytes=1000, max_depth=3)
    assert parse_yaml("a: [[x]]", "t.yaml", limits) == {"a": [["x"]]}
    assert parse_json('{"a": [["x"]]}', "t.json", limits) == {"a": [["x"]]}
    with pytest.raises(InputLimitError):
        parse_yaml("a: [[[x]]]", "t.yaml", limits)
    with pytest.raises(InputLimitError):
        parse_json('{"a": [[["x"]]]}', "t.json", limits)


# ---- duplicate keys, syntax ----------------------------------------------------------------


def test_duplicate_yaml_keys_name_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "retract: [a]\nassert: []\nretract: [b]\n")
    with pytest.raises(DuplicateKeyError) as info:
        load_change(path)
    assert (info.value.key, info.value.line, info.value.first_line) == ("retract", 3, 1)


def test_duplicate_keys_in_nested_and_flow_mappings() -> None:
    with pytest.raises(DuplicateKeyError, match="'id'"):
        parse_yaml("assert:\n  - {id: a, id: b}\n", "c.yaml", CHANGE)
    # distinct keys that print alike are not duplicates: 1 (an int) and '1' (a string)
    assert parse_yaml("1: a\n'1': b\n", "c.yaml", CHANGE) == {1: "a", "1": "b"}


def test_duplicate_json_keys_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "in.jsonl", '{"id": "a"}\n{"id": "b", "kind": "fact", "id": "c"}\n')
    with pytest.raises(DuplicateKeyError) as info:
        list(read_jsonl(path))
    assert (info.value.key, info.value.line) == ("id", 2)
    with pytest.raises(DuplicateKeyError):
        load_change(write(tmp_path, "c.json", '{"retract": ["a"],\n "retract": ["b"]}'))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a: 1\n---\nb: 2\n", "more than one YAML document"),
        ("? [a]\n: 1\n", "mapping key must be a plain value"),
        ("<<: {retract: [a]}\n", "merge keys"),
        ("retract: !!python/object/apply:os.system [echo hi]\n", "python/object"),
        ("retract: [a\n", "not valid YAML"),
        ("retract: *nowhere\n", "aliases"),  # refused as an alias before it is resolved
    ],
)
def test_yaml_constructs_that_are_refused(text: str, words: str) -> None:
    with pytest.raises(InputFileError, match=words):
        parse_yaml(text, "c.yaml", CHANGE)


def test_a_dangling_alias_is_a_syntax_error_where_aliases_are_allowed() -> None:
    with pytest.raises(InputSyntaxError, match=r"\*nowhere names no earlier anchor") as info:
        parse_yaml("x: 1\ny: *nowhere\n", "c.yaml", CASE)
    assert info.value.line == 2


def test_nan_is_not_json() -> None:
    with pytest.raises(InputSyntaxError, match="NaN"):
        parse_json('{"x": NaN}', "t.json", IMPORT)


def test_a_change_must_be_one_mapping(tmp_path: Path) -> None:
    with pytest.raises(InputSyntaxError, match="not a list"):
        load_change(write(tmp_path, "c.yaml", "- retract: [a]\n"))
    assert load_change(write(tmp_path, "empty.yaml", "# nothing\n")) == {}


# ---- unreadable files, sizes, counts -------------------------------------------------------


def test_missing_file_folder_and_bad_utf8(tmp_path: Path) -> None:
    with pytest.raises(UnreadableInputError, match="no such file"):
        load_change(tmp_path / "missing.yaml")
    with pytest.raises(UnreadableInputError, match="is a folder"):
        load_change(tmp_path)
    path = write(tmp_path, "c.yaml", b"retract:\n  - a\n  - \xff\xfe\n")
    with pytest.raises(UnreadableInputError, match="not UTF-8") as info:
        load_change(path)
    assert info.value.line == 3
    jsonl = write(tmp_path, "in.jsonl", b'{"id": "a"}\n{"id": "\xc3"}\n')
    with pytest.raises(UnreadableInputError) as info:
        list(read_jsonl(jsonl))
    assert info.value.line == 2
    with pytest.raises(UnreadableInputError, match="is a folder"):
        list(read_jsonl(tmp_path))


def test_a_file_over_max_bytes_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = write(tmp_path, "big.yaml", "retract: [" + "a, " * 400 + "a]\n")
    with pytest.raises(InputLimitError) as info:
        load_change(path, Limits(max_bytes=1000))
    assert info.value.limit == "max_bytes"
    assert load_change(path, Limits(max_bytes=2000))["retract"][0] == "a"


def test_an_endless_import_line_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "in.jsonl", '{"id": "a"}\n{"text": "' + "x" * 3_000_000)
    started = time.perf_counter()
    with pytest.raises(InputLimitError) as info:
        list(read_jsonl(path))
    assert (info.value.limit, info.value.line) == ("max_bytes", 2)
    assert time.perf_counter() - started < 1


def test_the_number_of_states_is_capped(tmp_path: Path) -> None:
    limits = Limits(max_bytes=1 << 20, max_states=3)
    change = write(tmp_path, "c.yaml", "retract: [a, b]\nassert: [{id: c}, {id: d}]\n")
    with pytest.raises(InputLimitError, match="4 states") as info:
        load_change(change, limits)
    assert info.value.limit == "max_states"
    lines = [json.dumps({"id": f"s{i}"}) for i in range(5)] + [json.dumps({"head": "s1"})]
    source = write(tmp_path, "in.jsonl", "\n".join(lines))
    assert len(list(import_records(source, justifications=True, limits=limits))) == 1
    with pytest.raises(InputLimitError) as info:
        list(import_records(source, justifications=False, limits=limits))
    assert info.value.line == 4


def test_an_import_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, "in.jsonl", '{"id": "a"}\n[1, 2]\n')
    with pytest.raises(InvalidInputError, match=r"in\.jsonl:2: expected a JSON object"):
        list(import_records(path, justifications=False))


# ---- ordinary files load as before ---------------------------------------------------------


def test_ordinary_documents_load_as_safe_load_reads_them() -> None:
    text = (
        "retract: [a, b]\n"
        "assert:\n"
        "  - {id: c, kind: fact, text: 'it rains: 100%', metadata: {n: 3, x: 1.5, ok: true}}\n"
        "  - id: d\n"
        "    text: |\n"
        "      two\n"
        "      lines\n"
        "when: 2026-12-01\n"
        "none: ~\n"
    )
    assert parse_yaml(text, "c.yaml", CHANGE) == yaml.safe_load(text)


def test_every_shipped_case_loads_under_the_case_limits() -> None:
    from stategraph.bench.cases import shipped_cases_dir

    files = [f for f in shipped_cases_dir().iterdir() if f.name.endswith((".yaml", ".json"))]
    assert len(files) >= 100
    for f in files:
        text = f.read_text(encoding="utf-8")
        expected = json.loads(text) if f.name.endswith(".json") else yaml.safe_load(text)
        assert load_case_data(f) == expected, f.name
