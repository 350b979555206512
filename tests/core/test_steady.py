"""Steady heads (:mod:`stategraph.engine.steady`): a revision that grades the heads it only
re-justifies from their justifications' identities must report and write exactly what the
ordinary path does. Every revision below is computed both ways on the same store, and the two
are compared before the lean one is committed: the report, every write, and the edges' flags
as each would leave them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stategraph.engine.revise as revise_module
import stategraph.memory as memory_module
from stategraph import Memory
from stategraph.bench.perf.densegen import generate
from stategraph.engine.derivation import justification_value
from stategraph.engine.graph import SupportGraph
from stategraph.engine.revise import Revision
from stategraph.engine.steady import steady_heads
from stategraph.errors import StategraphError
from stategraph.model import EdgeCheck, Justification, Origin
from stategraph.store.sqlite import SQLiteStore
from stategraph.text.candidates import CandidateProposer
from stategraph.values import TRUE


class _Whole:
    """The store, without the lean read: the ordinary path."""

    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    reads_lean = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _effect(store: SQLiteStore, rev: Revision, graph: SupportGraph) -> dict[str, Any]:
    """What a revision writes, with each edge's flag as it would be after the write (a lean
    revision leaves out the flags it does not change), into the states of ``graph``: those
    the lean path loaded. What rests on a steady head it neither loads nor solves, and keeps
    its stored flags, which stay valid (the ordinary path may choose another support of
    equal height there, which the comparison leaves out)."""
    w = rev.writes
    pairs = [(src, head) for _, src, head in w.follow]
    stored = {(r[0], r[1]): r[2] for r in store.edge_rows(pairs)}
    follow = {
        (v, src, head)
        for v, src, head in w.follow
        if stored.get((src, head)) != v and head in graph.states
    }
    # How much is solved, and so whether that part needed the alternating fixpoint, is not
    # the answer (docs/revision.md): the lean path does not solve what rests on a steady head.
    return {
        "report": rev.report.model_dump_json(exclude={"solved", "method"}),
        "new": [s.model_dump_json() for s in w.new_states],
        "deactivated": w.deactivated,
        "added": [j.model_dump_json() for j in w.added],
        "removed": w.removed,
        "truth": w.truth,
        "dropped": w.dropped_edges,
        "follow": follow,
    }


def _stored_flags_hold(store: SQLiteStore, after: SupportGraph, head: str) -> bool:
    """Whether the stored flags of the edges into ``head`` are still valid after the change
    (``after``: the ordinary path's graph, solved): every edge open if it does not hold,
    else the open ones cover a justification that holds (a support)."""
    justs = after.justifications_of(head)
    cited = sorted({x for j in justs for x in (*j.premises, *j.unless)})
    opened = {r[0] for r in store.edge_rows([(x, head) for x in cited]) if r[2]}
    if after.value(head) is not TRUE:
        return opened == set(cited)
    return any(
        justification_value(j, after.value) is TRUE and opened.issuperset((*j.premises, *j.unless))
        for j in justs
    )


class _Compared:
    """Replaces the memory's solve by one that solves both ways and compares."""

    def __init__(self) -> None:
        self.revisions = 0
        self.steady = 0
        self.narrowed = 0  # revisions that solved less than the ordinary path
        self.past_reach = 0  # flags the ordinary path changes where the lean one does not go

    def __call__(self, reads: Any, *args: Any, **kwargs: Any) -> Any:
        lean, graph = revise_module.solve(reads, *args, **kwargs)
        whole, after = revise_module.solve(_Whole(reads), *args, **kwargs)
        assert _effect(reads, lean, graph) == _effect(reads, whole, graph)
        beyond = {h for _, _, h in whole.writes.follow} - graph.states.keys()
        # an atom node set aside (it held and only gained a justification) is solved by
        # neither path: its new edges are written closed, its support kept
        beyond = {h for h in beyond if after.justifications_of(h)}
        self.past_reach += len(beyond)
        for head in sorted(beyond):
            assert _stored_flags_hold(reads, after, head)
        assert lean.report.solved <= whole.report.solved
        self.narrowed += lean.report.solved < whole.report.solved
        self.revisions += 1
        return lean, graph


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Compared]:
    check = _Compared()
    found = steady_heads

    def counting(*args: Any, **kwargs: Any) -> Any:
        out = found(*args, **kwargs)
        check.steady += len(out)
        return out

    monkeypatch.setattr(memory_module, "solve_change", check)
    monkeypatch.setattr(revise_module, "steady_heads", counting)
    yield check


def test_a_dense_history_is_revised_the_same_lean(compared: _Compared, tmp_path: Path) -> None:
    """Dense memories from text, then moves superseded and retracted: whatever the lean path
    reads or leaves unread, every revision has the ordinary path's effect. (Rule links go
    through atom nodes, so a dense fact re-justifies an atom's node, not its memories: the
    heads it re-justifies are few, and the random changes below make the steady ones.)"""
    work = generate(260, 0)
    # candidates.v2 gives each memory up to 8 candidates: a dense history, whose steady heads
    # carry what rests on them (candidates.v3 gives fewer, and leaves less to narrow)
    mem = Memory(
        tmp_path / "m.db",
        rules="all",
        grounder="stategraph.rule_grounder.v1",
        candidates=CandidateProposer(),
    )
    for m in work.memories():
        mem.add(m.state())
    for change in work.changes(12):
        mem.revise(change)
    assert compared.revisions == 260 + 12
    assert mem.store.verify(deep=True) > 0


_FACTS = [f"f{i}" for i in range(6)]
_HEADS = [f"b{i}" for i in range(5)]

_step = st.one_of(
    st.tuples(st.just("fact"), st.integers(0, 99)),
    st.tuples(
        st.just("justify"),
        st.sampled_from(_HEADS),
        st.lists(st.sampled_from(_FACTS), min_size=1, max_size=3, unique=True),
    ),
    st.tuples(st.just("unjustify"), st.sampled_from(_HEADS), st.integers(0, 9)),
    st.tuples(st.just("retract"), st.sampled_from(_FACTS)),
    st.tuples(
        st.just("odd"),
        st.sampled_from(_HEADS),
        st.sampled_from(["unless", "on_belief", "recovered"]),
        st.sampled_from(_FACTS),
    ),
    st.tuples(st.just("many"), st.sampled_from(_FACTS)),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(_step, min_size=4, max_size=18))
def test_random_changes_are_revised_the_same_lean(
    compared: _Compared, steps: list[tuple[Any, ...]]
) -> None:
    """Facts, beliefs justified by sets of them, and changes that add and remove
    justifications of many beliefs at once, retract facts, and make a belief ineligible
    (an ``unless``, a premise that is a belief, a recovered justification)."""
    mem = Memory()
    for f in _FACTS:
        mem.fact(f)
    for h in _HEADS:
        mem.belief(h, because=[[_FACTS[0]]])
    for step in steps:
        try:
            _apply(mem, step)
        except Exception as exc:  # a change the store refuses is refused both ways alike
            assert isinstance(exc, StategraphError), exc


def _apply(mem: Memory, step: tuple[Any, ...]) -> None:
    kind = step[0]
    justs = {h: [j for j in mem.justifications(h)] for h in _HEADS}
    if kind == "fact":
        fid = f"n{step[1]}"
        if mem.store.state(fid) is None:
            mem.revise({"assert": [{"id": fid, "kind": "fact"}]})
    elif kind == "justify":
        mem.revise({"add_justifications": [{"head": step[1], "premises": step[2]}]})
    elif kind == "unjustify":
        found = justs[step[1]]
        if found:
            j = found[step[2] % len(found)]
            mem.revise(
                {"remove_justifications": [j.model_dump(include={"head", "premises", "unless"})]}
            )
    elif kind == "retract":
        mem.retract(step[1])
    elif kind == "odd":
        head, how, fact = step[1], step[2], step[3]
        if how == "unless":
            j: dict[str, Any] = {"head": head, "premises": [_FACTS[1]], "unless": [fact]}
        elif how == "on_belief":
            other = next(h for h in _HEADS if h != head)
            j = {"head": head, "premises": [other, fact]}
        else:
            j = {"head": head, "premises": [fact], "origin": "recovered"}
        mem.revise({"add_justifications": [j]})
    else:  # a new fact justifying every belief at once, each dropping its first justification
        fid = f"m{len(mem.store.ids())}"
        adds = [{"head": h, "premises": [fid, step[1]]} for h in _HEADS]
        drops = [
            justs[h][0].model_dump(include={"head", "premises", "unless"})
            for h in _HEADS
            if len(justs[h]) > 1
        ]
        mem.revise(
            {
                "assert": [{"id": fid, "kind": "fact"}],
                "add_justifications": adds,
                "remove_justifications": drops,
            }
        )


def test_a_steady_head_reports_the_justification_a_change_removes(compared: _Compared) -> None:
    """Nothing moves: the belief keeps holding through another justification, and the entry
    names the one removed (the lean path must not skip it for want of a moved premise)."""
    mem = Memory()
    for f in _FACTS:
        mem.fact(f)
    mem.belief("b0", because=[[_FACTS[0]], [_FACTS[0], _FACTS[1]]])
    report = mem.revise(
        {"remove_justifications": [{"head": "b0", "premises": [_FACTS[0]], "unless": []}]}
    )
    assert compared.steady == 1
    (entry,) = report.entries
    assert entry.verdict.value == "kept" and entry.reason.cause == "alternative_support"
    assert entry.reason.surviving is not None
    assert entry.reason.surviving.premises == (_FACTS[0], _FACTS[1])


def test_removing_a_justification_a_head_lacks_is_refused_as_before(compared: _Compared) -> None:
    """A head stays lean only for justifications it has: one it lacks is named by validation,
    exactly as on the ordinary path (the lean path must not take the change's word for it)."""
    from stategraph.errors import InvalidChangeError

    mem = Memory()
    for f in _FACTS:
        mem.fact(f)
    mem.belief("b0", because=[[_FACTS[0]], [_FACTS[1]]])
    missing = {"head": "b0", "premises": [_FACTS[2]], "unless": []}
    with pytest.raises(InvalidChangeError, match="has no justification"):
        mem.revise({"remove_justifications": [missing]})
    assert compared.steady == 0


def test_the_lean_read_tells_plain_heads_and_open_edges(tmp_path: Path) -> None:
    """Plain is told by the database from the columns: rules alone in ``extra`` are plain; a
    note, a check or a proposal is not, nor an ``unless``. The open edges are read from the
    index of open edges."""
    mem = Memory(tmp_path / "m.db")
    for f in ("f1", "f2", "f3"):
        mem.fact(f)
    for b in ("plain", "noted", "checked", "blocked"):
        mem.belief(b, because=[["f1"]])
    rule = {"origin": Origin.rule, "rules": ("r:1",)}
    odd = {
        "plain": {},
        "noted": {"notes": {"f2": "why"}},
        "checked": {"checked": {"f2": EdgeCheck.dependency}},
        "blocked": {"unless": ("f3",)},
    }
    store = mem.store
    assert isinstance(store, SQLiteStore)
    with store.transaction():
        store.add_justifications(
            Justification(head=h, premises=("f2",), **rule, **more) for h, more in odd.items()
        )
    read = store.lean_heads(SupportGraph(), odd)
    assert {h: lean.plain for h, lean in read.heads.items()} == {
        "plain": True,
        "noted": False,
        "checked": False,
        "blocked": False,
    }
    assert read.heads["plain"].premises == (("f1",), ("f2",))
    # f1 carries it (the support); the edge from f2, written without knowing better, is open
    assert read.heads["plain"].open == {"f1", "f2"}
    assert read.cited["f2"] == ("fact", TRUE)
