"""Linking costs what it changes (issue 23): a new fact that changes no memory's derivations
reads none of their justifications, however many memories watch its pattern; one that does
writes exactly the justifications that differ."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from backends import Place

from stategraph import Memory
from stategraph.errors import InvalidChangeError, StategraphError
from stategraph.grounding.packs import list_packs
from stategraph.model import Origin, Truth
from stategraph.testing.properties import assert_links_from_scratch

CITIES = ("beijing", "chengdu", "guangzhou", "hangzhou", "shanghai")


def _dense(path: Path | str) -> Memory:
    """70 moves to Shenzhen (more than the 64 derivations a memory of this store keeps), then
    40 commute beliefs for Shenzhen resting on them."""
    mem = Memory(path, rules=list_packs(), candidates=None, max_alternatives=64)
    with mem.atomic():
        for i in range(70):
            src, month = CITIES[i % 5], f"2026-{i // 5 + 1:02d}" if i < 45 else f"2027-{i - 44:02d}"
            atoms = [f'moves(user,{src},shenzhen,"{month}")']
            mem.add({"id": f"f{i:03d}", "kind": "fact", "atoms": atoms})
        for i in range(40):
            mem.add({"id": f"b{i:03d}", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    return mem


def _reads_of_justifications(conn: sqlite3.Connection) -> list[str]:
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    return statements


def test_a_fact_past_every_memorys_cap_reads_and_writes_no_justification(
    tmp_path: Path,
) -> None:
    mem = _dense(tmp_path / "memory.db")
    assert len(mem.justifications("b000")) == 64
    statements = _reads_of_justifications(mem.store.conn)
    # sorts after every move the beliefs' 64 derivations take: none of them changes
    report = mem.add(
        {"id": "f999", "kind": "fact", "atoms": ['moves(user,xian,shenzhen,"2029-12")']}
    )
    mem.store.conn.set_trace_callback(None)
    assert [e.id for e in report.entries] == []
    assert not report.change.add_justifications and not report.change.remove_justifications
    reads = [s for s in statements if "FROM justifications" in s and "'b0" in s]
    assert reads == []  # relinking read every watching belief's justifications whole
    mem.close()


def test_a_fact_entering_the_cap_moves_one_justification_of_each_memory(tmp_path: Path) -> None:
    mem = _dense(tmp_path / "memory.db")
    before = {j.key for j in mem.justifications() if j.origin is Origin.rule}
    # sorts first: it enters every belief's 64 derivations and pushes the last one out
    report = mem.add(
        {"id": "f998", "kind": "fact", "atoms": ['moves(user,anqing,shenzhen,"2025-01")']}
    )
    after = {j.key for j in mem.justifications() if j.origin is Origin.rule}
    added, removed = after - before, before - after
    assert len(added) == 40 and len(removed) == 40
    assert {k[0] for k in added} == {k[0] for k in removed} == {f"b{i:03d}" for i in range(40)}
    assert all(k[1] == ("f998",) for k in added)
    assert {j.key for j in report.change.add_justifications} == added
    mem.close()


def _cited(mem: Memory, head: str) -> set[str]:
    return {p for j in mem.justifications(head) for p in j.premises}


def test_when_every_move_under_the_cap_is_called_off_the_moves_past_it_hold(place: Place) -> None:
    """The cap keeps derivations through live states first: calling off the 64 moves the
    beliefs' derivations cite brings in the 6 past the cap, one for each, and no belief is
    dropped while a move to Shenzhen stands (it was, as unsupported, when the cap kept
    derivations in firing order alone)."""
    mem = _dense(place.url)
    cited = _cited(mem, "b000")
    past = {f"f{i:03d}" for i in range(70)} - cited
    assert len(cited) == 64 and len(past) == 6
    live = cited | past
    for sid in sorted(cited):
        report = mem.retract(sid)
        live.discard(sid)
        assert [e.id for e in report.entries if e.new is not Truth.true] == []
        now = _cited(mem, "b017")
        # 64 derivations still: every live move once 64 are left, the dead ones after them
        assert len(now) == 64 and (live <= now if len(live) <= 64 else now <= live)
    assert mem.truth("b000") is Truth.true
    by = mem.why("b000").step("b000").by
    assert by is not None and set(by.premises) <= past
    assert_links_from_scratch(mem, "after the 64 cited moves are called off")
    # the last moves go: now nothing supports the beliefs, and they are dropped
    report = mem.revise({"retract": sorted(past)})
    assert {e.id for e in report.entries if e.new is Truth.false} == {
        f"b{i:03d}" for i in range(40)
    }
    assert_links_from_scratch(mem, "after every move is called off")
    mem.close()


def test_a_superseded_move_under_the_cap_gives_its_place_to_the_next_live_one(place: Place) -> None:
    mem = _dense(place.url)
    cited = _cited(mem, "b000")
    first = min(cited)
    # the replacement sorts past the cap: the first move past it takes the freed place
    report = mem.supersede(
        first, {"id": "g1", "kind": "fact", "atoms": ['moves(user,xian,shenzhen,"2029-12")']}
    )
    now = _cited(mem, "b000")
    assert first not in now and "g1" not in now and len(now - cited) == 1
    assert len(report.change.add_justifications) == len(report.change.remove_justifications) == 40
    assert_links_from_scratch(mem)
    mem.close()


def test_a_move_past_every_cap_called_off_reads_and_writes_no_justification(
    tmp_path: Path,
) -> None:
    mem = _dense(tmp_path / "memory.db")
    past = sorted({f"f{i:03d}" for i in range(70)} - _cited(mem, "b000"))
    statements = _reads_of_justifications(mem.store.conn)
    report = mem.retract(past[-1])
    mem.store.conn.set_trace_callback(None)
    assert not report.change.add_justifications and not report.change.remove_justifications
    assert [s for s in statements if "FROM justifications" in s and "'b0" in s] == []
    assert_links_from_scratch(mem)
    mem.close()


def test_a_memory_its_group_cites_is_relinked_when_only_its_own_derivations_change(
    place: Place,
) -> None:
    """``a_m`` holds a home city and the commute that follows from it. Its group's 64
    derivations each cite ``a_m`` (the first carrier of the home city, times the first 64
    moves), so ``a_m``'s own go past them, through the next carrier: ``b_x``, then ``a_y``
    once added, then ``b_x`` again once ``a_y`` is retracted. The group's derivations never
    change: delta linking once skipped the group, and left ``a_m``'s own as they were."""
    mem = _dense(place.url)
    home = "home_city(user,shenzhen)"
    mem.add({"id": "b_x", "kind": "belief", "atoms": [home]})
    both = ["commute_city(user,shenzhen)", home]
    mem.add({"id": "a_m", "kind": "belief", "atoms": both})
    assert {j.premises[0] for j in mem.justifications("a_m")} == {"b_x"}
    mem.add({"id": "a_y", "kind": "belief", "atoms": [home]})
    assert {j.premises[0] for j in mem.justifications("a_m")} == {"a_y"}
    assert_links_from_scratch(mem, "after a_y")
    mem.retract("a_y")
    assert {j.premises[0] for j in mem.justifications("a_m")} == {"b_x"}
    assert_links_from_scratch(mem, "after a_y is retracted")
    mem.close()


def test_a_change_that_fails_leaves_no_trace_in_the_kept_groups(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "memory.db", rules=list_packs(), candidates=None)
    mem.add({"id": "f1", "kind": "fact", "atoms": ['moves(user,beijing,shenzhen,"2026-12")']})
    mem.add({"id": "b1", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    # linked (the commute group evaluated with this move), then refused: b1 is taken
    with pytest.raises(InvalidChangeError):
        mem.add({"id": "b1", "kind": "fact", "atoms": ['moves(user,hangzhou,shenzhen,"2027-01")']})
    mem.add({"id": "b2", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    assert {j.premises for j in mem.justifications("b2")} == {("f1",)}
    assert_links_from_scratch(mem)
    mem.close()


def test_a_retraction_that_fails_leaves_no_trace_in_the_kept_groups(tmp_path: Path) -> None:
    mem = _dense(tmp_path / "memory.db")
    first = min(_cited(mem, "b000"))
    # linked (the beliefs' group evaluated with the move dead), then refused: no such head
    with pytest.raises(StategraphError):
        mem.revise(
            {"retract": [first], "add_justifications": [{"head": "nope", "premises": ["f001"]}]}
        )
    assert first in _cited(mem, "b000")
    mem.add({"id": "b999", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    assert first in _cited(mem, "b999")  # the group as committed, with the move alive
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
