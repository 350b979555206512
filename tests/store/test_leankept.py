"""What lean reads learn of heads, kept between revisions (:mod:`stategraph.store.leankept`):
after every commit, a lean read from what was kept must say what the table says. The oracle
is the store's justifications read whole, through the model, never through the lean read."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.bench.perf.densegen import generate
from stategraph.engine.graph import SupportGraph
from stategraph.model import Change, Justification, Origin
from stategraph.store.leankept import LeanKept
from stategraph.store.sqlite import SQLiteStore


def _oracle(store: SQLiteStore, head: str) -> tuple[tuple[tuple[str, ...], ...], bool]:
    """A head's premises (sorted) and whether every justification is plain, from the rows."""
    justs = store.justifications(head)
    plain = all(
        not j.unless
        and j.origin is not Origin.recovered
        and not (j.checked or j.notes or j.proposed)
        for j in justs
    )
    return tuple(sorted(j.premises for j in justs)), plain


def _lean(store: SQLiteStore, heads: Iterable[str]) -> dict[str, tuple[object, bool]]:
    read = store.lean_heads(SupportGraph(), heads)
    return {h: (lean.premises, lean.plain) for h, lean in read.heads.items()}


def _assert_kept_right(store: SQLiteStore, heads: list[str]) -> None:
    assert _lean(store, heads) == {h: _oracle(store, h) for h in heads}


def _derived(store: SQLiteStore) -> list[str]:
    return sorted({j.head for j in store.justifications()})


def _small() -> tuple[Memory, SQLiteStore]:
    """Two facts, and a belief on the first."""
    mem = Memory()
    for f in ("f1", "f2"):
        mem.fact(f)
    mem.belief("b", because=[["f1"]])
    assert isinstance(mem.store, SQLiteStore)
    return mem, mem.store


def test_kept_answers_follow_a_dense_history(tmp_path: Path) -> None:
    """Dense memories, one add at a time, then moves superseded and retracted: after each
    revision the kept answers of every derived memory (all of them asked every time, so each
    revision moves what the one before kept) are what the table holds."""
    work = generate(120, 0)
    mem = Memory(tmp_path / "m.db", rules="all", grounder="stategraph.rule_grounder.v1")
    store = mem.store
    assert isinstance(store, SQLiteStore)
    moved = 0
    with mem.atomic():  # as an import writes: inside one transaction
        for m in work.memories():
            report = mem.add(m.state())
            moved += any(j.head.startswith("atom:") for j in report.change.add_justifications)
            _assert_kept_right(store, _derived(store))
    for change in work.changes(8):
        mem.revise(change)
        _assert_kept_right(store, _derived(store))
    assert moved > 5  # dense facts did move kept answers (an atom node's justifications added)


def test_a_justification_that_is_not_plain_drops_the_head_and_its_removal_restores_it() -> None:
    """A note on a plain head makes it not plain; once the noted justification is removed, the
    head is plain again (which only a new read can tell: the kept answer was dropped)."""
    mem, store = _small()
    assert _lean(store, ["b"]) == {"b": ((("f1",),), True)}
    noted = Justification(
        head="b", premises=("f2",), origin=Origin.rule, rules=("r:1",), notes={"f2": "why"}
    )
    mem._apply(Change(add_justifications=(noted,)))
    assert _lean(store, ["b"]) == {"b": ((("f1",), ("f2",)), False)}
    mem._apply(Change(remove_justifications=(noted,)))
    assert _lean(store, ["b"]) == {"b": ((("f1",),), True)}


def test_writes_beside_a_commit_drop_what_was_kept(tmp_path: Path) -> None:
    """Another connection's revision, a rolled-back block and a justification inserted
    without a revision each leave kept answers that are no longer true: none is used."""
    path = tmp_path / "m.db"
    mem = Memory(path)
    for f in ("f1", "f2", "f3"):
        mem.fact(f)
    mem.belief("b", because=[["f1"]])
    store = mem.store
    assert isinstance(store, SQLiteStore)
    _assert_kept_right(store, ["b"])

    other = Memory(path)
    other.revise({"add_justifications": [{"head": "b", "premises": ["f2"]}]})
    other.close()
    _assert_kept_right(store, ["b"])

    with pytest.raises(RuntimeError), mem.atomic():
        mem.revise({"add_justifications": [{"head": "b", "premises": ["f3"]}]})
        _assert_kept_right(store, ["b"])
        raise RuntimeError("undo the block")
    _assert_kept_right(store, ["b"])

    with store.transaction():
        store.add_justifications([Justification(head="b", premises=("f3",))])
    _assert_kept_right(store, ["b"])


def test_members_moved_alike_share_one_premise_list() -> None:
    """The members of a dense group move alike: their kept lists stay one object, so the
    lean read decodes and compares them once."""
    stored = (("f1",), ("f2",))
    kept = LeanKept((0, (1, "h")))
    for head in ("m1", "m2"):
        kept.keep(head, stored, True)
    kept.keep("odd", stored, False)
    added = [
        Justification(head=h, premises=("f3",), origin=Origin.rule, rules=("r:1",))
        for h in ("m1", "m2", "odd")
    ]
    removed = [(h, ("f1",), ()) for h in ("m1", "m2", "odd")]
    kept.moved((0, (2, "i")), removed, added)
    assert kept.heads["m1"] == ((("f2",), ("f3",)), True)
    assert kept.heads["m1"][0] is kept.heads["m2"][0]
    assert "odd" not in kept.heads  # not plain: only a read can tell when it is again
    assert kept.at == (0, (2, "i"))


def test_a_kept_head_is_not_read_again_after_a_commit_moves_it() -> None:
    """The point of keeping: a head's answer, moved by the commit that re-justified it, is
    read from what was kept (no query of its justifications) and is what the table says."""
    mem, store = _small()
    _lean(store, ["b"])
    mem.revise({"add_justifications": [{"head": "b", "premises": ["f2"]}]})
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        assert (
            _lean(store, ["b"]) == {"b": _oracle(store, "b")} == {"b": ((("f1",), ("f2",)), True)}
        )
    finally:
        store.conn.set_trace_callback(None)
    assert not [s for s in statements if "group_concat" in s]


def test_a_read_past_the_bound_starts_afresh_and_answers_every_head(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past :data:`~stategraph.store.leankept.MAX_HEADS`, what was kept is dropped before the
    read, never in the middle of it: every head asked is answered, as the table says."""
    import stategraph.store.leankept as leankept

    monkeypatch.setattr(leankept, "MAX_HEADS", 2)
    mem, store = _small()
    for b in ("c", "d"):
        mem.belief(b, because=[["f2"]])
    _assert_kept_right(store, ["b"])
    _assert_kept_right(store, ["b", "c", "d"])  # three heads, one kept, a bound of two
    _assert_kept_right(store, ["b"])
    _assert_kept_right(store, ["c", "d"])  # one kept and two more: past the bound
    assert store._lean is not None and set(store._lean.heads) == {"c", "d"}
