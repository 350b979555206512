"""The garbage-collector pause around revisions and bulk loads (``stategraph.memory``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from stategraph.memory import _PROMOTE_AFTER, _paused_gc


@pytest.fixture
def collector() -> Iterator[None]:
    """Start each test from an enabled collector with nothing frozen, and leave it so."""
    was_enabled = gc.isenabled()
    gc.unfreeze()
    gc.collect()
    gc.enable()
    yield
    gc.unfreeze()
    if not was_enabled:
        gc.disable()


def _allocate(n: int) -> list[list[int]]:
    return [[i] for i in range(n)]


def test_the_collector_is_paused_inside_and_enabled_after(collector: None) -> None:
    with _paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_caller_that_disabled_the_collector_keeps_it_disabled(collector: None) -> None:
    gc.disable()
    with _paused_gc():
        kept = _allocate(_PROMOTE_AFTER + 1000)
    assert not gc.isenabled()
    assert _generation(kept) == 0  # nothing was promoted behind its back


def _generation(obj: object) -> int:
    return next(g for g in range(3) if any(o is obj for o in gc.get_objects(generation=g)))


def test_a_large_pause_promotes_its_objects_unscanned(collector: None) -> None:
    with _paused_gc():
        kept = _allocate(_PROMOTE_AFTER + 1000)
        assert gc.get_count()[0] > _PROMOTE_AFTER
    # Scanned by a young collection, they would have moved one generation up, to 1.
    assert _generation(kept) == 2
    assert gc.get_freeze_count() == 0  # and nothing stays frozen


def test_a_small_pause_is_left_to_the_collector(collector: None) -> None:
    with _paused_gc():
        kept = _allocate(500)
    assert _generation(kept) == 0


def test_objects_the_caller_froze_stay_frozen(collector: None) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    with _paused_gc():
        kept = _allocate(_PROMOTE_AFTER + 1000)
    assert gc.get_freeze_count() == frozen
    assert _generation(kept) < 2  # left to the collector


def test_cycles_made_during_a_large_pause_are_still_collected(collector: None) -> None:
    class Node:
        other: Node | None = None

    with _paused_gc():
        a, b = Node(), Node()
        a.other, b.other = b, a
        kept = _allocate(_PROMOTE_AFTER + 1000)
    del a, b
    assert gc.collect() >= 2  # promoted to the oldest generation, not leaked
    del kept
