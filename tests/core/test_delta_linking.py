"""Linking costs what it changes (issue 23): a new fact that changes no memory's derivations
reads none of their justifications, however many memories watch its pattern; one that does
writes exactly the justifications that differ."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.errors import InvalidChangeError
from stategraph.grounding.packs import list_packs
from stategraph.model import Origin
from stategraph.testing.properties import assert_links_from_scratch

CITIES = ("beijing", "chengdu", "guangzhou", "hangzhou", "shanghai")


def _dense(path: Path) -> Memory:
    """70 moves to Shenzhen (more than the 64 derivations a memory keeps), then 40 commute
    beliefs for Shenzhen resting on them."""
    mem = Memory(path, rules=list_packs(), candidates=None)
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
