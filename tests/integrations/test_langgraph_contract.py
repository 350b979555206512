"""StategraphStore against what LangGraph expects of every store.

LangGraph's package ships no store conformance suite (``langgraph.store.base`` holds the
contract and its docstrings, not test helpers), so these tests hold the store to the contract
as LangGraph's documentation and its own stores' tests state it: list_namespaces' matching,
depth and paging, namespace validation on every path, and a value read back as it was put.
Where the store differs on purpose (the value comes back with ``status``, ``text`` and
``kind``), the test says so.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("langgraph", reason="needs LangGraph: pip install 'stategraph[langgraph]'")

from langgraph.store.base import InvalidNamespaceError, PutOp

from stategraph import Memory
from stategraph.errors import InvalidInputError
from stategraph.integrations.langgraph import StategraphStore

SPREAD = [
    ("a", "b", "c"),
    ("a", "b", "d", "e"),
    ("a", "b", "d", "i"),
    ("a", "b", "f"),
    ("a", "c", "f"),
    ("b", "a", "f"),
    ("users", "123"),
    ("users", "456", "settings"),
    ("admin", "users", "789"),
]

AS_PUT = {"text": "", "kind": "fact", "status": "holds"}
"""What a value carries back besides its own fields (a deviation: LangGraph's stores return
the value exactly as put)."""


@pytest.fixture
def store(tmp_path: Path) -> StategraphStore:
    return StategraphStore(Memory(tmp_path / "m.db"))


def fill(store: StategraphStore, namespaces: list[tuple[str, ...]]) -> None:
    for i, ns in enumerate(namespaces):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})


def test_list_namespaces_matches_prefixes_suffixes_and_wildcards(store: StategraphStore) -> None:
    fill(store, SPREAD)
    ab = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "b")) == ab
    f = [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert store.list_namespaces(suffix=("f",)) == f
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == f[:2]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == ab[:2]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == ab[2:]
    assert store.list_namespaces(prefix=("a", "*", "f")) == f[:2]
    assert store.list_namespaces(suffix=("*", "f")) == f
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []
    assert store.list_namespaces(prefix=("users", "*")) == [
        ("users", "123"),
        ("users", "456", "settings"),
    ]
    assert store.list_namespaces() == sorted(SPREAD)


def test_list_namespaces_pages_and_depth(store: StategraphStore) -> None:
    fill(store, [("namespace", f"sub_{i:02d}") for i in range(12)])
    fill(store, [("a", "b", "c", "d"), ("a", "g"), ("h", "i", "j", "k")])
    for offset in (0, 5, 10):
        assert store.list_namespaces(prefix=("namespace",), limit=5, offset=offset) == [
            ("namespace", f"sub_{i:02d}") for i in range(offset, min(offset + 5, 12))
        ]
    assert store.list_namespaces(max_depth=2) == [
        ("a", "b"),
        ("a", "g"),
        ("h", "i"),
        ("namespace", "sub_00"),
        *[("namespace", f"sub_{i:02d}") for i in range(1, 12)],
    ]


def test_an_empty_store_lists_nothing(store: StategraphStore) -> None:
    assert store.list_namespaces() == []
    assert store.search(("a",)) == []


def test_namespaces_are_validated_on_every_path(store: StategraphStore) -> None:
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            asyncio.run(store.aput(bad, "foo", doc))
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp((), "foo", doc)])
    with pytest.raises(InvalidNamespaceError):
        store.search(("a.b",))
    with pytest.raises(InvalidNamespaceError):
        store.list_namespaces(prefix=("a.b",))

    # "langgraph" is refused only as the root label, and only through put (as LangGraph's own)
    for ns in [("foo", "langgraph", "foo"), ("langgraph", "foo")]:
        if ns[0] == "langgraph":
            store.batch([PutOp(ns, "bar", doc)])
        else:
            store.put(ns, "bar", doc)
        got = store.get(ns, "bar")
        assert got is not None and got.value == {**doc, **AS_PUT}
        assert [i.value for i in store.search(ns)] == [{**doc, **AS_PUT}]
        store.delete(ns, "bar")
        assert store.get(ns, "bar") is None


def test_the_last_of_two_puts_in_a_batch_wins(store: StategraphStore) -> None:
    ns = ("test",)
    store.batch([PutOp(ns, "key", {"value": 1}), PutOp(ns, "key", {"value": 2})])
    got = store.get(ns, "key")
    assert got is not None and got.value["value"] == 2
    assert [i.value["value"] for i in store.search(ns, filter={"value": 2})] == [2]
    assert store.search(ns, filter={"value": 1}) == []


def test_a_status_filter_is_one_status(store: StategraphStore) -> None:
    store.put(("n",), "k", {"text": "x"})
    assert len(store.search(("n",), filter={"status": {"$ne": "invalidated"}})) == 1
    with pytest.raises(InvalidInputError, match="search once per status"):
        store.search(("n",), filter={"status": ["holds", "undefined"]})
