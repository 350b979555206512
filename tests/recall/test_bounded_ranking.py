"""The bounded ranking (the engine's top-N, statuses looked up for those only, deepening) returns
what ranking every match does: the same top-k ids in the same order, on random stores where
many matches do not hold, on each backend."""

from __future__ import annotations

import random

import pytest
from backends import Place

from stategraph import Memory
from stategraph.recall import query_tokens
from stategraph.text import fulltext

WORDS = ["tea", "green", "user", "move", "broadband", "宽带", "搬家", "用户", "深圳", "bike"]


def random_store(mem: Memory, rng: random.Random, n: int) -> None:
    """``n`` memories over a small vocabulary (so scores tie often), a third of the derived
    ones resting on facts that are then retracted, some in doubt."""
    facts = []
    for i in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        if i % 3 == 0 or not facts:
            mem.fact(f"f{i:03d}", text)
            facts.append(f"f{i:03d}")
        else:
            mem.belief(f"b{i:03d}", text, because=[rng.choice(facts)])
    gone = rng.sample(facts, len(facts) // 3)
    mem.retract(*gone)


@pytest.mark.parametrize("seed", range(4))
def test_bounded_equals_exhaustive_on_random_stores(place: Place, seed: int) -> None:
    rng = random.Random(seed)
    mem = place.memory()
    random_store(mem, rng, 90)
    fulltext.backfill(mem.store)
    for _ in range(25):
        query = rng.sample(WORDS, rng.randint(1, 3))
        k = rng.choice([1, 2, 5, 10, 40])
        options = {
            "kinds": rng.choice([None, ["fact"], ["belief", "fact"]]),
            "doubtful": rng.random() < 0.5,
            "invalidated": rng.random() < 0.3,
        }
        toks = fulltext.tokens(" ".join(query))
        bounded = fulltext.search(mem.store, toks, k, **options)  # type: ignore[arg-type]
        exhaustive = fulltext.search_exhaustive(mem.store, toks, k, **options)  # type: ignore[arg-type]
        assert [i for i, _ in bounded] == [i for i, _ in exhaustive], (query, k, options)
        assert [s for _, s in bounded] == pytest.approx([s for _, s in exhaustive])


def test_deepening_finds_the_few_that_hold_behind_many_that_do_not(place: Place) -> None:
    # the best matches for "broadband" are short memories that no longer hold: the first
    # depth the engine is asked for holds none of those that do, and the search must go deeper
    mem = place.memory()
    mem.fact("base", "the user lives here")
    for i in range(fulltext.FIRST_DEPTH * 3):
        mem.belief(f"gone{i:03d}", "broadband", because=["base"])
    mem.fact("keep1", "broadband is slow at home and the router is old and the user waits")
    mem.fact("keep2", "broadband bills arrive monthly and the user pays them by transfer")
    mem.retract("base")
    toks = query_tokens(mem, "broadband")  # with "internet", "home", 宽带...: its other names
    hits = fulltext.search(mem.store, toks, 2, kinds=None, doubtful=True, invalidated=False)
    assert sorted(i for i, _ in hits) == ["keep1", "keep2"]
    assert [r.id for r in mem.recall("broadband", k=2)] == [i for i, _ in hits]
