"""A store's own cap on the rule derivations a memory keeps (``max_alternatives``).

A dense store (thousands of memories resting on the same few facts) writes and moves a
memory's whole cap of derivations: a smaller one makes it cheaper to write (16 for a new
store, 64 for one written before stores kept a cap). The cap is the store's, like its rule
packs: kept in it, logged with every revision, and a new one relinks every memory at the next
change, so that what is stored is what linking from scratch gives under the cap in force.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from backends import Place

from stategraph import Memory
from stategraph.audit import export, verify_export
from stategraph.cli.main import main
from stategraph.errors import InvalidInputError
from stategraph.grounding.packs import list_packs
from stategraph.model import Origin, Truth
from stategraph.store import SQLiteStore
from stategraph.testing.properties import assert_links_from_scratch

CITIES = ("beijing", "chengdu", "guangzhou", "hangzhou", "shanghai")


def _write(mem: Memory, moves: int = 12, beliefs: int = 5) -> None:
    """``moves`` moves to Shenzhen and ``beliefs`` commute beliefs resting on them."""
    with mem.atomic():
        for i in range(moves):
            atoms = [f'moves(user,{CITIES[i % 5]},shenzhen,"2026-{i % 12 + 1:02d}")']
            mem.add({"id": f"f{i:03d}", "kind": "fact", "atoms": atoms})
        for i in range(beliefs):
            mem.add({"id": f"b{i:03d}", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})


def _rule_links(mem: Memory, head: str) -> int:
    return sum(j.origin is Origin.rule for j in mem.justifications(head))


def test_a_memory_keeps_at_most_the_stores_cap_of_rule_derivations(place: Place) -> None:
    mem = place.memory(rules=list_packs(), candidates=None, max_alternatives=3)
    _write(mem)
    assert mem.max_alternatives == 3
    assert [_rule_links(mem, f"b{i:03d}") for i in range(5)] == [3] * 5
    assert_links_from_scratch(mem, "under a cap of 3")
    # the cap never hides a live derivation: calling off the three cited moves brings in the
    # next three, and the belief holds
    cited = {p for j in mem.justifications("b000") for p in j.premises}
    mem.retract(*sorted(cited))
    now = {p for j in mem.justifications("b000") for p in j.premises}
    assert _rule_links(mem, "b000") == 3 and not now & cited
    assert mem.truth("b000") is Truth.true
    assert_links_from_scratch(mem, "after the cited moves are called off")
    mem.close()


def test_the_cap_is_kept_in_the_store_and_logged(place: Place) -> None:
    mem = place.memory(rules=list_packs(), candidates=None, max_alternatives=3)
    _write(mem, moves=4, beliefs=1)
    assert mem.config["max_alternatives"] == 3
    assert mem.history()[-1].config["max_alternatives"] == 3
    mem.close()
    again = place.memory()  # the store's packs and cap
    assert (again.rules, again.max_alternatives) == (tuple(list_packs()), 3)
    again.close()
    default = Memory(rules=list_packs())
    assert (default.max_alternatives, default.config["max_alternatives"]) == (16, 16)
    default.close()


def test_a_store_written_before_stores_kept_a_cap_keeps_the_one_it_was_linked_under(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    mem = Memory(path, rules=list_packs(), candidates=None, max_alternatives=64)
    _write(mem, moves=20, beliefs=2)
    mem.close()
    conn = sqlite3.connect(path)  # as such a store is: no cap kept
    conn.execute("DELETE FROM meta WHERE key = 'setting:max_alternatives'")
    conn.commit()
    conn.close()
    old = Memory(path, candidates=None)
    assert old.max_alternatives == 64
    assert "max_alternatives" not in old.config  # logged as it was before
    assert old.store.get_setting("max_alternatives") is None  # opening it wrote nothing
    old.fact("f999", atoms=['moves(user,xian,shenzhen,"2029-12")'])
    assert _rule_links(old, "b000") == 21  # the new move's too: none cut to a new store's 16
    assert_links_from_scratch(old, "a store linked under 64")
    old.close()


def test_a_new_cap_relinks_every_memory_at_the_next_change(place: Place) -> None:
    mem = place.memory(rules=list_packs(), candidates=None, max_alternatives=3)
    _write(mem)
    mem.close()
    wider = place.memory(candidates=None, max_alternatives=8)
    assert _rule_links(wider, "b000") == 3  # linked under the old cap until a change
    wider.fact("unrelated", "the user likes tea")
    assert [_rule_links(wider, f"b{i:03d}") for i in range(5)] == [8] * 5
    assert_links_from_scratch(wider, "after the cap went from 3 to 8")
    wider.close()
    narrower = place.memory(candidates=None, max_alternatives=2)
    narrower.fact("unrelated-2", "the user likes coffee")
    assert [_rule_links(narrower, f"b{i:03d}") for i in range(5)] == [2] * 5
    assert_links_from_scratch(narrower, "after the cap went from 8 to 2")
    narrower.close()


@pytest.mark.parametrize("bad", [0, -1, True, "8", 2.5])
def test_a_cap_that_is_not_a_positive_int_is_refused(tmp_path: Path, bad: object) -> None:
    with pytest.raises(InvalidInputError, match="max_alternatives"):
        Memory(tmp_path / "m.db", rules=list_packs(), max_alternatives=bad)  # type: ignore[arg-type]
    assert not (tmp_path / "m.db").exists()  # refused before the store was made


def test_a_history_across_caps_replays_as_written(tmp_path: Path) -> None:
    """The replay opens each entry's memory with the cap it logged, also when an entry
    between set another one in the replay's store."""
    path = tmp_path / "m.db"
    for cap in (3, None, 64, 2, 3):  # None: the store's (3 from the first)
        mem = Memory(path, rules=list_packs(), candidates=None, max_alternatives=cap)
        mem.fact(f"t{mem.head()[0]}", "the user likes tea")  # relinks, under a new cap
        mem.fact(f"f{mem.head()[0]}", atoms=['moves(user,beijing,shenzhen,"2026-01")'])
        mem.fact(f"g{mem.head()[0]}", atoms=['moves(user,chengdu,shenzhen,"2026-02")'])
        mem.fact(f"h{mem.head()[0]}", atoms=['moves(user,hangzhou,shenzhen,"2026-03")'])
        mem.belief(f"b{mem.head()[0]}", atoms=["commute_city(user,shenzhen)"])
        mem.close()
    store = SQLiteStore(path)
    out = tmp_path / "log.jsonl"
    n = export(store, out)[0]
    store.close()
    result = verify_export(out)
    assert (result.count, result.replayed, result.not_replayed) == (n, n, "")


def test_the_command_line_sets_the_cap_of_a_store(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    args = ["add", store, "--id", "f1", "--text", "moving to Shenzhen in May"]
    assert main([*args, "--rules", "all", "--max-alternatives", "4"]) == 0
    mem = Memory(store)
    assert mem.max_alternatives == 4
    mem.close()


@pytest.mark.parametrize("option", [["--max-alternatives", "0"], ["--max-depth", "-1"]])
def test_a_command_given_a_limit_out_of_range_makes_no_store(
    tmp_path: Path, option: list[str]
) -> None:
    store = tmp_path / "m.db"
    assert main(["add", str(store), "--id", "f1", *option]) != 0
    assert not store.exists()
