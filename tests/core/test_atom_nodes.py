"""Rule links through atom nodes (issue 40): exact at any density.

However many memories carry an atom, and however many block a default, a memory holds
exactly when the well-founded model of the packs grounded over the memories says so. Before
atom nodes, linking kept at most ``max_alternatives`` derivations per memory, and past that
dropped a memory while 54 of its supports held, or kept one while 54 blockers held. Each
example here is checked against oracle (e) (``tests/properties/oracles/grounded_links.py``),
which grounds the packs with clingo and computes the model by the textbook alternating
fixpoint, at every step.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from properties.oracles.grounded_links import assert_links_match_grounding

from stategraph import Memory
from stategraph.audit import export, verify_export
from stategraph.model import Truth

DATA = Path(__file__).parent / "data"
MOVE = 'moves(user,beijing,guangzhou,"2026-{:02d}")'


def _carriers(n: int, check_every: int) -> None:
    """``n`` beliefs carry ``home_city(user,shenzhen)``, each resting on its own fact; ``top``
    carries ``commute_city(user,shenzhen)``. Retracting the facts one by one drops ``top``
    only with the last."""
    mem = Memory(rules="all", candidates=None)
    with mem.atomic():
        for i in range(n):
            mem.fact(f"f{i:04d}", f"fact {i}")
            mem.add(
                {"id": f"h{i:04d}", "kind": "belief", "atoms": ["home_city(user,shenzhen)"]},
                because=[f"f{i:04d}"],
            )
    mem.add({"id": "top", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    assert [j.premises for j in mem.justifications("top")] == [
        ("rule:commute_city(user,shenzhen)",)
    ]
    assert mem.truth("top") is Truth.true
    for i in range(n):
        report = mem.retract(f"f{i:04d}")
        assert mem.truth("top") is (Truth.true if i < n - 1 else Truth.false), i
        assert ("top" in report.invalidated) is (i == n - 1)
        if i % check_every == 0 or i >= n - 2:
            assert_links_match_grounding(mem, f"after retracting f{i:04d}")
    # nothing relinks it by accident: a new belief with the same atom is false too
    mem.add({"id": "top2", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    assert mem.truth("top2") is Truth.false


def _blockers(n: int, check_every: int) -> None:
    """A fact carries ``lives_in(user,shenzhen)``; ``n`` plans each carry a move elsewhere
    and rest on their own reason; ``top`` carries ``commute_city(user,shenzhen)``, which the
    relocation pack derives from ``lives_in`` unless ``relocating(user)``. ``top`` is blocked
    while any plan holds, and restored with the last one's reason gone."""
    mem = Memory(rules="all", candidates=None)
    mem.add({"id": "home", "kind": "fact", "atoms": ["lives_in(user,shenzhen)"]})
    with mem.atomic():
        for i in range(n):
            mem.fact(f"r{i:04d}", f"reason {i}")
            mem.add(
                {"id": f"p{i:04d}", "kind": "plan", "atoms": [MOVE.format(i % 12 + 1)]},
                because=[f"r{i:04d}"],
            )
    mem.add({"id": "top", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
    assert mem.truth("top") is Truth.false
    for i in range(n):
        report = mem.retract(f"r{i:04d}")
        assert mem.truth("top") is (Truth.false if i < n - 1 else Truth.true), i
        assert ("top" in report.restored) is (i == n - 1)
        if i % check_every == 0 or i >= n - 2:
            assert_links_match_grounding(mem, f"after retracting r{i:04d}")


def test_a_memory_holds_while_one_of_seventy_carriers_of_its_premise_holds() -> None:
    _carriers(70, check_every=9)


def test_a_memory_stays_blocked_while_one_of_seventy_blockers_holds() -> None:
    _blockers(70, check_every=9)


@pytest.mark.slow
def test_a_thousand_carriers_and_a_thousand_blockers() -> None:
    _carriers(1000, check_every=100)
    _blockers(1000, check_every=100)


def test_from_text_recall_never_returns_a_blocked_memory_as_holding() -> None:
    """The issue's example, from text alone: the commute belief is blocked while any of the
    seventy plans to move away holds, and recall says so."""
    mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1", candidates=None)
    mem.fact("home", "The user lives in Shenzhen")
    months = ("January", "February", "March", "April", "May", "June", "July")
    with mem.atomic():
        for i in range(70):
            mem.fact(f"r{i:02d}", f"Reason {i} for moving")
            when = f"{months[i % 7]} {2026 + i // 7}"
            mem.plan(
                f"p{i:02d}",
                f"The user will move from Hangzhou to Guangzhou in {when}",
                because=[f"r{i:02d}"],
            )
    mem.belief("top", "Commute time is computed for Shenzhen")
    assert mem.state("top").atoms == ("commute_city(user,shenzhen)",)
    assert mem.truth("top") is Truth.false
    for i in range(69):
        mem.retract(f"r{i:02d}")
    found = {r.id: r for r in mem.recall("commute time Shenzhen")}
    assert "top" not in found or found["top"].status != "holds"
    mem.retract("r69")
    assert mem.truth("top") is Truth.true
    found = {r.id: r for r in mem.recall("commute time Shenzhen")}
    assert found["top"].status == "holds"
    assert not any(sid.startswith(("atom:", "rule:")) for sid in found)


def test_a_new_carrier_of_a_dense_atom_writes_one_justification_and_reads_no_dependent(
    tmp_path: Path,
) -> None:
    mem = Memory(tmp_path / "m.db", rules="all", candidates=None)
    with mem.atomic():
        for i in range(60):
            mem.add({"id": f"f{i:03d}", "kind": "fact", "atoms": [MOVE.format(1)]})
        for i in range(40):
            mem.add({"id": f"b{i:03d}", "kind": "belief", "atoms": ["home_city(user,guangzhou)"]})
    statements: list[str] = []
    mem.store.conn.set_trace_callback(statements.append)  # type: ignore[attr-defined]
    report = mem.add({"id": "f999", "kind": "fact", "atoms": [MOVE.format(1)]})
    mem.store.conn.set_trace_callback(None)  # type: ignore[attr-defined]
    assert report.entries == ()
    assert [(j.head, j.premises) for j in report.change.add_justifications] == [
        (f"atom:{MOVE.format(1)}", ("f999",))
    ]
    assert not report.change.remove_justifications
    read = [s for s in statements if "FROM justifications" in s and ("'b0" in s or "'f0" in s)]
    assert read == []
    # the node of the dense atom was not read whole either
    whole = [s for s in statements if "FROM justifications" in s and "'atom:moves" in s]
    assert whole == []


def test_a_store_linked_memory_to_memory_is_relinked_at_its_next_change(tmp_path: Path) -> None:
    """A store written before atom nodes (schema 6, up to 16 derivations a memory, memory to
    memory) opens, reads as it was, and its next change relinks every memory through atom
    nodes, in the same revision; its log still verifies by replay, entries before and after."""
    path = tmp_path / "old.db"
    shutil.copy(DATA / "store-v6-linked-memory-to-memory.db", path)
    with Memory(path) as mem:
        before = {s.id: mem.truth(s.id) for s in mem.states()}
        assert before["b1"] is Truth.true
        report = mem.fact("c2", "likes hiking")
        linked = [j for j in mem.justifications("b1") if j.origin.value == "rule"]
        assert [j.premises for j in linked] == [("rule:commute_city(user,shenzhen)",)]
        removed = [j for j in report.change.remove_justifications if j.head == "b1"]
        assert len(removed) == 16 and all(p.startswith("f") for j in removed for p in j.premises)
        assert {s.id: mem.truth(s.id) for s in mem.states() if s.id in before} == before
        assert_links_match_grounding(mem)
        assert mem.verify_log(deep=True) > 0
        mem.retract("f01")
        assert mem.truth("b1") is Truth.true
    conn = sqlite3.connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    assert "link_groups" not in tables and "link_atoms" in tables
    exported = tmp_path / "log.jsonl"
    with Memory(path) as mem:
        export(mem.store, exported)  # type: ignore[arg-type]
    result = verify_export(exported)
    assert result.replayed == result.count and not result.not_replayed
