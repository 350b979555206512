"""Linking costs what it changes (issues 23 and 40): a new fact evaluates again only the atoms
whose firings watch a pattern it matches, and writes exactly the justifications that differ;
a change that fails leaves nothing behind in what linking keeps between changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from backends import Place

from stategraph import Memory
from stategraph.errors import InvalidChangeError, StategraphError
from stategraph.grounding.packs import list_packs
from stategraph.model import Truth
from stategraph.testing.properties import assert_links_from_scratch

CITIES = ("beijing", "chengdu", "guangzhou", "hangzhou", "shanghai")
HOME = "rule:home_city(user,shenzhen)"


def _dense(path: Path | str) -> Memory:
    """70 moves to Shenzhen, then 40 commute beliefs resting on them."""
    mem = Memory(path, rules=list_packs(), candidates=None)
    with mem.atomic():
        for i in range(70):
            src, month = CITIES[i % 5], f"2026-{i // 5 + 1:02d}" if i < 45 else f"2027-{i - 44:02d}"
            atoms = [f'moves(user,{src},shenzhen,"{month}")']
            mem.add({"id": f"f{i:03d}", "kind": "fact", "atoms": atoms})
        for i in range(40):
            mem.add({"id": f"b{i:03d}", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    return mem


def test_a_new_move_is_one_firing_of_the_home_city(place: Place) -> None:
    mem = _dense(place.url)
    assert len(mem.justifications(HOME)) == 70
    report = mem.add(
        {"id": "f999", "kind": "fact", "atoms": ['moves(user,xian,shenzhen,"2029-12")']}
    )
    assert report.entries == ()
    heads = sorted(j.head for j in report.change.add_justifications)
    move = 'moves(user,xian,shenzhen,"2029-12")'
    # the move's node (carried by f999), its firings of the home city and of what else a
    # move gives (relocating, the utilities to cancel): never a belief's justification
    assert f"atom:{move}" in heads and HOME in heads
    assert not any(h.startswith("b") for h in heads)
    assert not report.change.remove_justifications
    assert len(mem.justifications(HOME)) == 71
    assert_links_from_scratch(mem)
    mem.close()


def test_every_move_called_off_drops_the_commute_with_the_last(place: Place) -> None:
    mem = _dense(place.url)
    for i in range(69):
        assert "b000" not in mem.retract(f"f{i:03d}").invalidated
    report = mem.retract("f069")
    assert report.invalidated == [f"b{i:03d}" for i in range(40)]
    assert mem.truth("b039") is Truth.false
    mem.close()


def test_a_change_that_fails_leaves_no_trace_in_the_kept_firings(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "memory.db", rules=list_packs(), candidates=None)
    mem.add({"id": "f1", "kind": "fact", "atoms": ['moves(user,beijing,shenzhen,"2026-12")']})
    mem.add({"id": "b1", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    # linked (the home city's firings evaluated with this move), then refused: b1 is taken
    with pytest.raises(InvalidChangeError):
        mem.add({"id": "b1", "kind": "fact", "atoms": ['moves(user,hangzhou,shenzhen,"2027-01")']})
    mem.add({"id": "b2", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    assert len(mem.justifications(HOME)) == 1
    assert_links_from_scratch(mem)
    mem.add({"id": "f2", "kind": "fact", "atoms": ['moves(user,hangzhou,shenzhen,"2027-01")']})
    assert len(mem.justifications(HOME)) == 2
    assert_links_from_scratch(mem)
    mem.close()


def test_a_change_refused_after_linking_leaves_the_kept_firings_as_committed(
    tmp_path: Path,
) -> None:
    mem = _dense(tmp_path / "memory.db")
    # linked (a new move's firings evaluated), then refused: no such head
    with pytest.raises(StategraphError):
        mem.revise(
            {
                "assert": [
                    {"id": "f900", "kind": "fact", "atoms": ['moves(user,xian,shenzhen,"2030-01")']}
                ],
                "add_justifications": [{"head": "nope", "premises": ["f001"]}],
            }
        )
    mem.add({"id": "f901", "kind": "fact", "atoms": ['moves(user,lhasa,shenzhen,"2030-02")']})
    assert len(mem.justifications(HOME)) == 71
    assert_links_from_scratch(mem)
    mem.close()


def test_what_a_derived_predicate_is_derived_from() -> None:
    """A new move extends the firings that read ``away`` (derived from trips and events
    only) instead of evaluating them again; those that read ``home_city`` (derived from moves)
    are evaluated again; a predicate read through ``next_date`` could move with any date."""
    from stategraph.grounding.packs import load_pack
    from stategraph.text.topdown import compile_packs

    program = compile_packs([load_pack(p) for p in list_packs()])
    assert program.inputs_of(("away", 3)) == {("away", 3), ("trip", 3), ("event_in", 4)}
    home = program.inputs_of(("home_city", 2))
    assert home is not None and {("moves", 4), ("stays", 2), ("lives_in", 2)} <= home
    assert ("relocating", 1) in home  # read under not, and derived from moves in turn
    assert program.inputs_of(("away_from_home", 2)) is None  # next_date
    assert program.inputs_of(("trip", 3)) == {("trip", 3)}  # an input predicate
