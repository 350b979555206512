"""Recall's arguments from a hostile caller get a clean error, never a crash (issue 42, finding
9): a lone surrogate in a query or in ``kinds`` (a ``UnicodeEncodeError`` from deep inside),
a kind that is no text, and a LangGraph filter comparing a stored ``10**400`` (``float()``
overflowed). On both backends, through the Python API and the LangGraph store."""

from __future__ import annotations

from typing import Any

import pytest
from backends import Place

from stategraph.errors import InvalidInputError

pytest.importorskip("langgraph", reason="needs LangGraph: pip install 'stategraph[langgraph]'")

from stategraph.integrations.langgraph import StategraphStore

U1 = ("memories", "u1")

BAD: list[tuple[str, dict[str, Any], str]] = [
    ("green tea\udc00", {}, "query"),
    ("\ud800", {}, "query"),
    ("green tea", {"kinds": ["fa\udc00ct"]}, "kinds"),
    ("green tea", {"kinds": "\udfff"}, "kinds"),
    ("green tea", {"kinds": [7]}, "kinds"),
    ("green tea", {"kinds": 7}, "kinds"),
]


@pytest.mark.parametrize(("query", "more", "named"), BAD)
def test_a_hostile_recall_argument_is_refused_by_name(
    place: Place, query: str, more: dict[str, Any], named: str
) -> None:
    with place.memory() as mem:
        mem.fact("f1", "The user likes green tea")
        with pytest.raises(InvalidInputError) as err:
            mem.recall(query, **more)
        assert [where for where, _ in err.value.errors] == [named]
        assert [r.id for r in mem.recall("green tea", kinds=["fact"])] == ["f1"]


def test_a_lone_surrogate_in_a_langgraph_search_is_refused(place: Place) -> None:
    with place.memory() as mem, StategraphStore(mem) as store:
        store.put(U1, "tea", {"text": "The user likes green tea"})
        with pytest.raises(InvalidInputError, match="lone surrogate"):
            store.search(U1, query="tea\udc00")
        with pytest.raises(InvalidInputError, match="lone surrogate"):
            store.search(U1, query="tea", filter={"kind": "fa\udc00ct"})


def test_a_langgraph_filter_compares_huge_numbers_exactly(place: Place) -> None:
    """Before: ``OverflowError: int too large to convert to float``."""
    with place.memory() as mem, StategraphStore(mem) as store:
        store.put(U1, "big", {"text": "a large count", "n": 10**400})
        store.put(U1, "small", {"text": "a small count", "n": 2})
        store.put(U1, "text", {"text": "a count written out", "n": "1e999"})
        found = store.search(U1, filter={"n": {"$gt": 10**399}})
        assert sorted(i.key for i in found) == ["big", "text"]  # "1e999" reads as infinity
        assert [i.key for i in store.search(U1, filter={"n": {"$lt": 3.5}})] == ["small"]
        assert store.search(U1, filter={"n": {"$gt": float("inf")}}) == []
