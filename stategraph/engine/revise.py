"""Revision: apply a change, find the affected cone, settle it in clingo, grade the outcome.

The steps, each cone-local so that cost follows the cone and not the store:

1. validate the change against the graph (nothing is touched if it is malformed);
2. apply it to the graph (the revision's own working copy of the cone);
3. the cone: every state reachable from the changed ones along premise and ``unless`` edges,
   and within it the states the change can move (:class:`~stategraph.engine.graph.Cone`);
4. those states as a normal program, every other state frozen at its current value, solved
   for its well-founded model (:mod:`stategraph.engine.logic`);
5. the depth bound: states past ``max_depth`` whose value would change are set undecided;
6. verdicts, reasons and consequences per touched state (:meth:`_Grader.entry`), which also
   covers the states that keep holding through their support while something they cite
   changed value (loaded only then);
7. the new supports of the solved states that hold, which decide the open edges next time.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from stategraph.engine import doubt, held_gates
from stategraph.engine.anchors import anchor_candidates, anchored
from stategraph.engine.bounded import frontier_outcome, tainted
from stategraph.engine.derivation import (
    Derivable,
    body,
    derivation_levels,
    failures,
    justification_value,
)
from stategraph.engine.graph import Cone, JustKey, SupportGraph
from stategraph.engine.logic import Program, Rule, negative_components, path_of
from stategraph.engine.policy import Policy
from stategraph.engine.steady import (
    LeanRead,
    Steady,
    lean_candidates,
    steady_heads,
    supports_needed,
    whole,
)
from stategraph.errors import (
    DuplicateStateError,
    InvalidChangeError,
    SelfJustificationError,
    UnknownStateError,
)
from stategraph.model import (
    Change,
    ChangedState,
    Consequence,
    DecidedBy,
    EdgeOutcome,
    Entry,
    Justification,
    JustificationRef,
    LostSupport,
    Origin,
    Reason,
    Report,
    State,
    Truth,
    Verdict,
    trusted,
)
from stategraph.nodes import is_internal
from stategraph.values import FALSE, TRUE, UNDEFINED

__all__ = ["LinkWrites", "Revision", "Writes", "revise", "seeds", "validate"]


@dataclass(frozen=True)
class LinkWrites:
    """What the store's atom index records with a revision (:mod:`stategraph.text.atom_index`).

    Attributes:
        demand_add: atoms whose firings linking keeps from now on.
        demand_drop: atoms whose firings it no longer keeps.
        watch_add: ``(key, atom)``: lookup keys an atom's firings now read.
        watch_drop: ``(key, atom)``: lookup keys they no longer read.
        complete: the packs for which every demanded atom and watch is now recorded (set
            after a change that linked every memory afresh: the index is rebuilt), or None
            to leave that as it is.
    """

    demand_add: tuple[str, ...] = ()
    demand_drop: tuple[str, ...] = ()
    watch_add: tuple[tuple[str, str], ...] = ()
    watch_drop: tuple[tuple[str, str], ...] = ()
    complete: tuple[str, ...] | None = None

    def __bool__(self) -> bool:
        return bool(
            self.demand_add
            or self.demand_drop
            or self.watch_add
            or self.watch_drop
            or self.complete is not None
        )


@dataclass
class Writes:
    """What the store must persist for one revision."""

    new_states: list[State] = field(default_factory=list)
    deactivated: dict[str, str | None] = field(default_factory=dict)
    added: list[Justification] = field(default_factory=list)
    removed: list[JustKey] = field(default_factory=list)
    truth: dict[str, Truth] = field(default_factory=dict)
    dropped_edges: list[tuple[str, str]] = field(default_factory=list)
    """``(src, head)`` pairs no justification of ``head`` cites any more."""
    follow: list[tuple[int, str, str]] = field(default_factory=list)
    """``(open, src, head)`` for every edge into a solved state (see :class:`Cone`)."""
    link: LinkWrites = field(default_factory=LinkWrites)
    """What the atom index records (set by the caller that linked the change)."""


class Loader(Protocol):
    """What a revision reads beyond the subgraph it starts with (a store)."""

    def extend(self, graph: SupportGraph, heads: Iterable[str]) -> None:
        """Add these heads' justifications, and the states those cite, to ``graph``."""
        ...

    def heads_citing(self, ids: Iterable[str]) -> set[str]:
        """Heads whose justifications cite any of these ids."""
        ...


class Reads(Loader, Protocol):
    """Every read one revision makes of a store: its cone, the subgraph it starts from, and
    what :class:`Loader` reads on the way. The memory hands a store down as this, so the engine
    reads what it needs itself and never calls back up."""

    def cone(
        self,
        seeds: Iterable[str],
        max_depth: int | None = None,
        max_cone: int | None = None,
        cited: Iterable[str] = (),
    ) -> Cone:
        """The affected cone of the seeds, walked up to the bounds."""
        ...

    def subgraph(self, ids: Iterable[str] = (), full: bool = False) -> SupportGraph:
        """The states ``ids``, their justifications, and the states those cite."""
        ...

    def truths(self, ids: Iterable[str]) -> Mapping[str, Truth]:
        """The stored truth values of those of these states that are stored."""
        ...

    def add_boundary(self, graph: SupportGraph, ids: Iterable[str]) -> None:
        """Add these states to ``graph`` without their justifications (those not there yet):
        a revision cites them, and reads nothing of them but their values."""
        ...

    def justifications_for(self, heads: Iterable[str]) -> list[Justification]:
        """The stored justifications of these heads (the witnesses of anchored nodes:
        :mod:`stategraph.engine.anchors`)."""
        ...


class LeanReads(Reads, Protocol):
    """A store that can also read heads lean (:mod:`stategraph.engine.steady`), and says so
    with a true ``reads_lean``: the SQLite store. Any other is read whole."""

    reads_lean: bool

    def lean_heads(self, graph: SupportGraph, heads: Iterable[str]) -> LeanRead:
        """Load these heads' states into ``graph``; read their justifications' premises."""
        ...

    def justifications_by_key(self, keys: Iterable[JustKey]) -> dict[JustKey, Justification]:
        """The stored justifications with these identities."""
        ...


@dataclass(frozen=True)
class Revision:
    """A computed revision: the report, and what the store must persist."""

    report: Report
    writes: Writes
    depth: dict[str, int] = field(default_factory=dict)
    """Hop distance from the changed states of every state the change reached (its cone)."""


@dataclass(frozen=True)
class _Lean:
    """A steady head (:class:`~stategraph.engine.steady.Steady`) with the justifications its
    report names, whole: its support and what it lost, by identity."""

    steady: Steady
    justs: dict[JustKey, Justification]

    @property
    def support(self) -> Justification:
        return self.justs[self.steady.support]


def validate(graph: SupportGraph, policy: Policy, change: Change) -> None:
    """Check a change against the graph without touching it.

    Raises:
        UnknownStateError, DuplicateStateError, InvalidKindError, SelfJustificationError,
        InvalidChangeError: naming the offending id and part of the change (an empty change
            is refused too: logged, it would be an entry that records nothing).
    """
    if change.is_empty():
        raise InvalidChangeError(
            "change",
            "nothing to change: name states to retract, assert or supersede, or "
            "justifications to add or remove",
        )
    new_ids: dict[str, State] = {}
    named_in: dict[str, str] = {}
    for field_name, st in [("assert", s) for s in change.assert_] + [
        ("supersede", s.with_) for s in change.supersede
    ]:
        policy.of(st)
        if st.id in graph:
            raise DuplicateStateError(st.id, field_name)
        if st.id in new_ids:
            raise _twice(field_name, st.id, named_in[st.id], "give each new state its own id")
        new_ids[st.id] = st
        named_in[st.id] = field_name
    gone: dict[str, str] = {}
    for field_name, sid in [("retract", r) for r in change.retract] + [
        ("supersede", s.id) for s in change.supersede
    ]:
        if sid not in graph:
            raise UnknownStateError(sid, f"named in {field_name}")
        if sid in gone:
            raise _twice(field_name, sid, gone[sid], "retract it or supersede it, once")
        if sid in graph.inactive:
            raise InvalidChangeError(field_name, f"state {sid!r} is already inactive", sid)
        gone[sid] = field_name

    def known(sid: str) -> State | None:
        return new_ids.get(sid) or graph.states.get(sid)

    for j in change.add_justifications:
        head = known(j.head)
        if head is None:
            raise UnknownStateError(j.head, "head of an added justification")
        if j.head in j.premises or j.head in j.unless:
            raise SelfJustificationError(j.head)
        if policy.is_exogenous(head):
            raise InvalidChangeError(
                "add_justifications",
                f"{j.head!r} is a {head.kind}, which holds without justification; "
                "justify a derived state (belief, plan, action) instead",
                j.head,
            )
        for p in j.premises:
            if known(p) is None:
                raise UnknownStateError(p, f"premise of {j.head}")
        for p in j.checked:
            if p not in j.premises:
                raise InvalidChangeError(
                    "add_justifications", f"checked premise {p!r} is not a premise", j.head
                )
    for j in change.remove_justifications:
        if graph.justification(j.key) is None:
            raise InvalidChangeError(
                "remove_justifications",
                f"{j.head!r} has no justification {list(j.premises)} unless {list(j.unless)}",
                j.head,
            )


def _twice(field_name: str, sid: str, first: str, fix: str) -> InvalidChangeError:
    """A change that names one id twice where once is the most it may: said as such, not as
    a clash with the store, where the id may well be free."""
    where = field_name if first == field_name else f"{first} and {field_name}"
    return InvalidChangeError(
        field_name, f"state id {sid!r} appears twice in this change (in {where}): {fix}", sid
    )


def _apply(graph: SupportGraph, policy: Policy, change: Change) -> Writes:
    """Apply the change's structural part; truth values come later."""
    writes = Writes()
    for sid in change.retract:
        graph.deactivate(sid)
        writes.deactivated[sid] = None
    for s in change.supersede:
        graph.deactivate(s.id, s.with_.id)
        writes.deactivated[s.id] = s.with_.id
    for st in (*change.assert_, *(s.with_ for s in change.supersede)):
        st = policy.normalise(st)
        graph.add_state(st)
        writes.new_states.append(st)
    for j in change.remove_justifications:
        graph.remove_justification(j.key)
        writes.removed.append(j.key)
    for j in change.add_justifications:
        graph.add_justification(j)
        writes.added.append(j)
    return writes


def seeds(change: Change) -> dict[str, str]:
    """The states a change acts on directly, with how: the roots of its affected cone."""
    seeds: dict[str, str] = {}
    for j in (*change.add_justifications, *change.remove_justifications):
        seeds.setdefault(j.head, "justification")
    for sid in change.retract:
        seeds[sid] = "retracted"
    for s in change.supersede:
        seeds[s.id] = "superseded"
    for st in (*change.assert_, *(s.with_ for s in change.supersede)):
        seeds[st.id] = "asserted"
    return seeds


def moving_seeds(reads: Reads, change: Change) -> tuple[list[str], set[str]]:
    """The seeds a change's cone is walked from, and the atom nodes left out of them: those
    that held and only gain justifications (a state that holds keeps holding while its
    support does, and a new justification does not take that away; were its support to fail,
    the walk from whatever the change does to it reaches it). A dense atom's node gains a
    carrier with each memory that says it: its thousand dependents are not walked for that."""
    roots = seeds(change)
    gaining = {sid for sid, how in roots.items() if how == "justification" and is_internal(sid)}
    gaining -= {j.head for j in change.remove_justifications}
    if not gaining:
        return list(roots), set()
    held = {sid for sid, t in reads.truths(sorted(gaining)).items() if t is TRUE}
    return [sid for sid in roots if sid not in held], held


class _ConeProgram:
    """Builds the cone's normal program; states outside the cone are frozen constants.

    A frozen-true literal is dropped from its rule, a frozen-false premise (or a frozen-true
    ``unless``) drops the whole rule, and a frozen-undefined state is kept as a node that
    blocks itself (``n :- not n``), which is undefined in the well-founded model; so is a
    state a bounded walk left uncertain (:mod:`stategraph.engine.bounded`), whatever its
    stored value.
    An unchecked candidate premise ``p`` becomes a gate, a node ``c`` with ``c :- p`` and
    ``c :- not c`` (:attr:`gates`), which :mod:`stategraph.engine.doubt` reads as true while
    ``p`` holds or is only in doubt, undefined once it is false. A premise outside the cone
    that is stored undefined is in doubt: its gate holds (it is left out of the body); one a
    bounded walk left uncertain may be false: its gate is undefined (:attr:`strict`). A steady
    head (:mod:`stategraph.engine.steady`) is one unconditional rule.
    """

    def __init__(
        self,
        graph: SupportGraph,
        policy: Policy,
        cone: frozenset[str],
        uncertain: frozenset[str] = frozenset(),
        steady: Collection[str] = (),
    ) -> None:
        self.graph = graph
        self.cone = cone
        self.uncertain = uncertain
        self.program = Program()
        self._undefined: set[Hashable] = set()
        self.gates: dict[Hashable, str] = {}
        """Each gate of a candidate premise in the cone, to its premise."""
        self.strict: set[tuple[JustKey, str]] = set()
        """The candidate edges whose premise the bounded walk left uncertain."""
        for sid in sorted(cone):
            if not graph.is_active(sid):
                continue
            if policy.is_exogenous(graph.states[sid]):
                self.program.facts.append(sid)
                continue
            if sid in steady:  # true on facts, on no cycle: one rule has the same model
                self.program.rules.append(Rule(sid))
                continue
            # Justifications over facts outside the cone each freeze to ``sid.`` (sixty of
            # them, for a memory a dense pattern supports): one is kept, as a normal program's
            # model and its cycles do not change when a rule is repeated.
            unconditional = False
            for j in graph.justifications_of(sid):
                rule = self._rule(j)
                if rule is None:
                    continue
                if not (rule.pos or rule.neg):
                    if unconditional:
                        continue
                    unconditional = True
                self.program.rules.append(rule)

    def _frozen(self, sid: str) -> Truth | None:
        if sid in self.cone:
            return None
        return UNDEFINED if sid in self.uncertain else self.graph.value(sid)

    def _undefined_node(self, node: Hashable) -> Hashable:
        if node not in self._undefined:
            self._undefined.add(node)
            self.program.rules.append(Rule(node, neg=(node,)))
        return node

    def _rule(self, j: Justification) -> Rule | None:
        candidates = set(j.candidates()) if j.origin is Origin.recovered else ()
        pos: list[Hashable] = []
        for p in body(j):
            value = self._frozen(p)
            if value is TRUE:
                continue
            if p in candidates:
                if value is UNDEFINED and p not in self.uncertain:
                    continue  # only in doubt: the gate holds (stategraph.engine.doubt)
                aux = ("candidate", j.key, p)
                if aux not in self._undefined and value is None:
                    self.program.rules.append(Rule(aux, (p,)))
                    self.gates[aux] = p
                elif value is UNDEFINED:
                    self.strict.add((j.key, p))
                pos.append(self._undefined_node(aux))
            elif value is FALSE:
                return None
            else:
                pos.append(p if value is None else self._undefined_node(p))
        neg: list[Hashable] = []
        for u in j.unless:
            value = self._frozen(u)
            if value is FALSE:
                continue
            if value is TRUE:
                return None
            neg.append(u if value is None else self._undefined_node(u))
        return Rule(j.head, tuple(pos), tuple(neg))


def named(change: Change) -> set[str]:
    """Every state a change names: what a revision reads besides its cone."""
    ids = {*change.retract, *(s.id for s in change.supersede)}
    ids.update(s.id for s in (*change.assert_, *(s.with_ for s in change.supersede)))
    for j in (*change.add_justifications, *change.remove_justifications):
        ids.update((j.head, *j.premises, *j.unless))
    return ids


def solve(
    reads: Reads,
    policy: Policy,
    change: Change,
    max_depth: int | None = None,
    max_cone: int | None = None,
    compatible: frozenset[str] = frozenset(),
) -> tuple[Revision, SupportGraph]:
    """Revise a (prepared) change from what the store holds: read its cone and the subgraph
    it starts from, then :func:`revise` it. The heads the change only re-justifies are read
    lean where the store can (:class:`LeanReads`), and those that turn out steady are never
    read whole (:mod:`stategraph.engine.steady`).

    This is the solve step of one revision; the judge's settling calls it again after each
    round of answers, with nothing above the engine in between.

    Returns:
        The revision and the graph it was computed on (which :func:`revise` grew in place).
    """
    cited = {x for j in change.add_justifications for x in (*j.premises, *j.unless)}
    walk_from, gaining = moving_seeds(reads, change)
    cone = reads.cone(walk_from, max_depth, max_cone, cited)
    cone = _past_anchors(reads, change, cone, walk_from)
    # an atom node that held and only gains justifications, which the walk does not reach
    # along an open edge, keeps its value and its support: its new justifications are written,
    # not solved (a dense atom's node is never read whole for a new carrier)
    aside = gaining - cone.solve
    inner = change
    if aside:
        keep = tuple(j for j in change.add_justifications if j.head not in aside)
        inner = change.model_copy(update={"add_justifications": keep})
    acted, cited_only = _named(inner)
    lean = lean_candidates(inner, cone) if getattr(reads, "reads_lean", False) else set()
    if not lean:
        graph = reads.subgraph(acted | cone.solve)
        reads.add_boundary(graph, cited_only)
        rev = revise(graph, policy, inner, cone, reads, max_depth, compatible)
    else:
        names = acted - lean
        graph = reads.subgraph(names)
        steady = _read_lean(reads, graph, policy, inner, lean)
        cone = cone.narrowed(steady.keys())  # what rests on a steady head cannot move through it
        reads.extend(graph, cone.solve - names - lean)
        reads.add_boundary(graph, cited_only)
        rev = revise(graph, policy, inner, cone, reads, max_depth, compatible, steady)
    if aside:
        rev = _with_aside(rev, change, [j for j in change.add_justifications if j.head in aside])
    return rev, graph


def _past_anchors(reads: Reads, change: Change, cone: Cone, walk_from: Collection[str]) -> Cone:
    """The cone narrowed past its anchored nodes (:mod:`stategraph.engine.anchors`): an
    atom node that keeps holding on what the change cannot move passes nothing on; and, in a
    wide cone walked whole, past its held gates (:mod:`stategraph.engine.held_gates`)."""
    candidates = anchor_candidates(cone.solve, walk_from)
    fixed: set[str] = set()
    if candidates:
        justs = reads.justifications_for(candidates)
        truth = reads.truths({*candidates, *(p for j in justs for p in j.premises)})
        fixed = anchored(candidates, justs, truth, cone.solve | cone.uncertain, change)
    if len(cone.solve) > held_gates.WIDE and cone.limit is None:
        return held_gates.past_held_gates(
            cone, fixed, change, seeds(change), reads.justifications_for, reads.truths
        )
    return cone.narrowed(fixed) if fixed else cone


def _named(change: Change) -> tuple[set[str], set[str]]:
    """The states a change acts on (its heads and the states it changes: read with their
    justifications), and those it only cites (read for their values: a dense atom's node
    cited by a new firing is not read whole)."""
    acted = {*change.retract, *(s.id for s in change.supersede)}
    acted.update(s.id for s in (*change.assert_, *(s.with_ for s in change.supersede)))
    cited: set[str] = set()
    for j in (*change.add_justifications, *change.remove_justifications):
        acted.add(j.head)
        cited.update(j.premises)
        cited.update(j.unless)
    return acted, cited - acted


def _with_aside(rev: Revision, change: Change, aside: list[Justification]) -> Revision:
    """A revision with the justifications it set aside written too: each gives a state that
    holds, through another support, one more justification, whose edges are closed (its
    support does not cite them)."""
    writes = rev.writes
    writes.added.extend(aside)
    writes.follow.extend(
        (0, src, j.head) for j in aside for src in sorted({*j.premises, *j.unless})
    )
    report = rev.report.model_copy(update={"change": change})
    return Revision(report, writes, rev.depth)


def _read_lean(
    reads: Reads, graph: SupportGraph, policy: Policy, change: Change, lean: set[str]
) -> dict[str, _Lean]:
    """Read the candidate heads lean into ``graph``: the steady ones with what their report
    names, and the values of what they cite; the others whole."""
    store: LeanReads = reads  # type: ignore[assignment]
    read = store.lean_heads(graph, lean)
    found = steady_heads(read, graph, policy, change)
    given = {j.key: j for j in (*change.remove_justifications, *change.add_justifications)}
    stored = store.justifications_by_key(supports_needed(found, given))
    steady: dict[str, _Lean] = {}
    for head, s in found.items():
        steady[head] = _Lean(s, whole((s.support, *(k for k, _ in s.lost)), stored, given))
    # the members of a dense group cite one set (the same object): each is walked once
    for cited in {id(s.cited): s.cited for s in found.values()}.values():
        for x in cited:
            if x not in graph.truth and x in read.cited:
                graph.set_truth(x, read.cited[x][1])
    rest = lean - steady.keys()
    if rest:
        reads.extend(graph, rest)
    return steady


def revise(
    graph: SupportGraph,
    policy: Policy,
    change: Change,
    cone: Cone,
    loader: Loader,
    max_depth: int | None = None,
    compatible: frozenset[str] = frozenset(),
    steady: Mapping[str, _Lean] | None = None,
) -> Revision:
    """Apply ``change`` to ``graph`` and compute the revision.

    The graph is mutated (structure and truth values): it is the working set the store
    loaded for this revision (:meth:`~stategraph.store.SQLiteStore.subgraph`), and grows
    through ``loader`` when states outside ``cone.solve`` need grading.

    Args:
        graph: the solved states of the cone and the states the change names, with their
            justifications, and every state those cite.
        policy: kinds and grading.
        change: what to apply.
        cone: the change's cone (:meth:`~stategraph.store.SQLiteStore.cone`, before the change).
        loader: reads more of the store.
        max_depth: the cascade bound, as reported (the store's walk applies it: see
            :mod:`stategraph.engine.bounded`).
        compatible: superseded ids whose replacement still supports some of the same
            conclusions through the rules; a state that loses only a *declared* support on
            one of them may well still hold, so it goes to confirmation instead of deletion.

    Raises:
        StategraphError: a subclass naming the offending part of a malformed change;
            the graph is untouched in that case.
    """
    steady = steady or {}
    for j in change.remove_justifications:
        if j.head in steady:  # a steady head's justifications are not loaded: these are known
            graph.add_justification(j)
    validate(graph, policy, change)
    old_justs = {
        j.head: graph.justifications_of(j.head)
        for j in (*change.add_justifications, *change.remove_justifications)
        if j.head not in steady
    }
    writes = _apply(graph, policy, change)
    for head, premises, unless in writes.removed:
        cited = steady[head].steady.cited if head in steady else set(graph.supporters(head))
        writes.dropped_edges += [(s, head) for s in sorted({*premises, *unless} - cited)]
    roots = seeds(change)
    depth = {**cone.depth, **dict.fromkeys(roots, 0)}
    solve = cone.solve | roots.keys()
    built = _ConeProgram(graph, policy, solve, cone.uncertain, steady.keys())
    program = built.program
    # what the facts settle, in Python; clingo the rest; gates in doubt held (engine.doubt)
    solved = doubt.solve(program, built.gates)
    # the gates left undefined though their premise is only undefined
    strict = built.strict | {(g[1], g[2]) for g in solved.open if isinstance(g, tuple)}

    new = {sid: solved.value(sid) for sid in solve if sid in graph}
    past_bound, past_kept = _past_bound(graph, policy, cone, loader, new)
    moved = {s for s, v in new.items() if v is not graph.value(s)}
    # States that keep their support while something they cite moved: graded, not solved.
    held = loader.heads_citing(moved & solve) - solve if moved else set()
    if cone.limit is not None:  # past the bound, only the frontier's outcome is reported
        edge = max(cone.depth.values())
        held = {h for h in held if cone.depth.get(h, edge) < edge} | past_kept
    loader.extend(graph, held - past_kept)

    def new_value(sid: str) -> Truth:
        if sid in new:
            return new[sid]
        return UNDEFINED if sid in cone.uncertain else graph.value(sid)

    scope = solve | held | past_bound
    grader = _Grader(
        graph, policy, depth, scope, solve, new_value, past_bound, compatible, steady, strict
    )
    grader.bound_cause = cone.limit or "depth_limit"
    changed: list[ChangedState] = []
    entries: list[Entry] = []
    for sid in sorted(scope & graph.states.keys(), key=lambda s: (depth[s], s)):
        if is_internal(sid):
            continue  # an atom node is no memory: proofs show it, reports do not
        action = roots.get(sid)
        if action in ("retracted", "superseded", "asserted"):
            by = graph.inactive.get(sid) if action == "superseded" else None
            changed.append(ChangedState(id=sid, action=action, by=by, new=new[sid]))
            continue
        if not graph.is_active(sid) or policy.is_exogenous(graph.states[sid]):
            continue
        if (
            sid not in moved
            and sid not in old_justs
            and sid not in steady
            and sid not in past_bound
            and moved.isdisjoint(graph.supporters(sid))
        ):
            continue  # nothing it rests on changed: untouched
        if sid in steady:
            entry = grader.steady_entry(sid, steady[sid])
        else:
            before = old_justs[sid] if sid in old_justs else graph.justifications_of(sid)
            entry = grader.entry(sid, before)
        if entry is not None:
            entries.append(entry)
    edges = _edges_in_question(graph, entries, new_value)
    supports = {s: found for s, found in grader.supports.items() if s in solve}
    # Past the bound, a flagged state does not hold and one that kept holding may now rest on
    # another justification: every edge into either is opened (always sound).
    writes.follow = _open_edges(
        graph, policy, solve | past_kept | past_bound, new_value, supports, steady
    )
    for sid, value in new.items():
        if value is not graph.value(sid):
            writes.truth[sid] = value
            graph.set_truth(sid, value)
    report = Report(
        change=change,
        changed=tuple(sorted(changed, key=lambda c: c.id)),
        entries=tuple(entries),
        cone_size=len(depth),
        solved=len(solve),
        max_depth=max_depth,
        method=f"cone/{path_of(program)}",
        edges=edges,
    )
    return Revision(report, writes, depth)


def _past_bound(
    graph: SupportGraph, policy: Policy, cone: Cone, loader: Loader, new: dict[str, Truth]
) -> tuple[set[str], set[str]]:
    """In a bounded revision, the states whose value is not known (flagged, and set undefined
    in ``new``), and the states past the bound that keep holding though a state they cite
    moved (:mod:`stategraph.engine.bounded`, ``docs/revision.md``)."""
    if cone.limit is None:
        return set(), set()
    flagged = tainted(graph, new, cone.uncertain, new)
    moved = flagged | {s for s, v in new.items() if v is not graph.value(s)}
    reached = sorted(z for z, srcs in cone.frontier.items() if not moved.isdisjoint(srcs))
    loader.extend(graph, reached)
    past, kept = frontier_outcome(graph, policy, cone, reached, new)
    for z in past:
        new[z] = UNDEFINED
    for z in kept:  # known, though uncertain when the walk stopped
        new[z] = graph.value(z)
    return flagged | past, kept


def _edges_in_question(
    graph: SupportGraph, entries: list[Entry], new_value: Callable[[str], Truth]
) -> tuple[EdgeOutcome, ...]:
    """The unchecked candidate edges of the touched states whose premise stopped holding.

    Logic decided an edge when its head's value is defined anyway; the others are flagged
    (a judge, where one is configured, is asked about them afterwards).
    """
    out: dict[tuple[str, str], EdgeOutcome] = {}
    for e in entries:
        decided = None if e.new is UNDEFINED else DecidedBy.logic
        for j in graph.justifications_of(e.id):
            for p in j.candidates():
                if graph.value(p) is TRUE and new_value(p) is not TRUE:
                    out[e.id, p] = EdgeOutcome(head=e.id, premise=p, decided_by=decided)
    return tuple(out[k] for k in sorted(out))


class _Grader:
    """Turns old and new truth values of one cone into verdicts, reasons and consequences."""

    def __init__(
        self,
        graph: SupportGraph,
        policy: Policy,
        depth: dict[str, int],
        scope: set[str] | frozenset[str],
        solved: frozenset[str],
        new_value: Callable[[str], Truth],
        past_bound: set[str],
        compatible: frozenset[str],
        steady: Mapping[str, _Lean] | None = None,
        strict: Collection[tuple[JustKey, str]] = (),
    ) -> None:
        self.graph = graph
        self.steady = steady or {}
        self.strict = frozenset(strict)
        """The candidate edges whose gate stayed undefined though the premise is only
        undefined (:mod:`stategraph.engine.doubt`: the premise rests on the gate, or the
        bounded walk left it uncertain); every other undefined candidate is held in doubt."""
        self.policy = policy
        self.depth = depth
        self.scope = scope
        self.new_value = new_value
        self._cycle_of: dict[Hashable, frozenset[Hashable]] | None = None
        self.past_bound = past_bound
        self.bound_cause = "depth_limit"
        """The cause of a state flagged because the walk stopped (``depth_limit``,
        ``cone_limit``)."""
        self.compatible = compatible
        self.supports = self.levels(scope, solved)
        """The support of each holding state of the scope (see :meth:`levels`)."""
        self._fallback: dict[str, tuple[int, Justification | None]] | None = None

    def levels(
        self, heads: Iterable[str], solved: frozenset[str] | None = None
    ) -> dict[str, tuple[int, Justification | None]]:
        """The lowest derivation of each of ``heads`` that holds after the change.

        States outside the scope are settled and count as height 0: their own supports never
        cite a state the change can move, so a derivation chosen here is never circular.

        With ``solved``, the derivations are supports (:class:`~stategraph.engine.graph.Cone`), and
        their ``unless`` states must be facts or states outside ``solved``: whether a solved
        state is false may hinge on the very state it would support (``a :- not b``,
        ``b :- not a``, with ``a`` true through another justification), and a support resting
        on that would keep ``a`` true by itself once the other justification fails. A state
        outside ``solved`` that does not hold cannot hinge on a solved one: the edge between
        them would be open and it would be solved too.
        """
        g = self.graph
        exogenous = self.policy.is_exogenous

        def is_base(s: str) -> bool:
            return s not in self.scope or exogenous(g.states[s])

        usable = None
        if solved is not None:

            def usable(j: Justification) -> bool:
                return all(u not in solved or exogenous(g.states[u]) for u in j.unless)

        heads = [
            s
            for s in heads
            if g.is_active(s) and not exogenous(g.states[s]) and self.new_value(s) is TRUE
        ]
        steady = self.steady

        def justs_of(sid: str) -> list[Justification]:
            # a steady head's support is the first of its justifications that holds
            lean = steady.get(sid)
            return g.justifications_of(sid) if lean is None else [lean.support]

        justs = justs_of if steady else g.justifications_of
        return derivation_levels(heads, justs, is_base, self.new_value, usable, self.held)

    def held(self, j: Derivable, p: str) -> bool:
        """Whether an undefined candidate premise is only in doubt after the change."""
        return (j.key, p) not in self.strict

    def surviving(self, sid: str) -> JustificationRef | None:
        """The justification that carries a kept or restored state: its new support if it has
        one, else its lowest derivation (:meth:`levels`), so never circular."""
        found = self.supports.get(sid)
        if found is None:
            if self._fallback is None:
                self._fallback = self.levels(self.scope)
            found = self._fallback.get(sid)
        by = found[1] if found is not None else None
        return by.ref() if by is not None else None

    def entry(self, sid: str, before: list[Justification]) -> Entry | None:
        g = self.graph
        old_t, new_t = g.value(sid), self.new_value(sid)
        after = g.justifications_of(sid)
        old_hold = {j.key for j in before if justification_value(j, g.value) is TRUE}
        new_hold = {
            j.key for j in after if justification_value(j, self.new_value, self.held) is TRUE
        }
        # a memory already in doubt that the change takes more of its basis from is reported
        # again, with this change's cause (a person settling it must hear of it)
        unmoved = old_t is new_t and old_hold == new_hold and sid not in self.past_bound
        if unmoved and not (new_t is UNDEFINED and self._newly_lost(after)):
            return None
        present = {j.key: j for j in after}
        lost = []
        for j in before:
            if j.key in old_hold and j.key not in new_hold:
                now = present.get(j.key)
                lost.append(self._lost(j, now))
        return self._entry(sid, old_t, new_t, lost, after)

    def _newly_lost(self, justs: Sequence[Justification]) -> bool:
        """Whether the change takes away a premise of these justifications that held (a
        candidate only in doubt is not taken away) or makes an ``unless`` of them hold; a
        justification that was already false was no part of the doubt and is passed over."""
        old, new = self.graph.value, self.new_value
        for j in justs:
            if justification_value(j, old) is FALSE:
                continue
            candidates = j.candidates()
            for p in body(j):
                v = new(p)
                lost = old(p) is TRUE and v is not TRUE
                if lost and (p not in candidates or v is FALSE or not self.held(j, p)):
                    return True
            if any(old(u) is not TRUE and new(u) is TRUE for u in j.unless):
                return True
        return False

    def steady_entry(self, sid: str, lean: _Lean) -> Entry | None:
        """:meth:`entry` for a steady head, from what :mod:`~stategraph.engine.steady` found
        (it held and holds; its justifications' bodies are their premises)."""
        if not lean.steady.changed:
            return None
        lost = [
            self._lost(lean.justs[key], None if removed else lean.justs[key])
            for key, removed in lean.steady.lost
        ]
        return self._entry(sid, TRUE, TRUE, lost, ())

    def _lost(self, j: Justification, now: Justification | None) -> LostSupport:
        """A justification that held and does not now (``now``: as it is after the change,
        None if the change removed it)."""
        failed, blocked = failures(now, self.new_value) if now else ((), ())
        return trusted(
            LostSupport,
            {
                "justification": j.ref(),
                "failed": failed,
                "blocked_by": blocked,
                "removed": now is None,
            },
        )

    def _entry(
        self,
        sid: str,
        old_t: Truth,
        new_t: Truth,
        lost: list[LostSupport],
        after: Sequence[Justification],
    ) -> Entry:
        g = self.graph
        decided_by = DecidedBy.logic
        cycle: tuple[str, ...] = ()
        undecided: tuple[str, ...] = ()
        surviving = None
        if sid in self.past_bound:
            verdict, cause = Verdict.needs_confirmation, self.bound_cause
            decided_by = DecidedBy.policy
        elif new_t is UNDEFINED:
            verdict = Verdict.needs_confirmation
            cause, cycle, undecided = self._undecided(sid, after)
        elif new_t is TRUE:
            verdict = Verdict.kept if old_t is TRUE else Verdict.restored
            cause = "alternative_support" if lost else "new_support"
            surviving = self.surviving(sid)
        elif any(
            gone.justification.origin in (Origin.declared, Origin.judge)
            and set(gone.failed) & self.compatible
            for gone in lost
        ):
            verdict, cause = Verdict.needs_confirmation, "compatible_update"
            decided_by = DecidedBy.policy
        else:
            verdict, cause = Verdict.invalidated, "no_support"
        consequence = None
        st = g.states[sid]
        if self.policy.of(st).action:
            if verdict is Verdict.invalidated and st.status == "executed":
                verdict, decided_by = Verdict.needs_confirmation, DecidedBy.policy
            if verdict is Verdict.invalidated:
                consequence = Consequence.cancel
            elif verdict is Verdict.needs_confirmation:
                consequence = Consequence.review
        reason = {
            "cause": cause,
            "lost": tuple(lost),
            "surviving": surviving,
            "cycle": cycle,
            "undecided": undecided,
        }
        return trusted(
            Entry,
            {
                "id": sid,
                "kind": st.kind,
                "old": old_t,
                "new": new_t,
                "verdict": verdict,
                "depth": self.depth[sid],
                "decided_by": decided_by,
                "consequence": consequence,
                "reason": trusted(Reason, reason),
            },
        )

    def _cycles(self) -> dict[Hashable, frozenset[Hashable]]:
        """The cycles through ``unless`` among the states left undefined, by member.

        Taken over undefined states only, they do not depend on how much of the cone was
        solved: every state on such a cycle with a solved state is solved too (edges into a
        state that does not hold are open), and no state that holds is on one.
        """
        if self._cycle_of is None:
            g, value = self.graph, self.new_value
            undefined = {
                s
                for s in self.scope
                if value(s) is Truth.undefined
                and g.is_active(s)
                and not self.policy.is_exogenous(g.states[s])
            }
            rules = [
                Rule(
                    h,
                    tuple(p for p in body(j) if p in undefined),
                    tuple(u for u in j.unless if u in undefined),
                )
                for h in sorted(undefined)
                for j in g.justifications_of(h)
                if justification_value(j, value, self.held) is Truth.undefined
            ]
            comps = negative_components(Program(rules=rules))
            self._cycle_of = {n: c for c in comps for n in c}
        return self._cycle_of

    def _undecided(
        self, sid: str, after: Sequence[Justification]
    ) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        undecided: set[str] = set()
        for j in after:
            if justification_value(j, self.new_value, self.held) is not Truth.undefined:
                continue
            candidates = j.candidates()
            for x in (*body(j), *j.unless):
                v = self.new_value(x)
                if x in candidates and v is Truth.undefined and self.held(j, x):
                    continue  # only in doubt: not what makes it undecided
                if v is Truth.undefined or (x in candidates and v is not Truth.true):
                    undecided.add(x)
        comp = self._cycles().get(sid)
        if comp is not None:
            cycle = tuple(sorted(n for n in comp if isinstance(n, str)))
            return "negative_cycle", cycle, tuple(sorted(undecided))
        unverified = any(
            (v := self.new_value(p)) is Truth.false
            or (v is Truth.undefined and not self.held(j, p))
            for j in after
            for p in j.candidates()
        )
        cause = "unverified_candidate" if unverified else "undefined_premise"
        return cause, (), tuple(sorted(undecided))


def _open_edges(
    graph: SupportGraph,
    policy: Policy,
    solved: frozenset[str],
    value: Callable[[str], Truth],
    supports: dict[str, tuple[int, Justification | None]],
    steady: Mapping[str, _Lean],
) -> list[tuple[int, str, str]]:
    """Whether each edge into a solved state is open after the change (see :class:`Cone`).

    An edge into a state that holds is open only if the state's support cites its source;
    every edge into a state that does not hold, or holds without a support, is open. Of a
    steady head's edges, only those whose flag changes (or that are new) are given.
    """
    rows: list[tuple[int, str, str]] = []
    for head in sorted(solved):
        if head in steady:
            rows += steady[head].steady.follow
            continue
        if head not in graph or policy.is_exogenous(graph.states[head]):
            continue
        justs = graph.justifications_of(head)
        support = supports.get(head, (0, None))[1] if value(head) is TRUE else None
        keep = {*body(support), *support.unless} if support is not None else None
        cited = sorted({x for j in justs for x in (*j.premises, *j.unless)})
        rows += [(int(keep is None or src in keep), src, head) for src in cited]
    return rows
