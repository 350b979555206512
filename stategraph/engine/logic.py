"""The logic layer: the well-founded model of a small normal program, computed in clingo.

Revision hands this module the affected cone as a :class:`Program` over opaque nodes (states,
and auxiliary nodes the revision introduces). Nodes reach clingo only as integers through the
backend API, so no memory text ever becomes program text.

The semantics are written down as the documented encodings ``rules/core/stable.lp`` and
``rules/core/reduct.lp``. Two ways of handing a program to clingo compute them:

* ``via="encoding"``: the program as ``fact/rule/pos/neg`` facts, grounded together with the
  encoding (readable, the reference);
* ``via="backend"`` (the default): the ground instances of that same encoding, emitted as
  rules straight into clingo's backend, with no grounder run. It is 3-5 times faster on small
  cones and far leaner on large ones; tests hold the two to identical models.

Two paths, chosen per program:

* stratified (no cycle through ``unless``): one solve of ``stable.lp``; the unique stable model
  of a stratified program is its well-founded model;
* otherwise: Van Gelder's alternating fixpoint over ``reduct.lp``, grounded once; each step is
  the least model of a positive program, obtained by flipping ``assumed/1`` externals.

Enumerating stable models and picking one would be wrong: a negative cycle must come out
*undefined*, and some programs have no stable model at all.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import as_file
from pathlib import Path

import clingo

from stategraph.errors import LogicError
from stategraph.resources import data_root
from stategraph.values import FALSE, TRUE, UNDEFINED, Truth

__all__ = [
    "IncrementalProgram",
    "Program",
    "Rule",
    "WellFoundedModel",
    "path_of",
    "propagated",
    "strongly_connected",
    "well_founded",
]

Node = Hashable


@dataclass(frozen=True, slots=True)
class Rule:
    """``head :- pos..., not neg...``."""

    head: Node
    pos: tuple[Node, ...] = ()
    neg: tuple[Node, ...] = ()


@dataclass(slots=True)
class Program:
    """A normal program: nodes that hold unconditionally, and rules.

    Nodes frozen undefined are written as ``Rule(n, neg=(n,))``.
    """

    facts: list[Node] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)

    def nodes(self) -> list[Node]:
        """Every node the program mentions, in first-mention order."""
        seen: dict[Node, None] = dict.fromkeys(self.facts)
        for r in self.rules:
            seen.setdefault(r.head)
            seen.update(dict.fromkeys(r.pos))
            seen.update(dict.fromkeys(r.neg))
        return list(seen)


@dataclass(frozen=True, slots=True)
class WellFoundedModel:
    """The three-valued outcome: every node of the program is in exactly one of the sets."""

    true: frozenset[Node]
    undefined: frozenset[Node]
    path: str
    """``"stratified"`` or ``"alternating"``: which computation ran."""
    solves: int

    def value(self, node: Node) -> Truth:
        """The truth value of a node (nodes the program never derives are false)."""
        if node in self.true:
            return TRUE
        if node in self.undefined:
            return UNDEFINED
        return FALSE


def strongly_connected(
    nodes: Iterable[Node], successors: dict[Node, list[Node]]
) -> list[list[Node]]:
    """Tarjan's algorithm, iterative (cones can be deep); returns the SCCs."""
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    on_stack: set[Node] = set()
    stack: list[Node] = []
    out: list[list[Node]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[Node, int]] = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            succ = successors.get(v, ())
            recurse = False
            while i < len(succ):
                w = succ[i]
                i += 1
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp: list[Node] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def negative_components(program: Program) -> list[frozenset[Node]]:
    """The SCCs of the dependency graph that contain an ``unless`` edge (negative cycles)."""
    heads = {r.head for r in program.rules}
    if not any(u in heads for r in program.rules for u in r.neg):
        return []  # an unless node no rule derives has no way back: no cycle through it
    succ: dict[Node, list[Node]] = {}
    for r in program.rules:
        for b in (*r.pos, *r.neg):
            succ.setdefault(b, []).append(r.head)
    comps = strongly_connected(program.nodes(), succ)
    where = {n: i for i, comp in enumerate(comps) for n in comp}
    bad = {where[r.head] for r in program.rules for u in r.neg if where.get(u) == where[r.head]}
    return [frozenset(comps[i]) for i in sorted(bad)]


@cache
def _encoding_path(name: str) -> Path:
    """A real file path for an encoding, so clingo resolves its ``#include`` lines."""
    stack = ExitStack()
    # Packaged data lives on the file system for every installation we support; as_file keeps
    # working for zipped ones by extracting the whole folder once for the process lifetime.
    root = stack.enter_context(as_file(data_root("rules")))
    path = Path(root) / "core" / name
    if not path.is_file():
        raise LogicError(f"encoding rules/core/{name} is missing from the installation")
    return path


class _Backend:
    """The ground program of an encoding, emitted straight into clingo's backend.

    ``stable.lp`` grounds to ``holds(h) :- holds(p)..., not holds(u)...`` per rule;
    ``reduct.lp`` grounds to the same with ``not assumed(u)``, ``assumed(u)`` external.
    """

    def __init__(self, program: Program, index: dict[Node, int], reduct: bool) -> None:
        self.ctl = clingo.Control(["--warn=none"])
        with self.ctl.backend() as b:
            self.holds = [b.add_atom() for _ in index]
            self.assumed: dict[int, int] = {}
            if reduct:
                for u in sorted({index[u] for r in program.rules for u in r.neg}):
                    lit = b.add_atom()
                    b.add_external(lit, clingo.TruthValue.False_)
                    self.assumed[u] = lit
            blocked = self.assumed if reduct else dict(enumerate(self.holds))
            for n in program.facts:
                b.add_rule([self.holds[index[n]]])
            for r in program.rules:
                body = [self.holds[index[p]] for p in r.pos]
                body += [-blocked[index[u]] for u in r.neg]
                b.add_rule([self.holds[index[r.head]]], body)

    def solve(self, nodes: Sequence[Node]) -> frozenset[Node]:
        found: list[frozenset[Node]] = []

        def on_model(m: clingo.Model) -> None:
            found.append(
                frozenset(n for n, lit in zip(nodes, self.holds, strict=True) if m.is_true(lit))
            )

        result = self.ctl.solve(on_model=on_model)
        if not result.satisfiable or len(found) != 1:
            raise LogicError(f"expected exactly one model of a definite program, got {len(found)}")
        return found[0]


def _control(encoding: str, program: Program, index: dict[Node, int]) -> clingo.Control:
    ctl = clingo.Control(["--warn=none"])
    ctl.load(str(_encoding_path(encoding)))
    num = clingo.Number
    fn = clingo.Function
    with ctl.backend() as b:

        def fact(sym: clingo.Symbol) -> None:
            b.add_rule([b.add_atom(sym)])

        for n in program.facts:
            fact(fn("fact", [num(index[n])]))
        for i, r in enumerate(program.rules):
            ri = num(i)
            fact(fn("rule", [ri, num(index[r.head])]))
            for p in r.pos:
                fact(fn("pos", [ri, num(index[p])]))
            for u in r.neg:
                fact(fn("neg", [ri, num(index[u])]))
    ctl.ground([("base", [])])
    return ctl


def _solve(ctl: clingo.Control, nodes: Sequence[Node]) -> frozenset[Node]:
    found: list[frozenset[Node]] = []

    def on_model(m: clingo.Model) -> None:
        found.append(frozenset(nodes[s.arguments[0].number] for s in m.symbols(shown=True)))

    result = ctl.solve(on_model=on_model)
    if not result.satisfiable or len(found) != 1:
        raise LogicError(f"expected exactly one model of a definite program, got {len(found)}")
    return found[0]


def well_founded(program: Program, via: str = "backend") -> WellFoundedModel:
    """Compute the well-founded model of a normal program with clingo.

    Args:
        program: the program.
        via: ``"backend"`` (ground rules into clingo's backend) or ``"encoding"`` (facts
            grounded with ``rules/core/*.lp``); both compute the same model.

    Raises:
        LogicError: if clingo fails or returns something no definite program can have.
    """
    if via not in ("backend", "encoding"):
        raise ValueError(f"via must be 'backend' or 'encoding', not {via!r}")
    nodes = program.nodes()
    if not nodes:
        return WellFoundedModel(frozenset(), frozenset(), "stratified", 0)
    index = {n: i for i, n in enumerate(nodes)}
    has_neg = any(r.neg for r in program.rules)
    try:
        if not (has_neg and negative_components(program)):
            if via == "backend":
                model = _Backend(program, index, reduct=False).solve(nodes)
            else:
                model = _solve(_control("stable.lp", program, index), nodes)
            return WellFoundedModel(model, frozenset(), "stratified", 1)
        return _alternating(program, nodes, index, via)
    except RuntimeError as exc:  # clingo reports its own failures as RuntimeError
        raise LogicError(f"clingo failed: {exc}") from exc


def path_of(program: Program) -> str:
    """The path :func:`well_founded` takes for this program: ``"alternating"`` when it has a
    cycle through ``unless``, else ``"stratified"``."""
    heads = {r.head for r in program.rules}
    if not any(u in heads for r in program.rules for u in r.neg):
        return "stratified"  # an unless node no rule derives has no way back
    if any(r.head in r.neg for r in program.rules):
        return "alternating"  # a node that blocks itself (an undefined one) is such a cycle
    # A cycle runs through heads only (a node no rule derives has no edge into it), and
    # through rules with a body: the graph of those alone is often far smaller (a cone's
    # beliefs resting on facts outside it have bodies that the freezing emptied).
    succ: dict[Node, list[Node]] = {}
    for r in program.rules:
        for b in (*r.pos, *r.neg):
            if b in heads:
                succ.setdefault(b, []).append(r.head)
    comps = strongly_connected(list(succ), succ)
    where = {n: i for i, comp in enumerate(comps) for n in comp}
    cycle = any(
        (w := where.get(r.head)) is not None and where.get(u) == w
        for r in program.rules
        for u in r.neg
    )
    return "alternating" if cycle else "stratified"


def propagated(program: Program) -> tuple[frozenset[Node], Program]:
    """The nodes the facts make true through rules whose ``not`` nodes no rule derives, and
    the program that is left to solve for the others.

    What is left is the program under transformations that keep the well-founded model
    (Brass and Dix): a settled node becomes a fact, so its other rules go (they are not
    minimal), it leaves the bodies it occurs in positively (success), and a rule with ``not``
    over it goes (negative reduction); a rule citing a node that is neither a fact nor a
    head goes (failure), and ``not`` over such a node leaves its body (positive reduction).
    The settled nodes, facts now, are then cut loose from the rest: the well-founded model of
    the program is the settled nodes joined to the model of the rest (:func:`well_founded`;
    its path, though, is the whole program's: :func:`path_of`). A revision's cone is mostly
    of this kind (beliefs resting on facts outside it), so clingo gets little or nothing to
    solve.
    """
    defined = {*program.facts, *(r.head for r in program.rules)}
    rules: list[tuple[Rule, list[Node]]] = []  # each rule and its standing negative nodes
    for r in program.rules:
        if any(p not in defined for p in r.pos):
            continue
        rules.append((r, [u for u in r.neg if u in defined]))
    true: set[Node] = set(program.facts)
    queue = list(true)
    waiting: dict[Node, list[int]] = {}
    missing = [0] * len(rules)
    for i, (r, neg) in enumerate(rules):
        if neg:
            continue
        pending = {p for p in r.pos if p not in true}
        missing[i] = len(pending)
        if not pending:
            if r.head not in true:
                true.add(r.head)
                queue.append(r.head)
            continue
        for p in pending:
            waiting.setdefault(p, []).append(i)
    while queue:
        node = queue.pop()
        for i in waiting.pop(node, ()):
            missing[i] -= 1
            head = rules[i][0].head
            if missing[i] == 0 and head not in true:
                true.add(head)
                queue.append(head)
    rest = Program()
    for r, neg in rules:
        if r.head in true or any(u in true for u in neg):
            continue
        rest.rules.append(Rule(r.head, tuple(p for p in r.pos if p not in true), tuple(neg)))
    return frozenset(true), rest


def _alternating(
    program: Program,
    nodes: Sequence[Node],
    index: dict[Node, int],
    via: str,
) -> WellFoundedModel:
    negated = sorted({index[u] for r in program.rules for u in r.neg})
    if via == "backend":
        backend = _Backend(program, index, reduct=True)
        ctl = backend.ctl
        assumed: list[clingo.Symbol | int] = [backend.assumed[i] for i in negated]

        def solve() -> frozenset[Node]:
            return backend.solve(nodes)

    else:
        ctl = _control("reduct.lp", program, index)
        assumed = [clingo.Function("assumed", [clingo.Number(i)]) for i in negated]

        def solve() -> frozenset[Node]:
            return _solve(ctl, nodes)

    def gamma(interpretation: frozenset[Node]) -> frozenset[Node]:
        for i, atom in zip(negated, assumed, strict=True):
            ctl.assign_external(atom, nodes[i] in interpretation)
        return solve()

    under: frozenset[Node] = frozenset()
    solves = 0
    while True:
        over = gamma(under)
        nxt = gamma(over)
        solves += 2
        if nxt == under:
            return WellFoundedModel(under, over - under, "alternating", solves)
        under = nxt


class IncrementalProgram:
    """A large program fed to clingo's backend rule by rule, nodes numbered ``0..n-1``.

    Bulk loading uses it to compute the well-founded model of a whole store without ever
    materialising the program in Python: rules stream from the input straight into clingo.
    Every ``unless`` node gets an ``assumed`` external from the start, so the same ground
    program serves the alternating fixpoint (a program without ``unless`` needs one solve).
    """

    def __init__(self, nodes: int) -> None:
        self.ctl = clingo.Control(["--warn=none"])
        self._backend = self.ctl.backend()
        self._b = self._backend.__enter__()  # type: ignore[no-untyped-call]
        self.holds = [self._b.add_atom() for _ in range(nodes)]
        self.assumed: dict[int, int] = {}

    def fact(self, node: int) -> None:
        """``node`` holds."""
        self._b.add_rule([self.holds[node]])

    def rule(self, head: int, pos: Sequence[int], neg: Sequence[int]) -> None:
        """``head :- pos..., not neg...``."""
        body = [self.holds[p] for p in pos]
        for u in neg:
            lit = self.assumed.get(u)
            if lit is None:
                lit = self.assumed[u] = self._b.add_atom()
                self._b.add_external(lit, clingo.TruthValue.False_)
            body.append(-lit)
        self._b.add_rule([self.holds[head]], body)

    def solve(self) -> tuple[list[bool], list[bool]]:
        """Per node: (true, undefined) in the well-founded model."""
        self._backend.__exit__(None, None, None)  # type: ignore[no-untyped-call]
        try:
            return self._solve()
        except RuntimeError as exc:
            raise LogicError(f"clingo failed: {exc}") from exc

    def _gamma(self, assumed: list[bool] | None) -> list[bool]:
        for u, lit in self.assumed.items():
            self.ctl.assign_external(lit, assumed is not None and assumed[u])
        found: list[list[bool]] = []

        def on_model(m: clingo.Model) -> None:
            found.append([m.is_true(lit) for lit in self.holds])

        self.ctl.solve(on_model=on_model)
        if len(found) != 1:
            raise LogicError(f"expected exactly one model of a definite program, got {len(found)}")
        return found[0]

    def _solve(self) -> tuple[list[bool], list[bool]]:
        under = [False] * len(self.holds)
        if not self.assumed:
            over = under = self._gamma(None)
        else:
            while True:
                over = self._gamma(under)
                nxt = self._gamma(over)
                if nxt == under:
                    break
                under = nxt
        return under, [o and not u for o, u in zip(over, under, strict=True)]
