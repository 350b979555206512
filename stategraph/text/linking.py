"""Rule links: the support graph out of rule packs and grounded atoms, through atom nodes.

A state's ``atoms`` say what it asserts (``moves(user,shanghai,shenzhen,"2026-12")``). Rule
packs say which atoms follow from which (``commute_city(P,C) :- home_city(P,C).``). Linking
connects the two through the atoms themselves, each an internal node of the support graph
(:mod:`stategraph.nodes`):

- ``rule:A`` is justified once per ground rule instance deriving ``A`` (a *firing*): its
  premises are the ``atom:`` nodes of the instance's positive body, its ``unless`` those of
  the atoms under ``not`` (J2);
- ``atom:A`` is justified once per memory that carries ``A`` (J3), and by ``rule:A`` when some
  firing derives ``A`` (J4);
- a derived memory all of whose atoms some firing derives is justified by their ``rule:``
  nodes (J1): its atoms must follow from the rules, not merely be said again by another
  memory.

So the memory holds exactly when the rules derive its atoms from what holds, in the
well-founded model of the whole program (the engine's, with cycles through memories and rules
unfounded and ``not`` over the blocking atom's node), whatever the number of memories carrying
an atom: a new carrier is one justification of one node. Nothing is capped.

The packs are grounded in their *potential* mode (``not`` ignored, recorded as ``unless``), so
that the justification of a default is in place before its blocker is asserted or retracted.
Linking sees every state with atoms, superseded and retracted ones too: the builtin
``next_date`` ties an action dated D to the event an *old* fact put first on or after D, so
when the flight moves the check-in is still computed against the old date and loses its
support with the superseded fact. A dead state is false, so a justification citing it fails.

Which atoms get nodes is a function of the store's atoms and kinds, and nothing else (the
incremental linker is held to :func:`link_from_scratch` change after change):

- an atom is *demanded* when a derived memory carries it, or when a firing of a demanded atom
  cites it; the firings of every demanded atom are its ``rule:`` node's justifications;
- an atom is *cited* when a firing of a demanded atom cites it (in its body or under ``not``);
  a cited atom has an ``atom:`` node, justified by each carrier and by its ``rule:`` node;
- a derived memory is linked (J1) when every atom it carries has a firing.

A node whose atom stops being demanded or cited (a firing ``next_date`` no longer gives) keeps
its state but loses its justifications, so it no longer holds. The same firings answer the
counterfactual question for candidate (``recovered``) edges (:meth:`RuleGraph.check`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import clingo

from stategraph.errors import InvalidInputError
from stategraph.grounding.packs import Firing
from stategraph.model import EdgeCheck, Justification, Origin, Source, State, trusted
from stategraph.nodes import (
    ATOM_KIND,
    atom_node,
    is_atom_node,
    is_internal,
    is_rule_node,
    node_atom,
    rule_node,
)

if TYPE_CHECKING:
    from stategraph.engine.policy import Kinded, Policy
    from stategraph.text.atom_index import LinkIndex, StoreInputs
    from stategraph.text.topdown import Carried, PackProgram

__all__ = [
    "FiringCache",
    "IncrementalLinker",
    "LinkDelta",
    "Linked",
    "RuleGraph",
    "StoredGraph",
    "carrier_justification",
    "derivation_justification",
    "firing_justifications",
    "link_from_scratch",
    "memory_justification",
    "node_state",
    "parse_atom",
]

JustKey = tuple[str, tuple[str, ...], tuple[str, ...]]


def parse_atom(text: str, state_id: str = "") -> clingo.Symbol:
    """Parse one ground atom (a term, never a program: nothing in it can become a rule).

    Raises:
        InvalidInputError: when the text is not a ground atom.
    """
    try:
        sym = clingo.parse_term(text)
    except RuntimeError as exc:
        raise InvalidInputError(
            "state", [(f"atoms of {state_id}" if state_id else "atoms", f"{text!r}: {exc}")]
        ) from None
    if sym.type is not clingo.SymbolType.Function or not sym.name:
        raise InvalidInputError(
            "state", [(f"atoms of {state_id}", f"{text!r} is not an atom like pred(a,b)")]
        )
    return sym


@functools.lru_cache(maxsize=1 << 18)
def _text(symbol: clingo.Symbol) -> str:
    """A symbol as clingo prints it (cached: printing goes through the C library)."""
    return str(symbol)


# ---- the justifications of rule links -----------------------------------------------------


def _rule(
    head: str, premises: Iterable[str], unless: Iterable[str] = (), rules: Sequence[str] = ()
) -> Justification:
    """A ``rule`` justification, built without validation: every id is the store's, the
    change's, or an atom node's."""
    return trusted(
        Justification,
        {
            "head": head,
            "premises": tuple(sorted(set(premises))),
            "unless": tuple(sorted(set(unless))),
            "origin": Origin.rule,
            "checked": {},
            "notes": {},
            "rules": tuple(rules),
            "proposed": {},
        },
    )


def node_state(node: str, atom: str) -> State:
    """The state of an atom node (kind :data:`~stategraph.nodes.ATOM_KIND`, its atom as its
    text), written by the agent's own linking."""
    return trusted(
        State,
        {
            "id": node,
            "kind": ATOM_KIND,
            "text": atom,
            "atoms": (),
            "source": Source.agent,
            "status": None,
            "metadata": {},
            "created_at": None,
            "session": None,
        },
    )


def firing_justifications(firings: Iterable[Firing]) -> dict[JustKey, Justification]:
    """The ``rule:`` node justifications of firings (J2), by identity: firings with the same
    premises and blockers are one justification, naming every rule that gives it."""
    merged: dict[JustKey, tuple[str, tuple[str, ...], tuple[str, ...], set[str]]] = {}
    for f in firings:
        head = rule_node(_text(f.head))
        premises = tuple(sorted({atom_node(_text(p)) for p in f.premises}))
        unless = tuple(sorted({atom_node(_text(u)) for u in f.unless}))
        key = (head, premises, unless)
        if key in merged:
            merged[key][3].add(f.rule)
        else:
            merged[key] = (head, premises, unless, {f.rule})
    return {k: _rule(h, p, u, sorted(r)) for k, (h, p, u, r) in sorted(merged.items())}


def _grown(
    old: dict[JustKey, Justification], more: Sequence[Firing]
) -> dict[JustKey, Justification]:
    """``old`` with the justifications of firings added (a firing of a known identity adds
    its rule to it): an atom a thousand moves derive gains one move's, not a recount."""
    if not more:
        return old
    now = dict(old)
    for key, j in firing_justifications(more).items():
        had = now.get(key)
        if had is None:
            now[key] = j
        elif not set(j.rules) <= set(had.rules):
            now[key] = _rule(key[0], key[1], key[2], sorted({*had.rules, *j.rules}))
    return dict(sorted(now.items()))


def carrier_justification(atom: str, carrier: str) -> Justification:
    """``atom:A <- carrier`` (J3): the atom holds while a memory saying it holds."""
    return _rule(atom_node(atom), (carrier,))


def derivation_justification(atom: str) -> Justification:
    """``atom:A <- rule:A`` (J4): the atom holds while the rules derive it."""
    return _rule(atom_node(atom), (rule_node(atom),))


def memory_justification(head: str, atoms: Iterable[str]) -> Justification:
    """``m <- rule:A1, ..., rule:An`` (J1): a derived memory holds while the rules derive
    every atom it carries."""
    return _rule(head, (rule_node(a) for a in atoms))


def _cited(j: Justification) -> Iterator[str]:
    """The atoms a ``rule:`` node justification cites (premises and blockers)."""
    for x in (*j.premises, *j.unless):
        yield node_atom(x)


# ---- linking from scratch: the reference ------------------------------------------------


@dataclass
class Linked:
    """The rule links of a store, whole: what :func:`link_from_scratch` gives.

    Attributes:
        nodes: every atom node a justification names, with its atom.
        justifications: every ``rule`` justification, by identity.
        demanded: the atoms whose firings are kept.
    """

    nodes: dict[str, str] = field(default_factory=dict)
    justifications: dict[JustKey, Justification] = field(default_factory=dict)
    demanded: set[str] = field(default_factory=set)


def _closure(
    heads: Mapping[str, Sequence[str]],
    carriers: Mapping[str, Sequence[str]],
    firings_of: Callable[[str], dict[JustKey, Justification]],
) -> Linked:
    """The rule links of derived memories (``heads``: their atoms) over the states carrying
    atoms (``carriers``: by atom), given each atom's firing justifications."""
    out = Linked()
    derived: dict[str, bool] = {}
    todo = sorted({a for atoms in heads.values() for a in atoms})
    cited: set[str] = set()
    while todo:
        atom = todo.pop()
        if atom in out.demanded:
            continue
        out.demanded.add(atom)
        found = firings_of(atom)
        derived[atom] = bool(found)
        for j in found.values():
            out.justifications[j.key] = j
            for b in _cited(j):
                cited.add(b)
                if b not in out.demanded:
                    todo.append(b)
    for b in sorted(cited):
        for carrier in carriers.get(b, ()):
            j = carrier_justification(b, carrier)
            out.justifications[j.key] = j
        if derived.get(b):
            j = derivation_justification(b)
            out.justifications[j.key] = j
    for head, atoms in sorted(heads.items()):
        if atoms and all(derived.get(a) for a in atoms):
            j = memory_justification(head, atoms)
            out.justifications[j.key] = j
    for j in out.justifications.values():
        for x in (j.head, *j.premises, *j.unless):
            if is_internal(x):
                out.nodes.setdefault(x, node_atom(x))
    return out


def link_from_scratch(states: Iterable[State], packs: Sequence[str], policy: Policy) -> Linked:
    """The rule links of a store's states, from scratch with clingo: the reference incremental
    linking is held to (``tests/properties/test_linking.py``), and what a store whose packs
    are recursive is linked by.

    Every state with atoms takes part, retracted and superseded ones too, as in linking.
    """
    from stategraph.grounding.packs import derive, load_pack

    with_atoms = [s for s in states if s.atoms and s.kind != ATOM_KIND]
    if not packs or not with_atoms:
        return Linked()
    carriers: dict[str, list[str]] = {}
    symbols: dict[str, clingo.Symbol] = {}
    heads: dict[str, list[str]] = {}
    for st in sorted(with_atoms, key=lambda s: s.id):
        texts = []
        for a in st.atoms:
            sym = parse_atom(a, st.id)
            text = _text(sym)
            symbols[text] = sym
            texts.append(text)
            carriers.setdefault(text, [])
            if st.id not in carriers[text]:
                carriers[text].append(st.id)
        if not policy.is_exogenous(st):
            heads[st.id] = sorted(set(texts))
    by_head: dict[str, list[Firing]] = {}
    for f in derive(symbols.values(), [load_pack(p) for p in packs], potential=True):
        by_head.setdefault(_text(f.head), []).append(f)
    return _closure(heads, carriers, lambda a: firing_justifications(by_head.get(a, ())))


# ---- the graph of rule links, read back ---------------------------------------------------


class RuleGraph(Protocol):
    """What the questions asked of rule links (:meth:`check`, the heads a fact's atoms reach)
    read: the ``rule`` justifications of nodes, and the memories carrying an atom."""

    def justifications_of(self, node: str) -> Sequence[Justification]:
        """The ``rule`` justifications of an atom node or memory, as the change leaves them."""
        ...

    def citing(self, node: str) -> Sequence[Justification]:
        """The justifications citing a node, as the change leaves them."""
        ...

    def nodes_citing(self, node: str) -> set[str]:
        """The atom and rule nodes a justification cites a node in, as the change leaves
        them: what the rules reach from it in one step (only linking justifies a node, so
        each such justification is a rule link)."""
        ...


def derives_without(graph: RuleGraph, head: str, premise: str) -> tuple[bool, bool]:
    """Whether the rules derive ``head``'s atoms at all, and whether they do without
    ``premise``: over the justifications as they are (each premise counted as potentially
    holding, whatever it holds now; ``unless`` ignored), with no cycle supporting itself.

    Returns:
        ``(with, without)``.
    """

    def derivable(skip: str) -> bool:
        memo: dict[str, bool] = {}

        def holds(node: str) -> bool:
            if node == skip:
                return False
            if not is_internal(node):
                return True  # a memory carrying an atom stands for itself
            if node in memo:
                return memo[node]
            memo[node] = False  # a cycle supports nothing
            found = any(all(holds(p) for p in j.premises) for j in graph.justifications_of(node))
            memo[node] = found
            return found

        linked = [j for j in graph.justifications_of(head) if j.origin is Origin.rule]
        return any(all(holds(p) for p in j.premises) for j in linked)

    return derivable(head), derivable(premise) and premise != head


def check(graph: RuleGraph, head: str, premise: str) -> tuple[EdgeCheck, str] | None:
    """Is ``premise`` a dependency of ``head``, as far as the rules can tell?"""
    linked = [j for j in graph.justifications_of(head) if j.origin is Origin.rule]
    if not linked or not all(is_rule_node(p) for j in linked for p in j.premises):
        return None
    with_, without = derives_without(graph, head, premise)
    if not with_:
        return None
    atoms = ", ".join(node_atom(p) for p in linked[0].premises)
    if without:
        return EdgeCheck.independent, f"rules derive {atoms} for {head} without {premise}"
    return EdgeCheck.dependency, f"rules derive {atoms} for {head} only through {premise}"


def downstream_memories(graph: RuleGraph, state_id: str, limit: int = 100_000) -> list[str]:
    """The memories whose rule links go through ``state_id`` (through the atom nodes it
    carries), sorted: the first memories past the atom steps."""
    seen: set[str] = set()
    out: set[str] = set()
    stack = [state_id]
    while stack and len(seen) < limit:
        node = stack.pop()
        for j in graph.citing(node):
            if j.origin is not Origin.rule or j.head in seen:
                continue
            if is_internal(j.head):
                seen.add(j.head)
                stack.append(j.head)
            elif node != state_id:
                out.add(j.head)
    return sorted(out)


def reached_nodes(graph: RuleGraph, state_id: str, limit: int = 10_000) -> set[str]:
    """The atom nodes reachable from a state along rule links (at most ``limit``)."""
    seen: set[str] = set()
    stack = [state_id]
    while stack and len(seen) < limit:
        for head in graph.nodes_citing(stack.pop()) - seen:
            seen.add(head)
            stack.append(head)
    return seen


# ---- incremental linking ------------------------------------------------------------------


@functools.cache
def _compiled(packs: tuple[str, ...]) -> PackProgram:
    """The packs compiled for top-down evaluation, once per process, as
    :func:`~stategraph.grounding.packs.load_pack` reads each pack once: a server opens a
    tenant's memory for every request, and compiling took 15 to 140 ms of it."""
    from stategraph.grounding.packs import load_pack
    from stategraph.text.topdown import compile_packs

    return compile_packs([load_pack(p) for p in packs])


class FiringCache:
    """Atoms' firings over the committed store, kept between changes (an atom's firings over
    every move into a city are extended by the new move's, not found again:
    :class:`~stategraph.text.topdown.Carry`).

    A change's linking reads the cache (valid for the store as committed) and hands it the
    firings as the change leaves them (:meth:`expect`); they replace the cached ones once the
    change is seen committed (:meth:`settle`, at the next linking), and are forgotten if it
    is not. Everything is forgotten when the store's version moves other than by this
    memory's own commits (another connection committed, a rollback undid rows:
    :meth:`~stategraph.text.atom_index.LinkIndex.version`), or when there is no such version.

    Args:
        size: atoms kept at most (least recently used go first).
    """

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self.firings: dict[clingo.Symbol, Carried] = {}
        self.links: dict[clingo.Symbol, dict[JustKey, Justification]] = {}
        """The firing justifications of the atoms whose firings are kept (when known)."""
        self._version: object = None
        self._pending: (
            tuple[
                Callable[[], bool],
                dict[clingo.Symbol, Carried],
                dict[clingo.Symbol, dict[JustKey, Justification]],
            ]
            | None
        ) = None

    def clear(self) -> None:
        """Forget everything."""
        self.firings.clear()
        self.links.clear()
        self._pending = None

    def settle(self, version: object) -> None:
        """Bring the cache to the store as committed now (``version``: the store's version,
        None when it has none)."""
        if version is None or version != self._version:
            self.clear()
            self._version = version
            return
        pending, self._pending = self._pending, None
        if pending is not None and pending[0]():
            self.keep(pending[1], pending[2])

    def keep(
        self,
        firings: Mapping[clingo.Symbol, Carried],
        links: Mapping[clingo.Symbol, dict[JustKey, Justification]],
    ) -> None:
        """Atoms' firings (and their justifications, where known) over the store as
        committed now."""
        for atom, carried in firings.items():
            self.firings.pop(atom, None)
            self.firings[atom] = carried
            self.links.pop(atom, None)
            if atom in links:
                self.links[atom] = links[atom]
        while len(self.firings) > self.size:
            oldest = next(iter(self.firings))
            del self.firings[oldest]
            self.links.pop(oldest, None)

    def expect(
        self,
        committed: Callable[[], bool],
        firings: dict[clingo.Symbol, Carried],
        links: dict[clingo.Symbol, dict[JustKey, Justification]],
    ) -> None:
        """The firings as a change leaves them, kept once the change is seen committed."""
        self._pending = (committed, firings, links)


@dataclass
class LinkDelta:
    """What linking adds to one change, and what the atom index records with it.

    Attributes:
        nodes: atom nodes the change creates (their states).
        added: ``rule`` justifications added.
        removed: ``rule`` justifications removed (as stored).
        demand_add: atoms whose firings are kept from now on.
        demand_drop: atoms whose firings are no longer kept.
        watch_add: ``(key, atom)``: lookup keys an atom's firings now read.
        watch_drop: ``(key, atom)``: lookup keys they no longer read.
    """

    nodes: list[State] = field(default_factory=list)
    added: list[Justification] = field(default_factory=list)
    removed: list[Justification] = field(default_factory=list)
    demand_add: list[str] = field(default_factory=list)
    demand_drop: list[str] = field(default_factory=list)
    watch_add: list[tuple[str, str]] = field(default_factory=list)
    watch_drop: list[tuple[str, str]] = field(default_factory=list)


class StoredGraph:
    """:class:`RuleGraph` over the store, with one change's rule links laid over it."""

    def __init__(self, store: _Reads, delta: LinkDelta | None = None) -> None:
        self.store = store
        self._added: dict[str, list[Justification]] = {}
        self._added_citing: dict[str, list[Justification]] = {}
        self._removed: set[JustKey] = set()
        if delta is not None:
            self.lay(delta.added, delta.removed)

    def lay(self, added: Iterable[Justification], removed: Iterable[Justification]) -> None:
        """Lay justifications a change adds and removes over the store's."""
        for j in added:
            self._added.setdefault(j.head, []).append(j)
            for x in {*j.premises, *j.unless}:
                self._added_citing.setdefault(x, []).append(j)
        self._removed.update(j.key for j in removed)

    def justifications_of(self, node: str) -> list[Justification]:
        stored = [j for j in self.store.justifications_for([node]) if j.key not in self._removed]
        return stored + self._added.get(node, [])

    def citing(self, node: str) -> list[Justification]:
        stored = [j for j in _citing(self.store, node) if j.key not in self._removed]
        return stored + self._added_citing.get(node, [])

    def nodes_citing(self, node: str) -> set[str]:
        heads = {h for h in self.store.heads_citing([node]) if is_internal(h)}
        # a node whose citing justification the change removes may cite it no more: read
        # those few heads whole (a dense node's hundreds of justifications are read only then)
        doubtful = sorted({k[0] for k in self._removed if k[0] in heads})
        if doubtful:
            heads -= set(doubtful)
            heads.update(
                j.head
                for j in self.store.justifications_for(doubtful)
                if j.key not in self._removed and (node in j.premises or node in j.unless)
            )
        heads.update(j.head for j in self._added_citing.get(node, ()) if is_internal(j.head))
        return heads


class _Reads(Protocol):
    """The store's reads linking makes beyond the atom index."""

    def justifications_for(self, heads: Iterable[str]) -> list[Justification]: ...
    def heads_citing(self, ids: Iterable[str]) -> set[str]: ...
    def truths(self, ids: Iterable[str]) -> Mapping[str, object]: ...


def _citing(store: _Reads, node: str) -> list[Justification]:
    """The stored justifications citing a state, as a premise or under ``unless``."""
    heads = store.heads_citing([node])
    if not heads:
        return []
    return [
        j for j in store.justifications_for(sorted(heads)) if node in j.premises or node in j.unless
    ]


class IncrementalLinker:
    """Links only what a change can affect (``incremental_linker.v2``), through the store's
    atom index (:mod:`stategraph.text.atom_index`).

    An atom's firings are evaluated top-down (:mod:`stategraph.text.topdown`), recording the
    lookups they read (its *watches*); a new input atom that matches one of them, or a
    ``next_date`` answer a new date moves, is what can change them. So a change evaluates
    again only the demanded atoms watching what it brings, and the atoms it newly demands
    (those its derived memories carry, those new firings cite), and writes the justifications
    that differ. A new carrier of a cited atom is one justification of one node.

    Args:
        packs: rule pack names.

    Raises:
        ValueError: when the packs cannot be evaluated top-down (a recursive predicate); link
            those from scratch with :func:`link_from_scratch`.
    """

    name = "stategraph.incremental_linker.v2"

    def __init__(self, packs: Sequence[str]) -> None:
        self.packs = tuple(packs)
        self.program = _compiled(self.packs)
        self.cache = FiringCache()

    def changed(
        self, index: LinkIndex, inputs: StoreInputs, new: Iterable[clingo.Symbol]
    ) -> tuple[frozenset[str], tuple[clingo.Symbol, ...]]:
        """The lookup keys the new atoms change (every pattern an atom new to the inputs
        matches; the ``next_date`` answers they move), and the atoms new to the inputs,
        sorted."""
        from stategraph.text.topdown import pattern_keys

        keys: set[str] = set()
        fresh = []
        for atom in sorted(set(new)):
            if not index.carried(atom):
                keys.update(pattern_keys(atom))
                fresh.append(atom)
        keys.update(inputs.changed_next_dates())
        return frozenset(keys), tuple(fresh)

    def link(
        self,
        store: _Reads,
        index: LinkIndex,
        new_states: Sequence[State],
        policy: Policy,
        everything: Sequence[State] | None = None,
    ) -> LinkDelta:
        """The rule links a change's new states make, as a delta over the store's.

        Args:
            store: the store, for the justifications stored.
            index: its atom index.
            new_states: the states the change asserts (with their atoms).
            policy: which kinds are derived.
            everything: every stored state with atoms, when the store's rule links are to
                be made afresh (a new pack setting, or a store linked before atom nodes):
                every derived memory is then linked, and the index rebuilt.
        """
        from stategraph.text.atom_index import StoreInputs

        with_atoms = [s for s in new_states if s.atoms and s.kind != ATOM_KIND]
        new = {s.id: [parse_atom(a, s.id) for a in s.atoms] for s in with_atoms}
        inputs = StoreInputs(index, new)
        return _Pass(self, store, index, inputs, with_atoms, new, policy, everything).run()


class _Pass:
    """One change's incremental linking (see :class:`IncrementalLinker`).

    The rule links are a function of the store's atoms and kinds (the module's doc); this
    keeps them so. For each atom it evaluates, the firings over the store as committed are
    the cache's or the stored ``rule:`` node's justifications, and the difference is written.
    Which atoms are cited, and whether an atom has a firing, are read from the store as
    committed and the change's own differences laid over it.
    """

    def __init__(
        self,
        linker: IncrementalLinker,
        store: _Reads,
        index: LinkIndex,
        inputs: StoreInputs,
        new_states: list[State],
        new: dict[str, list[clingo.Symbol]],
        policy: Policy,
        everything: Sequence[State] | None,
    ) -> None:
        from stategraph.text.topdown import Carry, Goals

        self.store, self.index, self.policy = store, index, policy
        self.program = linker.program
        self.cache = cache = linker.cache
        self.scratch = everything is not None
        cache.settle(None if self.scratch else index.version())
        if self.scratch:
            changed: frozenset[str] = frozenset()
            fresh: tuple[clingo.Symbol, ...] = ()
        else:
            changed, fresh = linker.changed(index, inputs, (a for v in new.values() for a in v))
        self.changed = changed
        self.goals = Goals(self.program, inputs, Carry(cache.firings, changed, fresh))
        self.new_states = new_states
        self.symbols: dict[str, clingo.Symbol] = {}
        self.texts: dict[str, list[str]] = {sid: self._texts(atoms) for sid, atoms in new.items()}
        self.heads = [s for s in new_states if not policy.is_exogenous(s)]
        # a relink from scratch reads every state's atoms once, here
        self.carriers: dict[str, set[str]] = {}
        self.derived_carried: set[str] = set()
        if everything is not None:
            for st in everything:
                if st.id in self.texts:
                    continue
                self.texts[st.id] = self._texts(parse_atom(a, st.id) for a in st.atoms)
                if not policy.is_exogenous(st):
                    self.heads.append(st)
        for st in [*new_states, *(everything or ())]:
            for a in self.texts.get(st.id, ()):
                if self.scratch:
                    self.carriers.setdefault(a, set()).add(st.id)
                if not policy.is_exogenous(st):
                    self.derived_carried.add(a)
        self.delta = LinkDelta()
        self.firings: dict[str, dict[JustKey, Justification]] = {}
        """Each evaluated atom's firing justifications, as the change leaves them."""
        self.old: dict[str, dict[JustKey, Justification]] = {}
        self.demanded: dict[str, bool] = {}
        self.was_cited: dict[str, bool] = {}
        self.cited_after: dict[str, bool] = {}
        self._added: dict[JustKey, Justification] = {}
        self._removed: dict[JustKey, Justification] = {}
        self._cites: dict[str, int] = {}
        """For each ``atom:`` node, how many of the added firing justifications cite it."""

    # -- small reads ------------------------------------------------------------------------

    def _texts(self, atoms: Iterable[clingo.Symbol]) -> list[str]:
        out = set()
        for a in atoms:
            t = _text(a)
            self.symbols.setdefault(t, a)
            out.add(t)
        return sorted(out)

    def _symbol(self, atom: str) -> clingo.Symbol:
        found = self.symbols.get(atom)
        if found is None:
            found = self.symbols[atom] = clingo.parse_term(atom)
        return found

    def _derived_predicate(self, atom: str) -> bool:
        sym = self._symbol(atom)
        return (sym.name, len(sym.arguments)) in self.program.derived

    def _is_demanded(self, atom: str) -> bool:
        if atom not in self.demanded:
            self.demanded[atom] = not self.scratch and self.index.demanded(atom)
        return self.demanded[atom]

    def _stored_firings(self, atom: str) -> dict[JustKey, Justification]:
        """The firing justifications of ``atom`` in the store as committed (none for an atom
        not demanded there)."""
        if atom not in self.old:
            if self.scratch or not self._is_demanded(atom):
                self.old[atom] = {}
            else:
                sym = self._symbol(atom)
                kept = self.cache.firings.get(sym)
                known = self.cache.links.get(sym)
                if known is not None and kept is not None:
                    self.old[atom] = known
                elif kept is not None:
                    self.old[atom] = firing_justifications(kept.firings)
                else:
                    node = rule_node(atom)
                    self.old[atom] = {j.key: j for j in self.store.justifications_for([node])}
        return self.old[atom]

    def _had_firings(self, atom: str) -> bool:
        """Whether some firing derived ``atom`` in the store as committed."""
        if atom in self.old:
            return bool(self.old[atom])
        if self.scratch or not self._derived_predicate(atom) or not self._is_demanded(atom):
            return False
        kept = self.cache.firings.get(self._symbol(atom))
        if kept is not None:
            return bool(kept.firings)
        return self.index.has_justification(rule_node(atom))

    def _has_firings(self, atom: str) -> bool:
        """Whether some firing derives ``atom`` once the change is made."""
        if atom in self.firings:
            return bool(self.firings[atom])
        return self._had_firings(atom)

    def _add(self, j: Justification) -> None:
        if j.key in self._removed:
            del self._removed[j.key]
        else:
            self._added[j.key] = j
        if is_rule_node(j.head):
            for x in {*j.premises, *j.unless}:
                self._cites[x] = self._cites.get(x, 0) + 1

    def _remove(self, j: Justification) -> None:
        if j.key in self._added:
            del self._added[j.key]
            if is_rule_node(j.head):
                for x in {*j.premises, *j.unless}:
                    self._cites[x] -= 1
        else:
            self._removed[j.key] = j

    # -- the pass ---------------------------------------------------------------------------

    def run(self) -> LinkDelta:
        todo = [] if self.scratch else sorted(self.index.watchers(self.changed))
        head_atoms = sorted({a for st in self.heads for a in self.texts.get(st.id, ())})
        todo += [a for a in head_atoms if self._derived_predicate(a) and not self._is_demanded(a)]
        touched: set[str] = set()
        self._evaluate(todo, touched)
        self._cited(touched)
        self._carriers()
        self._memories()
        self._nodes()
        committed = self._committed()
        if committed is not None:
            links = {self._symbol(a): j for a, j in self.firings.items() if self.demanded.get(a)}
            self.cache.expect(committed, self.goals.firings_made(), links)
        d = self.delta
        d.added = [self._added[k] for k in sorted(self._added)]
        d.removed = [self._removed[k] for k in sorted(self._removed)]
        return d

    def _evaluate(self, todo: list[str], touched: set[str]) -> None:
        """Evaluate the firings of every atom on ``todo``, and of the atoms new firings cite
        that nothing demanded yet (demanding them), and write each one's justification diff
        and watches. ``touched`` collects the atoms whose citations or firings changed."""
        while todo:
            atom = todo.pop()
            if atom in self.firings:
                continue
            old = self._stored_firings(atom)
            sym = self._symbol(atom)
            with self.goals.watch() as keys:
                found = self.goals.firings(sym)
            grown = self.goals.grown.get(sym)
            if grown is not None and self.cache.firings.get(sym) is not None:
                now = _grown(old, grown)  # the kept firings and those the new atoms add
            else:
                now = firing_justifications(found)
            self.firings[atom] = now
            if self._is_demanded(atom):
                kept = self.cache.firings.get(sym)  # what its firings read is what it watches
                old_keys = set(kept.keys) if kept is not None else self.index.watches(atom)
            else:
                self.demanded[atom] = True
                self.delta.demand_add.append(atom)
                old_keys = set()
            self.delta.watch_add += [(k, atom) for k in sorted(keys - old_keys)]
            self.delta.watch_drop += [(k, atom) for k in sorted(old_keys - keys)]
            for k, j in now.items():
                if old.get(k) == j:
                    continue
                if k in old:
                    self._remove(old[k])
                self._add(j)
                for b in _cited(j):
                    touched.add(b)
                    if self._derived_predicate(b) and not self._is_demanded(b):
                        todo.append(b)
            for k, j in old.items():
                if k not in now:
                    self._remove(j)
                    touched.update(_cited(j))
            if bool(old) != bool(now):
                touched.add(atom)  # its derivation justification may change

    def _cited(self, touched: set[str]) -> None:
        """Stop demanding the atoms no firing cites any more that no derived memory carries
        (their firings go too, and what those cited is looked at again); then give the atoms
        newly cited their carriers and derivation, and take them from those no longer
        cited."""
        work = sorted(touched)
        while work:
            b = work.pop()
            if (
                self._is_demanded(b)
                and b not in self.derived_carried
                and not self._cited_now(b)
                and (self.scratch or not self.index.carried_by_derived(b, self.policy))
            ):
                cited = self._undemand(b)
                touched.update(cited)
                work.extend(cited)
        for b in sorted(touched):
            was, now = self._was_cited(b), self._cited_now(b)
            self.cited_after[b] = now
            if now and not was:
                for carrier in self._carriers_of(b):
                    self._add(carrier_justification(b, carrier))
            elif was and not now:
                for j in self.store.justifications_for([atom_node(b)]):
                    self._remove(j)
                continue
            had = was and self._had_firings(b)
            has = now and self._has_firings(b)
            if has and not had:
                self._add(derivation_justification(b))
            elif had and not has:
                self._remove(derivation_justification(b))

    def _undemand(self, atom: str) -> list[str]:
        """Stop keeping an atom's firings: its ``rule:`` node loses its justifications.
        Returns the atoms they cited."""
        self.demanded[atom] = False
        if atom in self.delta.demand_add:
            self.delta.demand_add.remove(atom)
            self.delta.watch_add = [(k, a) for k, a in self.delta.watch_add if a != atom]
        else:
            self.delta.demand_drop.append(atom)
            self.delta.watch_add = [(k, a) for k, a in self.delta.watch_add if a != atom]
            dropped = {(k, a) for k, a in self.delta.watch_drop if a == atom}
            self.delta.watch_drop += [
                (k, atom) for k in sorted(self.index.watches(atom)) if (k, atom) not in dropped
            ]
        gone = {**self._stored_firings(atom), **self.firings.get(atom, {})}
        cited: list[str] = []
        for j in gone.values():
            if j.key in self._added or j.key in self.old.get(atom, {}):
                self._remove(j)
            cited.extend(_cited(j))
        self.firings[atom] = {}
        return cited

    def _was_cited(self, atom: str) -> bool:
        if atom not in self.was_cited:
            self.was_cited[atom] = not self.scratch and self.index.cited(atom_node(atom))
        return self.was_cited[atom]

    def _cited_now(self, atom: str) -> bool:
        """Whether some firing cites the atom once the change's differences are made."""
        node = atom_node(atom)
        if self._cites.get(node, 0) > 0:
            return True
        if self.scratch:
            return False
        return any(
            is_rule_node(j.head) and j.key not in self._removed for j in _citing(self.store, node)
        )

    def _carriers_of(self, atom: str) -> list[str]:
        if self.scratch:
            return sorted(self.carriers.get(atom, ()))
        new = [sid for sid in self.texts if atom in self.texts[sid]]
        return sorted({*(sid for sid, _ in self.index.carriers(self._symbol(atom))), *new})

    def _carriers(self) -> None:
        """A new state carrying an atom cited before the change: one justification."""
        if self.scratch:
            return
        for st in self.new_states:
            for b in self.texts.get(st.id, ()):
                if self._was_cited(b) and self.cited_after.get(b, True):
                    self._add(carrier_justification(b, st.id))

    def _memories(self) -> None:
        """Link the derived memories whose atoms now all have firings, and unlink those one
        of whose atoms lost its last (a memory's link cites every atom's ``rule:`` node)."""
        candidates = {st.id: self.texts.get(st.id, []) for st in self.heads}
        stored: set[str] = set()
        if not self.scratch:
            for atom, now in sorted(self.firings.items()):
                before = self._had_firings(atom)
                if before == bool(now):
                    continue
                if now:  # its first firing: the stored memories carrying it may link now
                    for sid, kind in self.index.carriers_with_kind(atom):
                        if sid not in candidates and not self.policy.is_exogenous(_Kind(sid, kind)):
                            candidates[sid] = self.index.atoms_of(sid)
                            stored.add(sid)
                else:  # its last firing gone: the links citing its rule node go
                    for j in _citing(self.store, rule_node(atom)):
                        if not is_internal(j.head) and j.origin is Origin.rule:
                            self._remove(j)
        for sid, atoms in sorted(candidates.items()):
            if atoms and all(self._has_firings(a) for a in atoms):
                j = memory_justification(sid, atoms)
                if sid not in stored or not self._stored(j):
                    self._add(j)

    def _stored(self, j: Justification) -> bool:
        return any(s.key == j.key for s in self.store.justifications_for([j.head]))

    def _nodes(self) -> None:
        """The atom nodes the added justifications name that are not stored yet."""
        named = {x for j in self._added.values() for x in (j.head, *j.premises, *j.unless)}
        internal = sorted(x for x in named if is_internal(x))
        if not internal:
            return
        stored = self.store.truths(internal)
        self.delta.nodes = [node_state(x, node_atom(x)) for x in internal if x not in stored]

    def _committed(self) -> Callable[[], bool] | None:
        """What shows that the change was committed: its first new state stored with its
        atoms (None: nothing to keep, or the change will fail, its first new state being
        stored already)."""
        if self.scratch or not self.new_states:
            return None
        first = self.new_states[0]
        if self.store.truths([first.id]):
            return None
        atoms = self.texts.get(first.id, [])
        return lambda: (
            bool(self.store.truths([first.id])) and self.index.atoms_of(first.id) == atoms
        )


@dataclass(frozen=True)
class _Kind:
    """A carrier as the policy reads it."""

    id: str
    kind: str


def kinded(sid: str, kind: str) -> Kinded:
    """A stored state's id and kind, for the policy."""
    return _Kind(sid, kind)


def is_link(j: Justification) -> bool:
    """True for a justification rule linking writes (J1 to J4)."""
    if j.origin is not Origin.rule:
        return False
    if is_internal(j.head):
        return True
    return bool(j.premises) and all(is_rule_node(p) for p in j.premises)


def legacy_link(j: Justification) -> bool:
    """True for a ``rule`` justification linking wrote before atom nodes (memory to memory):
    what relinking a store linked then removes."""
    return j.origin is Origin.rule and not is_link(j)


def atoms_node(atom: clingo.Symbol) -> str:
    """The ``atom:`` node of a symbol."""
    return atom_node(_text(atom))


def is_atom_link(j: Justification) -> bool:
    """True for ``atom:A <- carrier`` and ``atom:A <- rule:A``."""
    return j.origin is Origin.rule and is_atom_node(j.head)
