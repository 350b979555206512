"""The atom index's ``next_date`` answers are the reference's (``packs.next_event``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from stategraph.atom_index import _Events
from stategraph.grounding.packs import next_event

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
