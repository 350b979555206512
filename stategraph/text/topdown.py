"""Goal-directed evaluation of the rule packs: the firings that derive one atom.

:func:`~stategraph.grounding.packs.derive` grounds the packs over *every* input atom with
clingo, which is what linking a whole store from scratch needs and what one new memory must
not pay for. This module answers the narrower question linking asks per derived memory,
"which rule instances derive this atom?", by evaluating the packs top-down from the atom,
reading input atoms through an index (:class:`Inputs`): a rule whose head matches is joined
body literal by body literal, each literal looked up with the arguments bound so far, and a
literal over a derived predicate is solved the same way. Every lookup's pattern is recorded
(:attr:`Goals.keys`), which is how incremental linking knows that a new input atom can change
this memory's derivations: it matches one of the patterns.

The answers are exactly :func:`~stategraph.grounding.packs.derive`'s in ``potential`` mode,
restricted to the asked atoms: the same rule instances (a positive body literal holds when its
atom is in the least model of the inputs, the packs' static facts and the builtins; ``not``
over a builtin is evaluated; any other ``not`` is recorded as an ``unless`` atom), the same
premises (body order, without static and builtin atoms), the same order. The property suite
holds the two to that (``tests/properties/test_linking.py``).

Supported rule shapes are those :class:`~stategraph.grounding.packs.RulePack` accepts: normal
rules over terms built from variables, constants and functions, with comparisons. Packs whose
predicates depend on themselves (recursion) are refused by :func:`compile_packs`; the linker
then links from scratch.
"""

from __future__ import annotations

import bisect
import functools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import clingo
from clingo import ast

from stategraph.grounding.packs import (
    BUILTINS,
    Firing,
    RulePack,
    is_date,
    next_event,
    static_atoms,
)

__all__ = [
    "AtomSet",
    "Goals",
    "Inputs",
    "PackProgram",
    "atom_key",
    "carrier_key",
    "compile_packs",
    "next_date_key",
    "pattern_keys",
    "symbol_args",
    "symbol_parts",
    "symbol_text",
]


@dataclass(frozen=True, slots=True)
class Var:
    """A variable of a rule."""

    name: str


@dataclass(frozen=True, slots=True)
class Fun:
    """A function term (``name`` empty for a tuple) whose arguments are not all ground."""

    name: str
    args: tuple[Term, ...]


Term = Var | Fun | clingo.Symbol
T = TypeVar("T")
Binding = dict[str, clingo.Symbol]

_COMPARE: dict[ast.ComparisonOperator, Callable[[clingo.Symbol, clingo.Symbol], bool]] = {
    ast.ComparisonOperator.Equal: operator.eq,
    ast.ComparisonOperator.NotEqual: operator.ne,
    ast.ComparisonOperator.LessThan: operator.lt,
    ast.ComparisonOperator.LessEqual: operator.le,
    ast.ComparisonOperator.GreaterThan: operator.gt,
    ast.ComparisonOperator.GreaterEqual: operator.ge,
}


@dataclass(frozen=True, slots=True)
class Rule:
    """One pack rule, compiled.

    Attributes:
        id: ``"pack:line"``, as firings name it.
        head: the head atom.
        pos: the positive body literals, in body order (builtins included).
        neg: the atoms under ``not``, in body order.
        cmps: the comparisons, as ``(test, left, right)``.
    """

    id: str
    head: Fun | clingo.Symbol
    pos: tuple[Fun | clingo.Symbol, ...]
    neg: tuple[Fun | clingo.Symbol, ...]
    cmps: tuple[tuple[Callable[[clingo.Symbol, clingo.Symbol], bool], Term, Term], ...]


@dataclass(frozen=True)
class PackProgram:
    """A set of packs compiled for top-down evaluation.

    Attributes:
        names: the packs.
        rules: by head signature ``(name, arity)``.
        static: the packs' static atoms (:func:`~stategraph.grounding.packs.static_atoms`),
            by signature.
        derived: signatures some rule derives.
    """

    names: tuple[str, ...]
    rules: dict[tuple[str, int], tuple[Rule, ...]]
    static: dict[tuple[str, int], frozenset[clingo.Symbol]]
    derived: frozenset[tuple[str, int]]

    def is_static(self, atom: clingo.Symbol) -> bool:
        """True for pack knowledge."""
        return atom in self.static.get(_signature(atom), ())

    def inputs_of(self, signature: tuple[str, int]) -> frozenset[tuple[str, int]] | None:
        """The predicates of input atoms that can change which atoms of a derived predicate
        there are: those its rules read, under ``not`` too, through derived predicates down to
        the inputs; None when a rule on the way reads a builtin (``mentioned`` reads every
        input, ``next_date`` the dates of one). Its own signature is among them (memories may
        carry derived atoms)."""
        return self._inputs.get(signature, frozenset({signature}))

    @functools.cached_property
    def _inputs(self) -> dict[tuple[str, int], frozenset[tuple[str, int]] | None]:
        out: dict[tuple[str, int], frozenset[tuple[str, int]] | None] = {}

        def reach(sig: tuple[str, int]) -> frozenset[tuple[str, int]] | None:
            if sig not in self.rules:
                return frozenset({sig})
            if sig not in out:
                found: set[tuple[str, int]] = {sig}
                for rule in self.rules[sig]:
                    for lit in (*rule.pos, *rule.neg):
                        below = _signature(lit)
                        more = None if below in _BUILTIN_SIGNATURES else reach(below)
                        if more is None:
                            out[sig] = None
                            return None
                        found |= more
                out[sig] = frozenset(found)
            return out[sig]

        for sig in sorted(self.rules):
            reach(sig)
        return out

    @functools.cached_property
    def _static_index(self) -> dict[tuple[str, int, int, clingo.Symbol], list[clingo.Symbol]]:
        index: dict[tuple[str, int, int, clingo.Symbol], list[clingo.Symbol]] = {}
        for (name, arity), atoms in self.static.items():
            for atom in sorted(atoms):
                for i, a in enumerate(atom.arguments):
                    index.setdefault((name, arity, i, a), []).append(atom)
        return index

    def static_matching(
        self, name: str, arity: int, bound: dict[int, clingo.Symbol]
    ) -> list[clingo.Symbol]:
        """The static atoms ``name/arity`` with these arguments at the bound positions."""
        if not bound:
            return sorted(self.static.get((name, arity), ()))
        pools = [self._static_index.get((name, arity, i, v), []) for i, v in bound.items()]
        pool = min(pools, key=len)
        if len(bound) == 1:
            return pool
        return [a for a in pool if all(symbol_args(a)[i] == v for i, v in bound.items())]


class Inputs(Protocol):
    """The input atoms (every atom some memory carries) and the builtins over them."""

    def matching(
        self, name: str, arity: int, bound: dict[int, clingo.Symbol]
    ) -> Sequence[clingo.Symbol]:
        """Input atoms ``name/arity`` whose arguments at the bound positions are these."""
        ...

    def is_input(self, atom: clingo.Symbol) -> bool:
        """True when some memory carries the atom."""
        ...

    def next_date(self, date: str, predicate: str) -> tuple[int, str] | None:
        """``(days, event)`` of ``next_date(date, predicate, event, days)``, if it holds."""
        ...


def _term(node: ast.AST) -> Term:
    kind = node.ast_type
    if kind == ast.ASTType.Variable:
        return Var(node.name)
    if kind == ast.ASTType.SymbolicTerm:
        return node.symbol  # type: ignore[no-any-return]
    if kind == ast.ASTType.Function and not node.external:
        args = tuple(_term(a) for a in node.arguments)
        if all(isinstance(a, clingo.Symbol) for a in args):
            return clingo.Function(node.name, list(args))  # type: ignore[arg-type]
        return Fun(node.name, args)
    raise ValueError(f"unsupported term {node}")


def _atom(node: ast.AST) -> Fun | clingo.Symbol:
    term = _term(node)
    if isinstance(term, Var):
        raise ValueError(f"an atom cannot be a variable: {node}")
    return term


def _signature(atom: Fun | clingo.Symbol) -> tuple[str, int]:
    if isinstance(atom, Fun):
        return (atom.name, len(atom.args))
    parts = symbol_parts(atom)
    return ("", 0) if parts is None else (parts[0], len(parts[1]))


def compile_packs(packs: Sequence[RulePack]) -> PackProgram:
    """Compile packs for top-down evaluation.

    Raises:
        ValueError: when a rule uses a term this evaluator does not support, or a predicate
            depends on itself (the caller then links from scratch with clingo).
    """
    rules: dict[tuple[str, int], list[Rule]] = {}
    for pack in packs:
        for stm in pack.statements:
            if stm.ast_type != ast.ASTType.Rule or not stm.body:
                continue
            head = _atom(stm.head.atom.symbol)
            if head.name.startswith("__sg_"):
                continue
            pos, neg, cmps = [], [], []
            for lit in stm.body:
                if lit.atom.ast_type == ast.ASTType.Comparison:
                    left = _term(lit.atom.term)
                    for guard in lit.atom.guards:
                        right = _term(guard.term)
                        cmps.append((_COMPARE[guard.comparison], left, right))
                        left = right
                elif lit.sign == ast.Sign.NoSign:
                    pos.append(_atom(lit.atom.symbol))
                else:
                    neg.append(_atom(lit.atom.symbol))
            rule = Rule(
                f"{pack.name}:{stm.location.begin.line}",
                head,
                tuple(pos),
                tuple(neg),
                tuple(cmps),
            )
            rules.setdefault(_signature(head), []).append(rule)
    _check_acyclic(rules)
    static: dict[tuple[str, int], set[clingo.Symbol]] = {}
    for atom in static_atoms(tuple(p.name for p in packs)):
        static.setdefault((atom.name, len(atom.arguments)), set()).add(atom)
    return PackProgram(
        tuple(p.name for p in packs),
        {k: tuple(v) for k, v in rules.items()},
        {k: frozenset(v) for k, v in static.items()},
        frozenset(rules),
    )


def _check_acyclic(rules: dict[tuple[str, int], list[Rule]]) -> None:
    state: dict[tuple[str, int], int] = {}

    def visit(sig: tuple[str, int]) -> None:
        if state.get(sig) == 2:
            return
        if state.get(sig) == 1:
            raise ValueError(f"{sig[0]}/{sig[1]} depends on itself")
        state[sig] = 1
        for rule in rules.get(sig, ()):
            for lit in (*rule.pos, *rule.neg):
                if _signature(lit) in rules:
                    visit(_signature(lit))
        state[sig] = 2

    for sig in sorted(rules):
        visit(sig)


def _ground(term: Term, b: Binding) -> clingo.Symbol | None:
    if isinstance(term, clingo.Symbol):
        return term
    if isinstance(term, Var):
        return b.get(term.name)
    args = []
    for a in term.args:
        g = _ground(a, b)
        if g is None:
            return None
        args.append(g)
    return clingo.Function(term.name, args)


def _unify(term: Term, sym: clingo.Symbol, b: Binding) -> Binding | None:
    """``b`` extended so that ``term`` equals ``sym``, or None."""
    if isinstance(term, clingo.Symbol):
        return b if term == sym else None
    if isinstance(term, Var):
        if term.name in b:
            return b if b[term.name] == sym else None
        return {**b, term.name: sym}
    parts = symbol_parts(sym)
    if parts is None or parts[0] != term.name or len(parts[1]) != len(term.args):
        return None
    for a, s in zip(term.args, parts[1], strict=True):
        found = _unify(a, s, b)
        if found is None:
            return None
        b = found
    return b


def _bound(atom: Fun | clingo.Symbol, b: Binding) -> dict[int, clingo.Symbol]:
    args = atom.args if isinstance(atom, Fun) else symbol_args(atom)
    out = {}
    for i, a in enumerate(args):
        g = _ground(a, b)
        if g is not None:
            out[i] = g
    return out


@functools.lru_cache(maxsize=1 << 18)
def symbol_text(symbol: clingo.Symbol) -> str:
    """A symbol as clingo prints it (cached: printing goes through the C library)."""
    return str(symbol)


@functools.lru_cache(maxsize=1 << 18)
def symbol_parts(symbol: clingo.Symbol) -> tuple[str, tuple[clingo.Symbol, ...]] | None:
    """A function symbol's name and arguments, None for any other symbol (cached: each of
    clingo's accessors costs microseconds, and evaluating a dense group reads them hundreds
    of thousands of times, issue 23)."""
    if symbol.type is not clingo.SymbolType.Function:
        return None
    return symbol.name, tuple(symbol.arguments)


def symbol_args(symbol: clingo.Symbol) -> tuple[clingo.Symbol, ...]:
    """A function symbol's arguments (cached, :func:`symbol_parts`); none for any other."""
    parts = symbol_parts(symbol)
    return () if parts is None else parts[1]


def atom_key(name: str, arity: int, bound: dict[int, clingo.Symbol]) -> str:
    """The key of a lookup pattern: ``name/arity`` and each bound position's value."""
    parts = [f"{name}/{arity}", *(f"{i}={symbol_text(bound[i])}" for i in sorted(bound))]
    return "|".join(parts)


@functools.lru_cache(maxsize=1 << 16)
def pattern_keys(atom: clingo.Symbol) -> tuple[str, ...]:
    """The key of every lookup pattern a ground atom matches (each subset of its arguments
    bound), the one with every argument bound last: a new input atom concerns exactly the
    memories watching one of these."""
    args = atom.arguments
    keys = []
    for mask in range(1 << len(args)):
        bound = {i: a for i, a in enumerate(args) if mask >> i & 1}
        keys.append(atom_key(atom.name, len(args), bound))
    return tuple(keys)


def carrier_key(atom: clingo.Symbol) -> str:
    """The key of a lookup of the memories carrying a ground atom (which changes with every
    new carrier; :func:`pattern_keys` change only when an atom is new to the inputs)."""
    return "carriers|" + pattern_keys(atom)[-1]


def next_date_key(date: str, predicate: str) -> str:
    """The key of a ``next_date`` lookup for one date and event predicate (date first, so
    that every lookup of one date shares a prefix)."""
    return f"next_date|{date}|{predicate}"


@dataclass(frozen=True)
class Carried:
    """An atom's firings over the committed store, and the lookup keys evaluating them read.

    Attributes:
        firings: as :meth:`Goals.firings` gives them.
        keys: what they depend on (:meth:`Goals.watch`).
    """

    firings: list[Firing]
    keys: frozenset[str]


@dataclass(frozen=True)
class Carry:
    """What a linking pass over a change carries over from the committed store: the firings
    kept (``committed``), the lookup keys the change moves (``changed``: the patterns its
    atoms new to the inputs match, their carriers, the ``next_date`` answers they move), and
    those atoms (``new``). A kept atom's firings are taken as they are when they read no
    changed key, extended with the new atoms' firings where that is exact
    (:meth:`Goals._extends`), and evaluated again otherwise."""

    committed: Mapping[clingo.Symbol, Carried]
    changed: frozenset[str]
    new: tuple[clingo.Symbol, ...]


@dataclass
class Goals:
    """Top-down evaluation over one set of inputs, memoized for one linking pass.

    Attributes:
        program: the compiled packs.
        inputs: the input atoms and builtins.
        carry: firings kept from the committed store, if any (:class:`Carry`).
        keys: every lookup pattern evaluated so far (:func:`atom_key`, :func:`next_date_key`).
    """

    program: PackProgram
    inputs: Inputs
    carry: Carry | None = None
    keys: set[str] = field(default_factory=set)
    grown: dict[clingo.Symbol, list[Firing]] = field(default_factory=dict)
    """For each atom whose firings were taken from ``carry`` (unchanged, or extended by the
    new atoms'), the firings that may have been added (possibly some already kept): what a
    caller that keeps something per firing updates, instead of all of it."""
    _memo: dict[tuple[str, object], tuple[object, frozenset[str]]] = field(default_factory=dict)
    _stack: list[set[str]] = field(default_factory=list)

    @contextmanager
    def watch(self) -> Iterator[set[str]]:
        """Collect the lookup keys of everything evaluated inside the block, memoized parts
        included: what the results computed there depend on."""
        self._stack.append(set())
        try:
            yield self._stack[-1]
        finally:
            keys = self._stack.pop()
            self._note_all(keys)

    def note(self, key: str) -> None:
        """Record a lookup made outside the evaluator (a carrier lookup by the linker)."""
        self._note(key)

    def _note(self, key: str) -> None:
        (self._stack[-1] if self._stack else self.keys).add(key)

    def _note_all(self, keys: Iterable[str]) -> None:
        (self._stack[-1] if self._stack else self.keys).update(keys)

    def cached(self, kind: str, arg: object, compute: Callable[[], T]) -> T:
        """Memoize ``compute`` with the keys it looked up, replayed on every later hit (so a
        caller inside :meth:`watch` sees the keys of what it was served from the memo)."""
        hit = self._memo.get((kind, arg))
        if hit is not None:
            self._note_all(hit[1])
            return hit[0]  # type: ignore[return-value]
        self._stack.append(set())
        try:
            value = compute()
        finally:
            keys = self._stack.pop()
        self._memo[kind, arg] = (value, frozenset(keys))
        self._note_all(keys)
        return value

    def firings_made(self) -> dict[clingo.Symbol, Carried]:
        """Every atom's firings evaluated so far, with the keys they read."""
        out: dict[clingo.Symbol, Carried] = {}
        for (kind, arg), (value, keys) in self._memo.items():
            if kind == "firings" and isinstance(arg, clingo.Symbol):
                out[arg] = Carried(value, keys)  # type: ignore[arg-type]
        return out

    def firings(self, atom: clingo.Symbol) -> list[Firing]:
        """Every rule instance that derives ``atom`` (in :func:`derive`'s order), as
        :func:`derive` reports it: none for pack knowledge; premises without pack knowledge
        or builtins; none blocked by pack knowledge."""
        return self.cached("firings", atom, lambda: self._compute_firings(atom))

    def _compute_firings(self, atom: clingo.Symbol) -> list[Firing]:
        carry = self.carry
        kept = carry.committed.get(atom) if carry is not None else None
        if kept is not None and carry is not None:
            hit = kept.keys & carry.changed
            if not hit:  # nothing it looked up changed
                self._note_all(kept.keys)
                self.grown[atom] = []
                return kept.firings
            if self._extends(atom, kept, carry, hit):
                self._note_all(kept.keys)
                # an atom with firings was not pack knowledge, and new inputs do not make it so
                new = self._new_instances(atom, carry.new)
                more = set(self._firings(atom, new, dynamic=bool(kept.firings)))
                self.grown[atom] = sorted(more, key=_firing_order)
                return _merged(kept.firings, more)
        return sorted(set(self._firings(atom, self._instances(atom))), key=_firing_order)

    def _firings(
        self,
        atom: clingo.Symbol,
        instances: Iterable[tuple[Rule, list[clingo.Symbol], list[clingo.Symbol]]],
        dynamic: bool = False,
    ) -> Iterator[Firing]:
        """The firings of these instances deriving ``atom`` (see :meth:`firings`);
        ``dynamic``: ``atom`` is known not to be pack knowledge."""
        if not dynamic and self.is_static(atom):
            return
        for rule, pos, neg in instances:
            if any(self.is_static(n) for n in neg):
                continue
            premises = tuple(p for p in pos if not self.is_static(p))
            unless = tuple(n for n in neg if not _is_builtin(n))
            yield Firing(rule.id, atom, premises, unless)

    def _extends(
        self, atom: clingo.Symbol, kept: Carried, carry: Carry, hit: frozenset[str]
    ) -> bool:
        """Whether ``atom``'s firings over the committed store, with those that bind a new
        input atom added, are its firings now (semi-naive evaluation, issue 23).

        They are when the new atoms can enter them only as the match of a positive literal
        of a rule deriving ``atom``: no new atom is of a derived or static predicate (it
        could change what a derived literal matches, or what is pack knowledge), or of a
        predicate the rules negate or match through ``mentioned``; no derived literal of
        those rules is derived from a predicate of a new atom (:meth:`PackProgram.inputs_of`:
        then what it matches is as it was); the firings looked up no new atom whole
        (whether it is carried: it is now) and no ``next_date`` the new atoms move (``hit``:
        the changed keys they read). Anything else is evaluated again in full.
        """
        program = self.program
        if any(k.startswith("next_date|") for k in hit):
            return False
        signatures = set()
        for m in carry.new:
            signature = _signature(m)
            if signature in program.derived or signature in program.static:
                return False
            if pattern_keys(m)[-1] in kept.keys:
                return False
            signatures.add(signature)
        for rule in program.rules.get(_signature(atom), ()):
            for lit in rule.pos:
                if _signature(lit) == ("mentioned", 1):
                    return False
                if _signature(lit) in program.derived and not self._same_matches(
                    atom, rule, lit, kept, carry, signatures
                ):
                    return False
            if any(_signature(n) in signatures for n in rule.neg):
                return False
        return True

    def _same_matches(
        self,
        atom: clingo.Symbol,
        rule: Rule,
        lit: Fun | clingo.Symbol,
        kept: Carried,
        carry: Carry,
        signatures: set[tuple[str, int]],
    ) -> bool:
        """Whether the derived literal ``lit`` of ``rule`` matches in ``atom``'s firings what
        it matched before the new atoms (of ``signatures``) came.

        It does when it is derived from none of their predicates; or when ``atom`` binds it
        to one atom that was derivable before: a kept firing of the rule cites it, or it had
        firings itself. The potential model only grows with the inputs (``not`` is recorded,
        not applied, and no builtin is read on the way: :meth:`PackProgram.inputs_of`), so
        that atom is still derivable, and it is the only one the literal can match.
        """
        inputs = self.program.inputs_of(_signature(lit))
        if inputs is None:
            return False
        if inputs.isdisjoint(signatures):
            return True
        b = _unify(rule.head, atom, {})
        one = _ground(lit, b) if b is not None else None
        if one is None:
            return False
        if any(f.rule == rule.id and one in f.premises for f in kept.firings):
            return True
        before = carry.committed.get(one)
        return before is not None and bool(before.firings)

    def _new_instances(
        self, atom: clingo.Symbol, new: Sequence[clingo.Symbol]
    ) -> Iterator[tuple[Rule, list[clingo.Symbol], list[clingo.Symbol]]]:
        """The rule instances deriving ``atom`` that match a new atom to one of their
        positive literals (each once per literal it can match: the caller keeps a set)."""
        for rule in self.program.rules.get(_signature(atom), ()):
            b = _unify(rule.head, atom, {})
            if b is None:
                continue
            for i, lit in enumerate(rule.pos):
                rest = [*rule.pos[:i], *rule.pos[i + 1 :]]
                for m in new:
                    if _signature(m) != _signature(lit):
                        continue
                    bound = _unify(lit, m, b)
                    if bound is None:
                        continue
                    for full in self._join(rest, list(rule.cmps), bound):
                        found = self._instance(rule, full)
                        if found is not None:
                            yield found

    def is_static(self, atom: clingo.Symbol) -> bool:
        """Pack knowledge: a static fact or builtin that no memory carries, or an atom that
        follows from such atoms alone through a rule without ``not``."""
        return self.cached("static", atom, lambda: self._compute_static(atom))

    def _compute_static(self, atom: clingo.Symbol) -> bool:
        if _is_builtin(atom):
            found = self._builtin_holds(atom)
        elif self.program.is_static(atom):
            found = not self._carried(atom)
        elif _signature(atom) in self.program.derived:
            found = not self._carried(atom) and any(
                not neg and all(self.is_static(p) for p in pos)
                for _rule, pos, neg in self._instances(atom)
            )
        else:
            found = False
        return found

    def _carried(self, atom: clingo.Symbol) -> bool:
        self._note(pattern_keys(atom)[-1])
        return self.inputs.is_input(atom)

    def _builtin_holds(self, atom: clingo.Symbol) -> bool:
        if atom.name == "mentioned":
            return self._carried(symbol_args(atom)[0])
        date, pred, event, days = symbol_args(atom)
        if date.type is not clingo.SymbolType.String:
            return False
        self._note(next_date_key(date.string, str(pred)))
        found = self.inputs.next_date(date.string, str(pred))
        return found is not None and (clingo.String(found[1]), clingo.Number(found[0])) == (
            event,
            days,
        )

    def _instances(
        self, atom: clingo.Symbol
    ) -> list[tuple[Rule, list[clingo.Symbol], list[clingo.Symbol]]]:
        """The rule instances deriving ``atom`` in the potential model: every positive body
        literal holds there and no ``not`` over a builtin does; with the ground positive
        and negated atoms, in body order."""
        return self.cached("instances", atom, lambda: self._compute_instances(atom))

    def _compute_instances(
        self, atom: clingo.Symbol
    ) -> list[tuple[Rule, list[clingo.Symbol], list[clingo.Symbol]]]:
        found: list[tuple[Rule, list[clingo.Symbol], list[clingo.Symbol]]] = []
        for rule in self.program.rules.get(_signature(atom), ()):
            b = _unify(rule.head, atom, {})
            if b is None:
                continue
            for full in self._join(list(rule.pos), list(rule.cmps), b):
                instance = self._instance(rule, full)
                if instance is not None:
                    found.append(instance)
        return found

    def _instance(
        self, rule: Rule, full: Binding
    ) -> tuple[Rule, list[clingo.Symbol], list[clingo.Symbol]] | None:
        """A rule's instance under a binding of its body: its ground positive and negated
        atoms; None when it is unsafe or a ``not`` over a builtin fails."""
        pos = [_ground(lit, full) for lit in rule.pos]
        neg = [_ground(lit, full) for lit in rule.neg]
        if any(a is None for a in (*pos, *neg)):  # unsafe: clingo refuses it too
            return None
        ground_pos = [a for a in pos if a is not None]
        ground_neg = [a for a in neg if a is not None]
        if any(_is_builtin(n) and self._builtin_holds(n) for n in ground_neg):
            return None
        return rule, ground_pos, ground_neg

    def _join(
        self,
        pending: list[Fun | clingo.Symbol],
        cmps: list[tuple[Callable[[clingo.Symbol, clingo.Symbol], bool], Term, Term]],
        b: Binding,
    ) -> Iterator[Binding]:
        """Every binding of the positive literals (and comparisons) extending ``b``."""
        for i, (test, left, right) in enumerate(cmps):
            lv, rv = _ground(left, b), _ground(right, b)
            if lv is not None and rv is not None:
                if not test(lv, rv):
                    return
                yield from self._join(pending, cmps[:i] + cmps[i + 1 :], b)
                return
        if not pending:
            if not cmps:
                yield b
            return
        lit = min(pending, key=lambda a: self._cost(a, b))
        rest = [p for p in pending if p is not lit]
        for atom in self._matches(lit, b):
            extended = _unify(lit, atom, b)
            if extended is not None:
                yield from self._join(rest, cmps, extended)

    def _cost(self, lit: Fun | clingo.Symbol, b: Binding) -> tuple[int, int]:
        """Evaluate cheap and bound literals first; ``next_date`` once its date is bound."""
        name, arity = _signature(lit)
        bound = _bound(lit, b)
        if name == "next_date" and arity == 4:
            return (0 if 0 in bound and 1 in bound else 9, 0)
        if (name, arity) in self.program.static and (name, arity) not in self.program.derived:
            return (1, -len(bound))
        return (2, -len(bound))

    def _matches(self, lit: Fun | clingo.Symbol, b: Binding) -> Iterator[clingo.Symbol]:
        """The atoms true in the potential model that could match ``lit`` under ``b``."""
        name, arity = _signature(lit)
        bound = _bound(lit, b)
        if name == "next_date" and arity == 4:
            date, pred = bound.get(0), bound.get(1)
            if date is None or pred is None or date.type is not clingo.SymbolType.String:
                return  # unsafe without its date: clingo grounds nothing either
            self._note(next_date_key(date.string, str(pred)))
            found = self.inputs.next_date(date.string, str(pred))
            if found is not None:
                days, event = found
                yield clingo.Function(
                    "next_date", [date, pred, clingo.String(event), clingo.Number(days)]
                )
            return
        if name == "mentioned" and arity == 1:
            inner = lit.args[0] if isinstance(lit, Fun) else symbol_args(lit)[0]
            g = _ground(inner, b)
            if g is not None:
                if self._carried(g):
                    yield clingo.Function("mentioned", [g])
                return
            if isinstance(inner, Fun):
                for atom in self._inputs(inner.name, len(inner.args), _bound(inner, b)):
                    yield clingo.Function("mentioned", [atom])
            return
        seen: set[clingo.Symbol] = set()
        for atom in self.program.static_matching(name, arity, bound):
            seen.add(atom)
            yield atom
        for atom in self._inputs(name, arity, bound):
            if atom not in seen:
                seen.add(atom)
                yield atom
        if (name, arity) in self.program.derived:
            for atom in self._derived(lit, bound):
                if atom not in seen:
                    seen.add(atom)
                    yield atom

    def _inputs(
        self, name: str, arity: int, bound: dict[int, clingo.Symbol]
    ) -> Sequence[clingo.Symbol]:
        self._note(atom_key(name, arity, bound))
        return self.inputs.matching(name, arity, bound)

    def _derived(
        self, lit: Fun | clingo.Symbol, bound: dict[int, clingo.Symbol]
    ) -> list[clingo.Symbol]:
        """The atoms of a derived predicate matching a partly bound literal that hold in the
        potential model."""
        name, arity = _signature(lit)
        key = atom_key(name, arity, bound)
        return self.cached("derived", key, lambda: self._compute_derived(name, arity, bound))

    def _compute_derived(
        self, name: str, arity: int, bound: dict[int, clingo.Symbol]
    ) -> list[clingo.Symbol]:
        out: set[clingo.Symbol] = set()
        for rule in self.program.rules.get((name, arity), ()):
            b: Binding | None = {}
            head_args = rule.head.args if isinstance(rule.head, Fun) else symbol_args(rule.head)
            for i, value in bound.items():
                b = _unify(head_args[i], value, b) if b is not None else None
            if b is None:
                continue
            for full in self._join(list(rule.pos), list(rule.cmps), b):
                head = _ground(rule.head, full)
                if head is None:
                    continue
                neg = [_ground(n, full) for n in rule.neg]
                if any(n is not None and _is_builtin(n) and self._builtin_holds(n) for n in neg):
                    continue
                out.add(head)
        return sorted(out)


def _merged(firings: Sequence[Firing], more: Iterable[Firing]) -> list[Firing]:
    """``firings`` (sorted, distinct) with ``more`` put in their places, in the order
    :func:`_firing_order` gives, each once: the few firings a new atom adds cost a few
    comparisons each, not a sort of the thousand a dense atom has."""
    out = list(firings)
    for f in sorted(more, key=_firing_order):
        i = bisect.bisect_left(out, _firing_order(f), key=_firing_order)
        if i == len(out) or out[i] != f:
            out.insert(i, f)
    return out


def _firing_order(f: Firing) -> tuple[str, str, list[str], list[str]]:
    """:func:`~stategraph.grounding.packs.firing_order` (the order :func:`derive` gives, which
    linking must keep), with each symbol printed once (:func:`symbol_text`)."""
    return (
        symbol_text(f.head),
        f.rule,
        [symbol_text(p) for p in f.premises],
        [symbol_text(u) for u in f.unless],
    )


_BUILTIN_SIGNATURES = frozenset(
    (name, int(arity)) for name, arity in (b.split("/") for b in BUILTINS)
)


def _is_builtin(atom: clingo.Symbol) -> bool:
    return _signature(atom) in _BUILTIN_SIGNATURES


class AtomSet:
    """:class:`Inputs` over atoms held in memory, indexed by predicate and argument."""

    def __init__(self, atoms: Iterable[clingo.Symbol] = ()) -> None:
        self._atoms: set[clingo.Symbol] = set()
        self._index: dict[str, list[clingo.Symbol]] = {}
        self._dates: dict[str, set[str]] = {}
        self.add(atoms)

    def add(self, atoms: Iterable[clingo.Symbol]) -> None:
        """Add input atoms."""
        for atom in atoms:
            if atom in self._atoms:
                continue
            self._atoms.add(atom)
            args = atom.arguments
            for i, a in enumerate(args):
                self._index.setdefault(atom_key(atom.name, len(args), {i: a}), []).append(atom)
                if a.type is clingo.SymbolType.String and is_date(a.string):
                    self._dates.setdefault(atom.name, set()).add(a.string)
            self._index.setdefault(atom_key(atom.name, len(args), {}), []).append(atom)

    def matching(
        self, name: str, arity: int, bound: dict[int, clingo.Symbol]
    ) -> Sequence[clingo.Symbol]:
        """Input atoms ``name/arity`` with these arguments at the bound positions."""
        keys = [atom_key(name, arity, {i: v}) for i, v in bound.items()] or [
            atom_key(name, arity, {})
        ]
        pool = min((self._index.get(k, []) for k in keys), key=len)
        return [a for a in pool if all(symbol_args(a)[i] == v for i, v in bound.items())]

    def is_input(self, atom: clingo.Symbol) -> bool:
        """True when the atom is one of the inputs."""
        return atom in self._atoms

    def dates(self, predicate: str) -> set[str]:
        """The date strings the inputs of a predicate carry."""
        return self._dates.get(predicate, set())

    def date_predicates(self) -> list[str]:
        """The predicates whose inputs carry dates."""
        return sorted(self._dates)

    def next_date(self, date: str, predicate: str) -> tuple[int, str] | None:
        """The ``next_date`` of a date among the dates the predicate's inputs carry."""
        if not any(date in d for d in self._dates.values()):
            return None  # only dates some input carries have a next_date
        return next_event(date, self._dates.get(predicate, ()))
