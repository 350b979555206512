"""Rule links: the support graph out of rule packs and grounded atoms.

A state's ``atoms`` say what it asserts (``moves(user,shanghai,shenzhen,"2026-12")``). Rule
packs say which atoms follow from which (``commute_city(P,C) :- home_city(P,C).``). This
module connects the two: every way the packs derive a derived state's atoms from atoms that
other states carry becomes a justification with origin ``rule``, whose premises are those
states. Atoms no state carries (``home_city(user,shenzhen)`` above) are expanded through the
firings that derive them, so a belief ends up justified directly by the facts under it.

The packs are grounded in their *potential* mode (``not`` ignored, recorded as ``unless``), so
that the justification of a default is in place before its blocker is asserted or retracted.

The same derivations answer the counterfactual question for candidate (``recovered``) edges:
if the rules derive the head without the candidate premise, it is not a dependency; if they
derive it only through the premise, it is; otherwise logic cannot tell.

Linking sees every state with atoms, superseded and retracted ones included, and the rule
packs rely on it: the builtin ``next_date`` ties an action dated D to the event an *old*
fact put first on or after D, so when the flight moves from 05-10 to 05-17 the check-in of
05-09 is still computed against 05-10 and loses its support with the superseded fact (were
the old fact left out, the check-in would be tied to nothing or to the new date). A
superseded or retracted state is false, so a justification citing it fails and one blocked
by it is free: including them never makes a state hold.

Limits, stated rather than hidden: an atom carried by a state is not expanded further (the
carrying state stands for it); an ``unless`` atom is blocked by every state that can derive
it, which over-approximates when a derivation needs several states together. Derivations
with the same premises and blockers are one justification, so duplicates are removed
before the cap; at most ``max_alternatives`` distinct derivations are kept per atom
(:data:`DEFAULT_ALTERNATIVES`, or the store's own; the cap bounds the product over a
state's atoms, which is what would otherwise grow without limit).

Under the cap, *live* derivations come first: those whose premises are all active (none
retracted or superseded), in firing order, then the others. A derivation through a dead
state supports nothing, so a cap filled in firing order alone could hold only such ones
while a live derivation lay past it, and revision would then drop the head as unsupported
(a commute belief over seventy moves to a city, the first sixty-four of them called off,
was). So a state's death relinks the heads whose capped derivations read it. What the
cap cannot see is truth: a premise that is active but false (a derived state that lost its
own support) counts as live, so a head capped over such premises can still lose support
that a derivation past the cap would give.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import clingo

from stategraph.errors import InvalidInputError
from stategraph.grounding.packs import Firing
from stategraph.model import EdgeCheck, Justification, Origin, State, trusted

if TYPE_CHECKING:
    from stategraph.engine.policy import Policy
    from stategraph.text.atom_index import LinkIndex, StoreInputs
    from stategraph.text.topdown import Carried, Carry, PackProgram

__all__ = [
    "DEFAULT_ALTERNATIVES",
    "LEGACY_ALTERNATIVES",
    "Derivation",
    "Evaluation",
    "Expander",
    "Group",
    "GroupCache",
    "IncrementalLinker",
    "Links",
    "RuleLinker",
    "delta",
    "link_from_scratch",
    "parse_atom",
    "rule_justification",
    "rule_key",
]


DEFAULT_ALTERNATIVES = 16
"""Derivations a memory keeps by default (``max_alternatives``, a new store's): the memories
of the sparse workload (:mod:`stategraph.bench.perf.textgen`) have fewer than 8 at 10^4 and
only a few have more than 16 at 10^5. Where thousands of memories rest on the same few facts
(a dense store), each derived memory writes its whole cap of justifications, and a fact
entering the cap displaces one in every memory it caps: 16 writes such a store twice as fast
as 64 did (see ``docs/linking.md``). A kept derivation is live whenever one is,
at any cap."""

LEGACY_ALTERNATIVES = 64
"""The cap of a store written before stores kept theirs (so what its memories were linked
under), and what a logged configuration without ``max_alternatives`` means."""


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


@dataclass(frozen=True, slots=True)
class Derivation:
    """One way to derive an atom: these states must hold, those must not."""

    premises: frozenset[str]
    unless: frozenset[str] = frozenset()
    rules: tuple[str, ...] = ()
    live: bool = field(default=True, compare=False)
    """No premise is retracted or superseded (only such a derivation can support its head;
    the cap keeps these first). Not part of the identity: a state's death changes no link
    under the cap."""

    def join(self, other: Derivation) -> Derivation:
        """Both derivations at once (a conjunction)."""
        return Derivation(
            self.premises | other.premises,
            self.unless | other.unless,
            tuple(sorted(set(self.rules) | set(other.rules))),
            self.live and other.live,
        )


@dataclass
class Links:
    """What the packs derive for a set of states."""

    derivations: dict[str, list[Derivation]] = field(default_factory=dict)
    """For each derived state with atoms: every rule derivation of all its atoms."""

    def justifications(self) -> list[Justification]:
        """One ``rule`` justification per derivation, sorted by identity."""
        out: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Justification] = {}
        for head, ders in self.derivations.items():
            for d in ders:
                j = Justification(
                    head=head,
                    premises=tuple(sorted(d.premises)),
                    unless=tuple(sorted(d.unless)),
                    origin=Origin.rule,
                    rules=d.rules,
                )
                out.setdefault(j.key, j)
        return [out[k] for k in sorted(out)]

    def check(self, head: str, premise: str) -> tuple[EdgeCheck, str] | None:
        """Is ``premise`` a dependency of ``head``, as far as the rules can tell?"""
        ders = self.derivations.get(head)
        if not ders:
            return None
        without = [d for d in ders if premise not in d.premises]
        if without:
            rules = ", ".join(without[0].rules)
            return EdgeCheck.independent, f"rules derive {head} without {premise} ({rules})"
        rules = ", ".join(ders[0].rules)
        return EdgeCheck.dependency, f"rules derive {head} only through {premise} ({rules})"


class RuleLinker:
    """Derives rule justifications between states from their atoms (``rule_linker.v1``).

    Args:
        packs: rule pack names (``rules/packs/<name>.lp``).
        max_alternatives: distinct derivations kept per atom (and per state), to bound
            the cost of wide rule fans; duplicates do not count against it.
    """

    name = "stategraph.rule_linker.v1"

    def __init__(self, packs: Sequence[str], max_alternatives: int = DEFAULT_ALTERNATIVES) -> None:
        from stategraph.grounding.packs import load_pack

        self.packs = tuple(packs)
        self._loaded = [load_pack(p) for p in self.packs]  # fail early on a bad pack name
        self.max_alternatives = max_alternatives

    def link(
        self,
        atoms_of: Mapping[str, Iterable[str]],
        derived: Iterable[str],
        dead: Iterable[str] = (),
    ) -> Links:
        """Derivations for every derived state, from the atoms of all given states.

        Args:
            atoms_of: the atoms of every state (facts and derived alike, retracted and
                superseded ones too).
            derived: which of them are derived states (heads to justify).
            dead: which of them are retracted or superseded (under the cap, derivations
                through none of them are kept first).
        """
        from stategraph.grounding.packs import derive

        carriers: dict[clingo.Symbol, list[str]] = {}
        symbols_of: dict[str, list[clingo.Symbol]] = {}
        for sid in sorted(atoms_of):
            syms = [parse_atom(a, sid) for a in atoms_of[sid]]
            symbols_of[sid] = syms
            for sym in syms:
                carriers.setdefault(sym, []).append(sid)
        if not carriers:
            return Links()
        by_head: dict[clingo.Symbol, list[Firing]] = {}
        for f in derive(carriers, self._loaded, potential=True):
            by_head.setdefault(f.head, []).append(f)
        gone = frozenset(dead)
        expander = Expander(
            lambda a: by_head.get(a, []),
            lambda a: carriers.get(a, []),
            self.max_alternatives,
            dead=gone.__contains__ if gone else None,
        )
        links = Links()
        for head in sorted(derived):
            found = expander.derivations(head, symbols_of.get(head, []))
            if found:
                links.derivations[head] = found
        return links


class Expander:
    """Turns rule firings into derivations of a state's atoms from the states carrying atoms.

    An atom some state carries stands for itself (it is not expanded further); any other atom
    is expanded through the firings that derive it, and an ``unless`` atom into every state
    that can derive it. At most ``max_alternatives`` distinct derivations are kept per atom,
    and per state: the live ones first (no premise dead), in firing order, then the others
    in firing order (see the module's doc).

    Args:
        firings_of: the firings deriving an atom, in :func:`derive`'s order.
        carriers_of: the states carrying an atom, sorted by id.
        max_alternatives: distinct derivations kept per atom and per state.
        memo: remembers an atom's derivations through the rules across expanders
            (``memo(atom, compute)``), for packs without recursion, where they do not depend
            on the path that reached the atom; None: each expander remembers its own.
        dead: whether a carrying state is retracted or superseded (asked of carriers only);
            None: none is.
        on_cut: called whenever the cap leaves derivations out (what a state's death can
            change: a list that holds every derivation holds it whatever their order).
    """

    def __init__(
        self,
        firings_of: Callable[[clingo.Symbol], Sequence[Firing]],
        carriers_of: Callable[[clingo.Symbol], Sequence[str]],
        max_alternatives: int,
        memo: Memo | None = None,
        dead: Callable[[str], bool] | None = None,
        on_cut: Callable[[], None] | None = None,
    ) -> None:
        self.firings_of = firings_of
        self.carriers_of = carriers_of
        self.max_alternatives = max_alternatives
        self._shared = memo
        self._dead = dead
        self._on_cut = on_cut
        self._memo: dict[clingo.Symbol, list[Derivation]] = {}

    def derivations(self, head: str, atoms: Sequence[clingo.Symbol]) -> list[Derivation]:
        """Every derivation of all of ``head``'s atoms, none through ``head`` itself."""
        if not atoms:
            return []
        shared = self._shared
        if shared is None:
            per_atom = [self._through_rules(sym, frozenset()) for sym in atoms]
        else:
            per_atom = [
                shared(sym, partial(self._through_rules, sym, frozenset())) for sym in atoms
            ]
        ders: dict[tuple[frozenset[str], frozenset[str]], Derivation] = {}
        for d, combo in _live_first([(Derivation(frozenset()), per_atom)]):
            for part in combo:
                d = d.join(part)
            if head in d.premises or head in d.unless:
                continue  # a derivation through the state itself supports nothing
            _keep(ders, d)
            if len(ders) >= self.max_alternatives:
                self._cut()
                break
        return list(ders.values())

    def _cut(self) -> None:
        if self._on_cut is not None:
            self._on_cut()

    def _through_rules(
        self, atom: clingo.Symbol, visiting: frozenset[clingo.Symbol]
    ) -> list[Derivation]:
        out: dict[tuple[frozenset[str], frozenset[str]], Derivation] = {}
        inner = visiting | {atom}
        firings = (  # each firing's blockers and parts are expanded only once reached
            (
                Derivation(frozenset(), self._blockers(f.unless, inner), (f.rule,)),
                [self._expand(p, inner) for p in f.premises],
            )
            for f in self.firings_of(atom)
        )
        for own, combo in _live_first(firings):
            d = own
            for part in combo:
                d = d.join(part)
            _keep(out, d)
            if len(out) >= self.max_alternatives:
                self._cut()
                break
        return list(out.values())

    def _expand(self, atom: clingo.Symbol, visiting: frozenset[clingo.Symbol]) -> list[Derivation]:
        carried = self.carriers_of(atom)
        if carried:
            dead = self._dead
            if dead is None:
                return [Derivation(frozenset((s,))) for s in carried]
            ders = [Derivation(frozenset((s,)), live=not dead(s)) for s in carried]
            return [d for d in ders if d.live] + [d for d in ders if not d.live]
        if atom in visiting:
            return []
        if self._shared is not None:
            return self._shared(atom, partial(self._through_rules, atom, visiting))
        if atom not in self._memo:
            self._memo[atom] = self._through_rules(atom, visiting)
        return self._memo[atom]

    def _blockers(
        self, atoms: Iterable[clingo.Symbol], visiting: frozenset[clingo.Symbol]
    ) -> frozenset[str]:
        return frozenset(s for u in atoms for d in self._expand(u, visiting) for s in d.premises)


Memo = Callable[[clingo.Symbol, Callable[[], list[Derivation]]], list[Derivation]]
"""``memo(atom, compute)``: the remembered derivations of an atom, or ``compute()``'s."""


def _live(ders: list[Derivation]) -> list[Derivation]:
    """The live derivations of a list that has them first (every list an expander makes)."""
    for n, d in enumerate(ders):
        if not d.live:
            return ders[:n]
    return ders


def _live_first(
    products: Iterable[tuple[Derivation, list[list[Derivation]]]],
) -> Iterator[tuple[Derivation, tuple[Derivation, ...]]]:
    """Each product's own derivation (a firing's rule and blockers) with each combination of
    its parts' derivations: every combination of live ones first, product after product, then
    those with a dead part, in the same order. ``products`` is read as far as the caller
    takes combinations."""
    past: list[tuple[Derivation, list[list[Derivation]]]] = []  # products with a dead part
    for own, parts in products:
        live = [_live(part) for part in parts]
        if any(len(a) != len(b) for a, b in zip(live, parts, strict=True)):
            past.append((own, parts))
        for combo in itertools.product(*live):
            yield own, combo
    for own, parts in past:
        for combo in itertools.product(*parts):
            if not all(d.live for d in combo):
                yield own, combo


def _keep(out: dict[tuple[frozenset[str], frozenset[str]], Derivation], d: Derivation) -> None:
    """Add ``d`` unless a derivation with the same premises and blockers is there; merge rules.

    Two derivations with the same states are one justification (its identity is head,
    premises, unless), so only the first counts against ``max_alternatives``.
    """
    key = (d.premises, d.unless)
    if key in out:
        old = out[key]
        out[key] = Derivation(
            old.premises, old.unless, tuple(sorted({*old.rules, *d.rules})), old.live
        )
    else:
        out[key] = d


@functools.cache
def _compiled(packs: tuple[str, ...]) -> PackProgram:
    """The packs compiled for top-down evaluation, once per process, as
    :func:`~stategraph.grounding.packs.load_pack` reads each pack once: a server opens a
    tenant's memory for every request, and compiling took 15 to 140 ms of it."""
    from stategraph.grounding.packs import load_pack
    from stategraph.text.topdown import compile_packs

    return compile_packs([load_pack(p) for p in packs])


class IncrementalLinker:
    """Links only what a change can affect (``incremental_linker.v1``), through the store's
    atom index (:mod:`stategraph.text.atom_index`).

    The memories a change relinks are the derived ones it adds, and the groups of memories
    (:class:`Evaluation`) whose last linking looked up a pattern one of the new atoms matches
    (an atom new to the inputs), the carriers of one of them (any new atom), or a
    ``next_date`` the new dates move. Each is linked by evaluating the packs top-down from
    its atoms (:mod:`stategraph.text.topdown`), which gives exactly the derivations
    :class:`RuleLinker` finds from scratch for it: the property suite holds the two to that,
    change after change.

    Args:
        packs: rule pack names.
        max_alternatives: as for :class:`RuleLinker`.

    Raises:
        ValueError: when the packs cannot be evaluated top-down (a recursive predicate); link
            those from scratch with :class:`RuleLinker`.
    """

    name = "stategraph.incremental_linker.v1"

    def __init__(self, packs: Sequence[str], max_alternatives: int = DEFAULT_ALTERNATIVES) -> None:
        self.packs = tuple(packs)
        self.program = _compiled(self.packs)
        self.max_alternatives = max_alternatives

    def changed(
        self, index: LinkIndex, inputs: StoreInputs, new: Iterable[clingo.Symbol]
    ) -> tuple[frozenset[str], tuple[clingo.Symbol, ...]]:
        """The lookup keys the new atoms change (their carriers; every pattern an atom new to
        the inputs matches; the ``next_date`` answers they move), and the atoms new to the
        inputs, sorted."""
        from stategraph.text.topdown import carrier_key, pattern_keys

        keys = set()
        fresh = []
        for atom in sorted(set(new)):
            keys.add(carrier_key(atom))
            if not index.carried(atom):  # an atom new to the inputs: every pattern it matches
                keys.update(pattern_keys(atom))
                fresh.append(atom)
        keys.update(inputs.changed_next_dates())
        return frozenset(keys), tuple(fresh)

    def affected(
        self, index: LinkIndex, inputs: StoreInputs, new: Iterable[clingo.Symbol]
    ) -> set[str]:
        """The stored groups (:func:`~stategraph.text.atom_index.group_key`) whose derivations
        the new atoms may change."""
        return index.watchers(self.changed(index, inputs, new)[0])

    def evaluation(self, inputs: StoreInputs, carry: Carry | None = None) -> Evaluation:
        """A linking pass over these inputs (memoized throughout), taking over the firings
        ``carry`` keeps where they still hold."""
        return Evaluation(self.program, inputs, self.max_alternatives, carry)

    def link(self, inputs: StoreInputs, heads: Mapping[str, Sequence[clingo.Symbol]]) -> Links:
        """The derivations of these memories (by their atoms, in order)."""
        ev = self.evaluation(inputs)
        links = Links()
        for head in sorted(heads):
            found = ev.head(head, heads[head])
            if found:
                links.derivations[head] = found
        return links


_CUT = "cut|"
"""Noted with an evaluation's lookup keys where the cap left derivations out (so that memoized
parts replay it); never a key of the index."""


class Evaluation:
    """One linking pass over one set of inputs: the derivations of memories, by their atoms.

    Memories with the same atoms have the same derivations, except where a derivation cites
    the memory itself (it supports nothing and is skipped, and the next one takes its place
    under the cap): so the derivations of a *group* of memories (:meth:`group`) are computed
    once, with the lookup keys they evaluated (what the group watches), and a memory's own
    (:meth:`head`) are the group's unless the group's cite it. One expander serves every
    memory: memories that share atoms (fifty reminders of one dose) share their expansions.

    Args:
        program: the compiled packs.
        inputs: the input atoms.
        max_alternatives: as for :class:`RuleLinker`.
    """

    def __init__(
        self,
        program: PackProgram,
        inputs: StoreInputs,
        max_alternatives: int,
        carry: Carry | None = None,
    ) -> None:
        from stategraph.text.topdown import Goals, carrier_key

        self.goals = goals = Goals(program, inputs, carry)
        carried: dict[clingo.Symbol, Sequence[str]] = {}

        def carriers(atom: clingo.Symbol) -> Sequence[str]:
            goals.note(carrier_key(atom))
            found = carried.get(atom)
            if found is None:
                found = carried[atom] = inputs.carriers(atom)
            return found

        def memo(atom: clingo.Symbol, compute: Callable[[], list[Derivation]]) -> list[Derivation]:
            return goals.cached("derivations", atom, compute)

        self.expander = Expander(
            goals.firings, carriers, max_alternatives, memo, inputs.dead, partial(goals.note, _CUT)
        )
        self._groups: dict[tuple[clingo.Symbol, ...], Group] = {}

    def group(self, atoms: Sequence[clingo.Symbol]) -> Group:
        """The derivations of a memory with these atoms citing none of the states in them."""
        key = tuple(atoms)
        found = self._groups.get(key)
        if found is None:
            with self.goals.watch() as keys:
                ders = self.expander.derivations("", atoms)
            capped = _CUT in keys
            found = self._groups[key] = Group(ders, frozenset(keys - {_CUT}), capped)
        return found

    def head(self, head: str, atoms: Sequence[clingo.Symbol]) -> list[Derivation]:
        """Every derivation of ``head``'s atoms, none through ``head`` itself."""
        group = self.group(atoms)
        if head in group.states:
            return self.expander.derivations(head, atoms)
        return group.derivations

    def firings(self) -> dict[clingo.Symbol, Carried]:
        """Every atom's firings this pass evaluated, with what they read (to carry over)."""
        return self.goals.firings_made()


@dataclass(frozen=True)
class Group:
    """The derivations of a group of memories (see :class:`Evaluation`).

    Attributes:
        derivations: every derivation of the group's atoms, in the expander's order.
        keys: the lookup keys evaluating them read (what the group watches).
    """

    derivations: list[Derivation]
    keys: frozenset[str]
    capped: bool = True
    """The cap left derivations out somewhere (of the group's, or of an atom's on the way);
    when not, no state's death changes them (nor those of a memory the group cites)."""

    @functools.cached_property
    def states(self) -> frozenset[str]:
        """Every state a derivation cites: a member among them has derivations of its own."""
        return frozenset(s for d in self.derivations for s in (*d.premises, *d.unless))

    @functools.cached_property
    def by_key(self) -> dict[tuple[frozenset[str], frozenset[str]], Derivation]:
        """The derivations by their premises and blockers (a justification's identity)."""
        return {(d.premises, d.unless): d for d in self.derivations}


class GroupCache:
    """Groups' derivations, and atoms' firings, over the committed store, kept between changes
    (their lookups are what a change with atoms costs most: a group a thousand memories share
    is evaluated once for each change that concerns it, not again for each new member; and
    an atom's firings over every move into a city are extended by the new move's, not found
    again: :class:`~stategraph.text.topdown.Carry`).

    A change's linking reads the cache (valid for the store as committed) and hands it the
    groups and firings as the change leaves them (:meth:`expect`); they replace the cached
    ones once the change is seen committed (:meth:`settle`, at the next linking: one of its
    new states, not stored when it was linked, is stored with its atoms, or the state it
    retracts is inactive), and are forgotten if it is not. What a pass evaluated over the
    committed store itself is kept at once (:meth:`keep`). Everything is forgotten when the
    store's version moves other than by this memory's own commits (another connection
    committed, or a rollback undid rows: :meth:`~stategraph.text.atom_index.LinkIndex.version`),
    or when there is no such version (PostgreSQL).

    Args:
        size: groups kept at most, and atoms' firings (least recently used go first).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._groups: dict[str, Group] = {}
        self.firings: dict[clingo.Symbol, Carried] = {}
        """Atoms' firings over the committed store."""
        self._version: object = None
        self._pending: (
            tuple[Callable[[], bool], dict[str, Group], dict[clingo.Symbol, Carried]] | None
        ) = None

    def clear(self) -> None:
        """Forget everything."""
        self._groups.clear()
        self.firings.clear()
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
            for grp, group in pending[1].items():
                self._groups.pop(grp, None)
                self._groups[grp] = group
            _bounded(self._groups, self.size)
            self.keep(pending[2])

    def keep(self, firings: Mapping[clingo.Symbol, Carried]) -> None:
        """Atoms' firings over the store as committed now."""
        for atom, carried in firings.items():
            self.firings.pop(atom, None)
            self.firings[atom] = carried
        _bounded(self.firings, self.size)

    def get(self, grp: str) -> Group | None:
        """A group's derivations over the committed store, if kept."""
        return self._groups.get(grp)

    def expect(
        self,
        committed: Callable[[], bool],
        groups: dict[str, Group],
        firings: dict[clingo.Symbol, Carried] | None = None,
    ) -> None:
        """The groups and atoms' firings as a change leaves them, kept once the change is
        seen committed (``committed()``, asked at the next :meth:`settle`: a new state of it
        stored with its atoms, say)."""
        self._pending = (committed, groups, firings or {})


def _bounded(kept: dict[Any, Any], size: int) -> None:
    """Drop the oldest entries of an insertion-ordered cache past ``size``."""
    while len(kept) > size:
        del kept[next(iter(kept))]


def delta(
    old: Sequence[Derivation], new: Sequence[Derivation]
) -> tuple[list[Derivation], list[Derivation]]:
    """What changes from one derivation list to the other: those added (or whose rules
    changed), and those dropped."""
    before = {(d.premises, d.unless): d for d in old}
    after = {(d.premises, d.unless): d for d in new}
    added = [d for k, d in after.items() if k not in before or before[k].rules != d.rules]
    dropped = [d for k, d in before.items() if k not in after]
    return added, dropped


def rule_key(head: str, d: Derivation) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The identity of the ``rule`` justification of a derivation (what a dropped derivation
    needs: a dense fact drops one from each of a thousand memories)."""
    return (head, tuple(sorted(d.premises)), tuple(sorted(d.unless)))


def rule_justification(head: str, d: Derivation) -> Justification:
    """The ``rule`` justification of a derivation (built, not validated: the ids come from
    the store and the change, both validated already)."""
    _, premises, unless = rule_key(head, d)
    return trusted(
        Justification,
        {
            "head": head,
            "premises": premises,
            "unless": unless,
            "origin": Origin.rule,
            "checked": {},
            "notes": {},
            "rules": d.rules,
            "proposed": {},
        },
    )


def link_from_scratch(
    states: Iterable[State],
    packs: Sequence[str],
    policy: Policy,
    *,
    dead: Iterable[str],
    max_alternatives: int = DEFAULT_ALTERNATIVES,
) -> list[Justification]:
    """The rule justifications linking gives a store's states from scratch: the reference
    incremental linking is held to (``tests/properties/test_linking.py``).

    Every state with atoms takes part, retracted and superseded ones too, as in linking
    (``dead`` names those); ``max_alternatives`` is the store's (``Memory.max_alternatives``).
    """
    with_atoms = [s for s in states if s.atoms]
    if not packs or not with_atoms:
        return []
    derived = [s.id for s in with_atoms if not policy.is_exogenous(s)]
    linker = RuleLinker(packs, max_alternatives)
    links = linker.link({s.id: s.atoms for s in with_atoms}, derived, dead)
    return links.justifications()
