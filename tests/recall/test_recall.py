"""Memory.recall: full-text ranking, status filtering, ask_first, bad input and tenants, on
each store backend (a SQLite file and a PostgreSQL tenant)."""

from __future__ import annotations

from pathlib import Path

import pytest
from backends import Place

from stategraph import Memory
from stategraph.cli import demo
from stategraph.errors import InvalidInputError
from stategraph.recall import MAX_QUERY_CHARS
from stategraph.text.fulltext import QUERY_HAN, query_words, tokens


def test_tokens_segment_chinese_and_lowercase_english_and_add_atom_arguments() -> None:
    assert tokens("The User MOVES") == ["the", "user", "moves"]
    zh = tokens("已排待办：搬家前退宽带")
    assert "宽带" in zh and "搬家" in zh
    assert set(tokens("深圳", ['moves(user, "shanghai", "shenzhen")'])) >= {"shanghai", "shenzhen"}
    assert all(t.isalnum() for t in tokens('"OR NEAR(* a:b -x'))


def test_a_query_looks_for_every_short_part_of_a_chinese_run() -> None:
    """The words jieba makes of a query's runs (short ones, as here) are among its parts, so
    a Chinese query finds what it found when jieba segmented it, and loads no dictionary."""
    for query in ("搬家前退宽带", "我们家的狗豆豆", "下周三去杭州出差", "上海 rent 5号"):
        assert set(tokens(query)) <= set(query_words(query))
    assert query_words("狗") == ["狗"] and "dog" in query_words("狗 Dog")
    assert query_words("搬" * (QUERY_HAN + 1)) == tokens("搬" * (QUERY_HAN + 1))


def seed(place: Place) -> Memory:
    mem = place.memory()
    t = demo.SCENARIO["zh"]
    mem.fact("m1", t["m1"])
    mem.belief("m2", t["m2"], because=["m1"])
    mem.action("m3", t["m3"], because=["m1"], status="pending")
    mem.fact("m4", t["m4"])
    return mem


def test_the_seed_scenario_after_the_move_is_called_off(place: Place) -> None:
    mem = seed(place)
    assert [(r.id, r.status) for r in mem.recall("宽带")] == [("m3", "holds")]
    mem.supersede("m1", {"id": "m1b", "text": demo.SCENARIO["zh"]["m1b"]})
    assert mem.recall("宽带") == []
    gone = mem.recall("宽带", include_invalidated=True)
    assert [(r.id, r.status) for r in gone] == [("m3", "invalidated")]
    assert gone[0].why_not is not None and gone[0].why_not.id == "m3"
    assert [(r.id, r.status) for r in mem.recall("粤菜")] == [("m4", "holds")]


def test_ranking_puts_the_better_match_first_and_k_bounds_it(place: Place) -> None:
    mem = place.memory()
    mem.fact("a", "the user likes green tea")
    mem.fact("b", "green tea and green apples and green walls")
    mem.fact("c", "the user owns a bicycle")
    got = mem.recall("green")
    assert [r.id for r in got] == ["b", "a"] and got[0].score > got[1].score
    assert [r.id for r in mem.recall("green", k=1)] == ["b"]
    assert [r.id for r in mem.recall("green bicycle", kinds=["fact"])][-1] in {"a", "c"}
    assert mem.recall("green", kinds=["plan"]) == []


def test_fts_syntax_is_data(place: Place) -> None:
    mem = place.memory()
    mem.fact("a", 'he typed "OR NEAR(* into the box')
    assert [r.id for r in mem.recall('"OR NEAR(*')] == ["a"]
    assert mem.recall("AND") == []
    assert mem.recall("*") == []  # no words: nothing matches, and nothing raises


def test_a_word_longer_than_any_index_takes_is_left_out_not_fatal(place: Place) -> None:
    # PostgreSQL refuses a lexeme over 2,046 bytes: the write must not fail on one.
    mem = place.memory()
    mem.fact("a", "x" * 300_000 + " broadband")
    assert [r.id for r in mem.recall("broadband")] == ["a"]
    assert mem.recall("x" * 300) == []


@pytest.mark.parametrize(
    ("query", "k"),
    [("", 10), ("   \n", 10), ("tea", 0), ("tea", 1001), ("x" * (MAX_QUERY_CHARS + 1), 10)],
)
def test_bad_input_is_refused(tmp_path: Path, query: str, k: int) -> None:
    mem = Memory(tmp_path / "m.db")
    with pytest.raises(InvalidInputError, match="invalid recall"):
        mem.recall(query, k=k)


def test_a_memory_in_doubt_comes_with_ask_first_naming_what_changed(place: Place) -> None:
    mem = place.memory()
    mem.fact("f2", "The user flies to Tokyo on May 10")
    mem.plan("p1", "Book a sushi dinner in Tokyo", context=["f2"])
    mem.retract("f2")
    got = mem.recall("sushi dinner")
    assert [(r.id, r.status) for r in got] == [("p1", "needs_confirmation")]
    ask = got[0].ask_first
    assert ask is not None
    assert ask.startswith('Earlier: "The user flies to Tokyo on May 10". Since then')
    assert "was withdrawn" in ask
    assert ask.endswith('Does "Book a sushi dinner in Tokyo" still hold?')
    assert mem.recall("sushi dinner", include_doubtful=False) == []
    mem.confirm("p1", by="the user")
    assert [(r.id, r.status, r.ask_first) for r in mem.recall("sushi")] == [("p1", "holds", None)]


def test_ask_first_speaks_the_memory_s_language(place: Place) -> None:
    mem = place.memory()
    mem.fact("f", "用户五月去东京")
    mem.plan("p", "预订东京的寿司晚餐", context=["f"])
    mem.retract("f")
    (got,) = mem.recall("寿司")
    assert got.status == "needs_confirmation"
    assert got.ask_first == (
        "之前：“用户五月去东京”。此后：“用户五月去东京”已撤回。“预订东京的寿司晚餐”还成立吗？"
    )


def test_an_undefined_memory_is_never_returned_without_ask_first(place: Place) -> None:
    mem = place.memory()
    mem.fact("f1", "the user travels in May")
    mem.belief("a", "the user flies", because=[{"all": ["f1"], "unless": ["b"]}])
    mem.belief("b", "the user takes the train", because=[{"all": ["f1"], "unless": ["a"]}])
    got = {r.id: r for r in mem.recall("user flies train", k=5)}
    for sid in ("a", "b"):
        assert got[sid].status in {"undefined", "needs_confirmation"}
        assert got[sid].ask_first
    assert got["f1"].status == "holds" and got["f1"].ask_first is None


def test_grounded_atoms_meet_across_languages(tmp_path: Path) -> None:
    mem = demo.build("zh", tmp_path / "m.db", text_only=True)
    assert {r.id for r in mem.recall("Shenzhen")} >= {"m1"}
    english = demo.build("en", tmp_path / "en.db", text_only=True)
    assert "m1" in {r.id for r in english.recall("深圳")}


def test_tenants_never_see_each_other(place: Place) -> None:
    mine = place.memory()
    mine.fact("a", "the secret broadband password")
    other = place.sibling("other").memory()
    other.fact("b", "broadband is slow")
    assert [r.id for r in other.recall("broadband", include_invalidated=True)] == ["b"]
    assert [r.id for r in mine.recall("broadband", include_invalidated=True)] == ["a"]


def test_a_store_written_before_the_index_is_indexed_when_first_recalled(place: Place) -> None:
    mem = place.memory()
    mem.fact("a", "green tea")
    if place.tenant is None:
        mem.store.conn.execute("DROP TABLE recall_fts")  # type: ignore[attr-defined]
    else:
        place.edit("DELETE FROM recall_docs WHERE id = ?", "a")
    mem.store.set_setting("recall_index", None)
    assert [r.id for r in mem.recall("tea")] == ["a"]


def test_bulk_load_and_import_index(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db")
    mem.bulk_load([{"id": "a", "kind": "fact", "text": "green tea"}])
    assert [r.id for r in mem.recall("tea")] == ["a"]
    from stategraph.importing import import_memories

    import_memories(mem, [("f:1", {"id": "b", "kind": "fact", "text": "black tea"})])
    assert [r.id for r in mem.recall("black tea")] == ["b", "a"]
