"""The atom index's ``next_date`` answers are the reference's (``packs.next_event``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from stategraph.grounding.packs import next_event
from stategraph.text.atom_index import StoreInputs, _Events

years = st.integers(2024, 2027)
months = st.integers(1, 12)
days = st.integers(1, 28)
dates = st.one_of(
    st.builds(lambda y, m, d: f"{y}-{m:02d}-{d:02d}", years, months, days),
    st.builds(lambda y, m: f"{y}-{m:02d}", years, months),
    st.builds(lambda m, d: f"--{m:02d}-{d:02d}", months, days),
    st.builds(lambda m: f"--{m:02d}", months),
)


@given(st.lists(dates, max_size=30), st.lists(dates, min_size=1, max_size=10), st.lists(dates))
def test_next_is_next_event(events: list[str], asked: list[str], added: list[str]) -> None:
    index = _Events(events)
    for d in added:
        index.add(d)
    everything = [*events, *added]
    for d in asked:
        assert index.next(d) == next_event(d, everything), d


class _Counted:
    """An index whose keys hold the given numbers of atoms (only ``count`` is asked)."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts

    def count(self, key: str, cap: int) -> int:
        return min(self.counts[key], cap)


@given(st.lists(st.one_of(st.integers(0, 130), st.integers(9_990, 10_010)), min_size=1))
def test_the_most_selective_key_is_the_first_of_the_fewest(counts: list[int]) -> None:
    keys = [f"k{i}" for i in range(len(counts))]
    index = _Counted(dict(zip(keys, counts, strict=True)))
    inputs = StoreInputs(index, {})  # type: ignore[arg-type]
    expected = min(keys, key=lambda k: index.count(k, 10_000))
    assert inputs._most_selective(keys) == expected


MOVE = 'moves(user,shanghai,shenzhen,"2026-12")'


def test_an_atom_is_carried_exactly_when_it_has_carriers() -> None:
    """``carried`` answers from one row what ``carriers`` answers from all of them."""
    from stategraph import Memory
    from stategraph.store.sqlite import SQLiteStore
    from stategraph.text.atom_index import LinkIndex
    from stategraph.text.linking import parse_atom

    mem = Memory(rules="all")
    for i in range(3):
        mem.fact(f"f{i}", atoms=[MOVE])
    mem.fact("g", atoms=["takes(user,metformin)"])
    assert isinstance(mem.store, SQLiteStore)
    index = LinkIndex(mem.store.conn)
    for text in (MOVE, "takes(user,metformin)", "away(user)"):
        atom = parse_atom(text)
        assert index.carried(atom) == bool(index.carriers(atom)), text
    assert index.carriers(parse_atom(MOVE)) == [("f0", True), ("f1", True), ("f2", True)]
