"""Recall across languages, from what grounding's lexicons know: a query also looks for the other
names of the things it names ("dog" for 狗), and with the built-in grounder it reads what the
query names without building a spaCy pipeline (:mod:`stategraph.grounding.named`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.grounding.named import forms, named
from stategraph.recall import query_tokens
from stategraph.text.fulltext import matched, name_tokens

DOUDOU = [
    ("d1", "豆豆是我们家的狗，三岁了"),
    ("d2", "豆豆不能吃巧克力"),  # names 豆豆, not what it is: "dog" does not find it
    ("f1", "用户偏好粤菜"),
    ("e1", "The user takes the train to work"),
]


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "m.db", rules="all", grounder="stategraph.rule_grounder.v1")
    for sid, text in DOUDOU:
        m.fact(sid, text)
    return m


def test_an_english_query_finds_what_chinese_memories_name(mem: Memory) -> None:
    """Before: recall("dog") found nothing; the lexicon's ``pet`` names dog and 狗 alike."""
    assert [r.id for r in mem.recall("dog")] == ["d1"]
    assert mem.recall("my dog")[0].id == "d1"
    assert not {"我", "用户", "we"} & set(query_tokens(mem, "my dog"))  # the speaker: no widening
    (found,) = [r for r in mem.recall("dog") if r.id == "d1"]
    assert found.reason.startswith("matched 狗")


def test_a_chinese_query_finds_what_english_memories_name(tmp_path: Path) -> None:
    m = Memory(tmp_path / "en.db", grounder="stategraph.rule_grounder.v1")
    m.fact("e1", "Walk the dog at seven")
    m.fact("e2", "The user likes green tea")
    assert [r.id for r in m.recall("狗")] == ["e1"]


def test_named_reads_constants_and_values_without_a_pipeline() -> None:
    assert named("用户计划 2026-12 从上海搬到深圳").constants == ("user", "shanghai", "shenzhen")
    assert named("用户计划 2026-12 从上海搬到深圳").values == ("2026-12",)
    assert named("home internet and wi-fi").constants == ("broadband",)  # the longest form
    assert named("a catalogue").constants == ()  # no "cat" inside a longer word
    assert named("Shenzhen的房子").constants == ("shenzhen",)
    assert "狗" in forms("pet") and "dog" in forms("pet") and forms("no_such_thing") == ()


def test_names_are_one_word_each_and_matched_needs_no_segmenting() -> None:
    assert name_tokens(["狗狗", "home internet", "Wi-Fi"]) == [
        "狗狗",
        "home",
        "internet",
        "wi",
        "fi",
    ]
    assert matched(
        ["宽带", "broadband", "tea"], "已排待办：搬家前退宽带", ["cancel(broadband)"]
    ) == [
        "宽带",
        "broadband",
    ]
