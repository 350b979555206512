"""Ready properties: call one inside your own ``@given(scenarios())`` test.

Each takes a generated :class:`~stategraph.testing.graphs.Scenario` and, optionally, a
:data:`~stategraph.testing.engine.MemoryFactory` that makes a fresh memory configured as yours
is (policy and kinds, rule packs, grounder, candidate proposal, bounds), replays the scenario
on it and raises :class:`AssertionError` naming the step and the states at fault when the
memory breaks the property. Without a factory they drive a plain in-memory
:class:`~stategraph.Memory`, which is how stategraph's own suite uses them.

::

    from hypothesis import given
    from stategraph import Memory
    from stategraph.testing import check_locality, scenarios

    @given(scenarios(atoms=["subscribed(u,tv)", "renew(u,tv)"]))
    def test_my_memory_is_local(scenario):
        check_locality(scenario, lambda: Memory(rules=["my_pack.lp"], candidates=None))

The properties hold whatever the configuration adds to the contents (rule justifications,
candidate premises), because they read what the memory recorded rather than assume it:

- :func:`check_oracle`: after every step, what holds (and what is undefined) is the
  well-founded model of the program the memory's recorded justifications make, computed from
  scratch in plain Python; and when the memory recorded only what the scenario declared, the
  model of the contract's own mirror of it too.
- :func:`check_locality`: a revision reports nothing, and changes no state's value or
  justifications, outside the cone of the change (what its states reach along premise and
  ``unless`` edges, before or after it): hard negatives stay untouched.
- :func:`check_determinism`: the same memory and changes, built twice, give byte-identical
  reports and the same contents.
- :func:`check_rebuild`: after any sequence of changes, the incremental memory agrees with
  one built from scratch from its final contents, and (with rule packs) its rule links are
  the ones linking the final contents from scratch gives.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from stategraph import Memory
from stategraph.model import Justification, Origin
from stategraph.testing.engine import MemoryFactory, StategraphEngine, rebuild
from stategraph.testing.graphs import Mirror, Scenario
from stategraph.testing.harness import Engine, assert_matches_oracle, build, replay
from stategraph.testing.oracles.program import assert_follows_recorded_program
from stategraph.text.linking import link_from_scratch

__all__ = [
    "PROPERTIES",
    "Property",
    "assert_links_from_scratch",
    "assert_rebuild_agrees",
    "check_determinism",
    "check_locality",
    "check_oracle",
    "check_rebuild",
]

Property = Callable[[Scenario, MemoryFactory | None], None]
"""A ready property: a scenario and an optional memory factory; raises AssertionError."""

_Key = tuple[str, tuple[str, ...], tuple[str, ...]]
"""A justification's identity: head, premises, ``unless``."""

"""Origins a rule link with the same premises leaves as they are."""

_DECLARED = frozenset({Origin.declared, Origin.assumed})
"""Origins the mirror foresees: what the scenario declares, and the stand-in assumptions."""


def _engine(memory: MemoryFactory | None) -> StategraphEngine:
    """The adapter around a fresh memory: the user's, or a plain one in memory."""
    return StategraphEngine(memory=memory) if memory is not None else StategraphEngine()


def check_oracle(scenario: Scenario, memory: MemoryFactory | None = None) -> None:
    """After every add and change, the memory holds exactly the well-founded model.

    The model is computed from scratch (:func:`~stategraph.testing.well_founded_model`, the
    alternating fixpoint in plain Python, sharing no code with the engine) over the
    justifications the memory recorded, so it applies to any configuration; where the memory
    recorded nothing of its own (no rule, candidate or judge justifications), the mirror's
    model must agree as well, which also catches a justification recorded wrongly.

    Args:
        scenario: the memory to build and the changes to apply.
        memory: makes the memory to test; None, a plain in-memory one.

    Raises:
        AssertionError: naming the step and the states on which memory and model differ.
    """
    engine = _engine(memory)
    try:
        replay(engine, scenario, _matches_models)
    finally:
        engine.close()


def _matches_models(engine: Engine, mirror: Mirror, where: str) -> None:
    assert isinstance(engine, StategraphEngine)
    assert_follows_recorded_program(engine.memory, where)
    if all(j.origin in _DECLARED for j in engine.memory.justifications()):
        assert_matches_oracle(engine, mirror, where)


def check_locality(scenario: Scenario, memory: MemoryFactory | None = None) -> None:
    """A revision touches nothing outside the cone of its change.

    The cone is computed here, by breadth-first search from the states the change names
    along the premise and ``unless`` edges of the justifications the memory recorded before
    and after the change. A state outside it cannot depend on the change, so it must not be
    in the report, and its value and justifications must be as they were: a state related to
    the changed one only by topic or wording (a hard negative) is never touched.

    Args:
        scenario: the memory to build and the changes to apply.
        memory: makes the memory to test; None, a plain in-memory one.

    Raises:
        AssertionError: naming the change and the states it reached outside its cone.
    """
    engine = _engine(memory)
    try:
        build(engine, scenario)
        for step in scenario.steps():
            mem = engine.memory
            truth = {s.id: mem.truth(s.id) for s in mem.states()}
            justs = _by_head(mem.store.justifications())  # atom nodes' too
            report = engine.revise(step)
            cone = _reach(step.seeds(), justs, _by_head(mem.store.justifications()))
            where = f"after {step!r}"
            outside = sorted({e.id for e in report.entries} - cone)
            assert not outside, f"{where}: reported outside the cone of the change: {outside}"
            extra = sorted({c.id for c in report.changed} - step.touched())
            assert not extra, f"{where}: changed states the change does not name: {extra}"
            now = _by_head(mem.store.justifications())
            moved = sorted(
                sid
                for sid, value in truth.items()
                if sid not in cone
                and (mem.truth(sid) is not value or justs.get(sid) != now.get(sid))
            )
            assert not moved, f"{where}: states outside the cone of the change moved: {moved}"
    finally:
        engine.close()


def _by_head(justs: Iterable[Justification]) -> dict[str, frozenset[_Key]]:
    """Each head's justifications by identity (premises, ``unless``)."""
    out: dict[str, set[_Key]] = {}
    for j in justs:
        out.setdefault(j.head, set()).add(j.key)
    return {h: frozenset(keys) for h, keys in out.items()}


def _reach(seeds: Iterable[str], *graphs: Mapping[str, frozenset[_Key]]) -> set[str]:
    """Every state reachable from the seeds along premise and ``unless`` edges of any graph."""
    succ: dict[str, set[str]] = {}
    for graph in graphs:
        for head, keys in graph.items():
            for _head, premises, unless in keys:
                for src in (*premises, *unless):
                    succ.setdefault(src, set()).add(head)
    seen = set(seeds)
    queue = deque(sorted(seen))
    while queue:
        for nxt in sorted(succ.get(queue.popleft(), ())):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def check_determinism(scenario: Scenario, memory: MemoryFactory | None = None) -> None:
    """The same memory and changes, built twice, give byte-identical reports.

    A revision's report is evidence (it is logged, exported and replayed), so it may depend
    on nothing but the store, the change and the configuration: no clock, no randomness, no
    iteration order of a set. Both runs must also end with the same holding and undefined
    states and the same justifications.

    Args:
        scenario: the memory to build and the changes to apply.
        memory: makes the memory to test; it is called twice, and must make equal memories.
            None, a plain in-memory one.

    Raises:
        AssertionError: naming the first report (or the contents) that differ.
    """
    runs = []
    for _ in range(2):
        engine = _engine(memory)
        try:
            replay(engine, scenario)
            mem = engine.memory
            end = (
                sorted(mem.holding()),
                sorted(mem.undefined()),
                sorted((j.key, j.origin.value, j.rules) for j in mem.store.justifications()),
            )
            runs.append(([r.to_json() for r in engine.reports], end))
        finally:
            engine.close()
    (first, end1), (second, end2) = runs
    for n, (a, b) in enumerate(zip(first, second, strict=True)):
        assert a == b, f"report {n + 1} differs between two identical runs:\n{a}\n{b}"
    assert end1 == end2, f"two identical runs end with different contents:\n{end1}\n{end2}"


def check_rebuild(
    scenario: Scenario,
    memory: MemoryFactory | None = None,
    *,
    bulk: bool = False,
    rebuild_at: str | Path | None = None,
) -> None:
    """Incremental equals rebuild: the memory a sequence of changes leaves agrees with one
    built from scratch from its final contents.

    A revision solves only the part of the cone its change can move and keeps the rest;
    this is the check that what it kept is what a from-scratch computation gives. The memory
    must also know every state the scenario wrote.

    Args:
        scenario: the memory to build and the changes to apply.
        memory: makes the memory to test; None, a plain in-memory one.
        bulk: load the rebuilt memory with ``bulk_load`` (one whole-program solve) instead
            of one revision (one cone covering everything).
        rebuild_at: where to keep the rebuilt memory (a path or store URL); None, in memory.

    Raises:
        AssertionError: naming the states on which the two disagree.
    """
    engine = _engine(memory)
    try:
        mirror = replay(engine, scenario)
        known = {s.id for s in engine.memory.states()}
        assert known == set(mirror.nodes), (
            f"the memory knows {sorted(known - set(mirror.nodes))} the scenario never wrote "
            f"and lacks {sorted(set(mirror.nodes) - known)}"
        )
        assert_rebuild_agrees(engine.memory, bulk=bulk, path=rebuild_at)
    finally:
        engine.close()


def assert_rebuild_agrees(
    memory: Memory, *, bulk: bool = False, path: str | Path | None = None
) -> None:
    """``memory`` agrees with a memory rebuilt from scratch from its contents
    (:func:`~stategraph.testing.rebuild`), and, with rule packs, its rule links are linking's
    from scratch (:func:`assert_links_from_scratch`).

    Raises:
        AssertionError: naming the states on which they disagree.
    """
    fresh = rebuild(memory, bulk=bulk, path=path)
    try:
        for name, mine, theirs in (
            ("holding", memory.holding(), fresh.holding()),
            ("undefined", memory.undefined(), fresh.undefined()),
        ):
            assert mine == theirs, (
                f"{name} set differs from a rebuild from scratch; incremental only "
                f"{sorted(mine - theirs)}, rebuild only {sorted(theirs - mine)}"
            )
        assert {s.id for s in fresh.states()} == {s.id for s in memory.states()}
        assert {s.id: fresh.truth(s.id) for s in fresh.states()} == {
            s.id: memory.truth(s.id) for s in memory.states()
        }
    finally:
        fresh.close()
    if memory.rules:
        assert_links_from_scratch(memory)


def assert_links_from_scratch(memory: Memory, where: str = "") -> None:
    """The rule justifications ``memory`` holds are those its rule packs give its states
    linked from scratch with clingo (:func:`~stategraph.text.linking.link_from_scratch`).

    Linking is incremental (a new memory relinks only the groups of memories watching what its
    atoms match, and writes only the justifications that differ), so a missed watch, a stale
    date or a wrong delta shows up here as a difference.

    Raises:
        AssertionError: listing the links only one side has.
    """
    held = memory.store.justifications()
    mine = {(j.key, j.rules) for j in held if j.origin is Origin.rule}
    linked = link_from_scratch(memory.store.states(), memory.rules, memory.policy)
    scratch = {(j.key, j.rules) for j in linked.justifications.values()}
    at = f" {where}" if where else ""
    assert mine == scratch, (
        f"rule links{at} differ from linking from scratch; incremental only "
        f"{sorted(mine - scratch)}, from scratch only {sorted(scratch - mine)}"
    )


PROPERTIES: dict[str, Property] = {
    "well-founded oracle": check_oracle,
    "locality": check_locality,
    "determinism": check_determinism,
    "incremental = rebuild": check_rebuild,
}
"""Every ready property by name, to run them all on the same scenarios."""
