"""A picture of a dense store: the limit counts every node drawn (states and their
justifications), and drawing a neighbourhood reads what the limit allows, not the store.

The store: a hub fact that every belief cites, other facts, and beliefs with four
justifications of three premises each (a densely linked memory, as text linking makes one).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from stategraph import Memory
from stategraph.cli.main import main
from stategraph.model import Justification, State
from stategraph.pictures import build_picture
from stategraph.store.sqlite import SQLiteStore


def dense(path: Path, n: int) -> Path:
    rng = random.Random(7)
    facts = [State(id=f"f{i}", kind="fact", text=f"fact {i}") for i in range(n // 10)]
    beliefs = [State(id=f"b{i}", kind="belief", text=f"belief {i}") for i in range(n - n // 10)]
    ids = [s.id for s in facts]
    justs = []
    for i, b in enumerate(beliefs):
        pool = ids + [x.id for x in beliefs[:i]]
        for _ in range(4):
            premises = {"f0", *rng.sample(pool, 2)}
            justs.append(Justification(head=b.id, premises=tuple(sorted(premises))))
    with Memory(path) as mem:
        mem.bulk_load(facts + beliefs, justs)
    return path


class Counting:
    """The real store, counting the ids each read is given and gives back."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.ids = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name)
        if name in ("states", "justifications", "with_atoms", "heads_citing"):
            raise AssertionError(f"a picture read the whole store ({name})")

        def call(*args: Any, **kwargs: Any) -> Any:
            for a in args:
                if isinstance(a, (list, set, frozenset, tuple)):
                    self.ids += len(a)
            out = method(*args, **kwargs)
            if isinstance(out, (list, dict, set)):
                self.ids += len(out)
            return out

        return call


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("dense")
    return {n: dense(folder / f"dense{n}.db", n) for n in (600, 2400)}


@pytest.mark.parametrize("limit", [5, 40, 150])
@pytest.mark.parametrize("around", ["f0", "f3", "b300"])
def test_the_drawn_nodes_stay_within_the_limit(
    stores: dict[int, Path], limit: int, around: str
) -> None:
    with Memory(stores[2400]) as mem:
        p = build_picture(mem.store, around=around, limit=limit)
    nodes = len(p.states) + len(p.supports)
    assert 0 < nodes <= limit
    assert p.cut and "cut at the limit" in p.scope
    assert {j.head for j in p.supports} <= p.ids()


@pytest.mark.parametrize("around", ["f0", "b300"])
def test_what_a_neighbourhood_reads_does_not_grow_with_the_store(
    stores: dict[int, Path], around: str
) -> None:
    read = {}
    for n, path in stores.items():
        store = SQLiteStore(path)
        counting = Counting(store)
        build_picture(counting, around=around, limit=60)  # type: ignore[arg-type]
        store.close()
        read[n] = counting.ids
    # f0 is cited by all 2,160 beliefs of the larger store; the picture reads a few hundred ids
    assert read[2400] <= 60 * 62, read
    assert read[2400] <= 2 * read[600], read


def test_the_command_says_when_the_picture_was_cut(
    stores: dict[int, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["graph", str(stores[600]), "--around", "f0", "--limit", "30", "--json"]) == 0
    out, err = capsys.readouterr()
    picture = json.loads(out)
    assert len(picture["states"]) + len(picture["supports"]) <= 30
    assert picture["cut"] is True
    assert err.startswith("stategraph: note: the picture stops at ")
    assert "raise --limit" in err
    assert main(["graph", str(stores[600]), "--around", "f0", "--hops", "0", "--json"]) == 0
    _, err = capsys.readouterr()
    assert err == ""


def test_on_each_backend_a_hub_is_drawn_within_the_limit(place: Any) -> None:
    with place.memory() as mem:
        mem.fact("hub", "The user moves to Shenzhen")
        for i in range(30):
            mem.belief(
                f"b{i:02}", f"belief {i}", because=["hub", [f"b{i - 1:02}", "hub"]][: 1 + (i > 0)]
            )
        p = build_picture(mem.store, around="hub", limit=10)
    assert len(p.states) + len(p.supports) <= 10 and p.cut
    assert [s.id for s in p.states][:1] == ["b00"] and "hub" in p.ids()


def test_a_state_too_large_for_the_limit_is_a_clear_error(stores: dict[int, Path]) -> None:
    from stategraph.errors import InvalidInputError

    with Memory(stores[600]) as mem, pytest.raises(InvalidInputError, match="raise --limit"):
        build_picture(mem.store, around="b300", limit=3)  # b300 has four justifications
