"""Oracle (e): the rule links a memory must hold, read from clingo's own ground program.

Linking (``stategraph/text/linking.py``, ``topdown.py``, ``grounding/packs.py``) turns rule
firings into ``rule`` justifications between atom nodes and the states that carry atoms.
``link_from_scratch`` is what the incremental linker is held to, but it shares its atom
parser and its reading of firings with it, so a mistake in those would be made twice and
never seen. This oracle shares no code with
linking. It reads the pack files as text, grounds them with clingo over every state's atoms
at once, and reads the rule instances back from the ground program clingo hands a
:class:`clingo.Observer` (never from a model, never through the packs' own rewriting):

- every input atom (an atom some state carries) is a *choice* (``{a}.``, given as text:
  see :func:`ground` for what the backend does to choices), so the grounder
  keeps it in the bodies of the rule instances it feeds; the packs' static facts and the
  builtins (``mentioned/1``, ``next_date/4``, computed here from the inputs) are facts, so
  they drop out of bodies, as pack knowledge must;
- each pack rule gets one extra body literal, a choice atom naming it (``pack:line``), so
  that each ground instance says which rule it came from, and no rule's head becomes a fact;
- a ground rule's positive body (minus the rule's name, minus pack knowledge: facts and what
  follows from them alone without ``not``) is its premises, its negative body its blockers.

The justifications then follow the contract of ``linking.py``'s docstring, written out again
here (:func:`grounded_links`): rule links go through atom nodes, ``rule:A`` justified by each
firing of ``A`` and ``atom:A`` by each state carrying ``A`` and by ``rule:A``; a derived state
whose every atom some firing derives rests on those atoms' ``rule:`` nodes. Nothing is capped.
:func:`grounded_truth` then computes each state's value in the well-founded model of that
program with the declared justifications, by the textbook alternating fixpoint: what the
engine's revisions must agree with, step after step, however many states carry an atom.
"""

from __future__ import annotations

import datetime
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import clingo
from clingo import ast

from stategraph import Memory
from stategraph.model import Origin

RULES_DIR = Path(__file__).resolve().parents[3] / "rules" / "packs"
"""The shipped packs, read as files (the package's loader is linking's, not ours)."""

MARK = "sg_oracle_rule"
"""The predicate of the body literal that names a rule instance's rule."""

Key = tuple[str, tuple[str, ...], tuple[str, ...]]
"""A justification's identity: head, premises, ``unless``."""


@dataclass(frozen=True)
class Instance:
    """One ground rule instance, as clingo grounded it."""

    rule: str
    head: clingo.Symbol
    positive: tuple[clingo.Symbol, ...]
    negative: tuple[clingo.Symbol, ...]
    negated: bool
    """The pack rule has a ``not`` (the grounder drops one over an atom nothing derives)."""


@dataclass
class _Observer:
    """Keeps the normal rules clingo's grounder outputs (choices and facts apart)."""

    rules: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    facts: set[int] = field(default_factory=set)

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        if choice:
            return
        (atom,) = head
        if body:
            self.rules.append((atom, tuple(body)))
        else:
            self.facts.add(atom)


def _pack_program(names: Sequence[str]) -> tuple[list[ast.AST], dict[int, tuple[str, bool]]]:
    """Every pack's statements, each rule with a body given its naming literal; for each
    naming number, the rule's ``pack:line`` and whether its text has a ``not``."""
    statements: list[ast.AST] = []
    names_of: dict[int, tuple[str, bool]] = {}
    for name in names:
        path = Path(name) if name.endswith(".lp") else RULES_DIR / f"{name}.lp"
        pack = path.stem
        parsed: list[ast.AST] = []
        ast.parse_string(path.read_text(encoding="utf-8"), parsed.append)
        for stm in parsed:
            if stm.ast_type == ast.ASTType.Rule and stm.body:
                n = len(names_of)
                negated = any(
                    getattr(b, "sign", ast.Sign.NoSign) != ast.Sign.NoSign for b in stm.body
                )
                names_of[n] = (f"{pack}:{stm.location.begin.line}", negated)
                loc = stm.location
                mark = ast.SymbolicAtom(
                    ast.Function(loc, MARK, [ast.SymbolicTerm(loc, clingo.Number(n))], 0)
                )
                stm = stm.update(body=[*stm.body, ast.Literal(loc, ast.Sign.NoSign, mark)])
            statements.append(stm)
    return statements, names_of


def ground(
    inputs: Iterable[clingo.Symbol], packs: Sequence[str]
) -> tuple[list[Instance], set[clingo.Symbol]]:
    """The packs' rule instances over ``inputs``, and pack knowledge (static atoms).

    Args:
        inputs: every atom the states carry.
        packs: pack names (``relocation``) or paths of ``.lp`` files.
    """
    inputs = set(inputs)
    statements, names_of = _pack_program(packs)
    observer = _Observer()
    ctl = clingo.Control(["--warn=none"])
    ctl.register_observer(observer)  # type: ignore[arg-type]
    choices = [*sorted(inputs), *(clingo.Function(MARK, [clingo.Number(n)]) for n in names_of)]
    text = [f"{{{sym}}}." for sym in choices] + [f"{sym}." for sym in sorted(builtins(inputs))]
    with ast.ProgramBuilder(ctl) as builder:
        for stm in statements:
            builder.add(stm)
        # As text, not through ``ctl.backend()``: clingo 5.8.3 grounds ``st :- r, al(T).``
        # over choices ``a``, ``b``, ``r`` added with the backend (and ``al(s) :- a.``,
        # ``al(e) :- b.``) to one instance, through ``al(s)`` only, and then answers
        # ``{b, r, al(e)}`` without ``st``; given as text, both instances are there. (The
        # engine adds facts, not choices, with the backend, and is held to this oracle.)
        ast.parse_string("\n".join(text), builder.add)
    ctl.ground([("base", [])])
    symbol = {sa.literal: sa.symbol for sa in ctl.symbolic_atoms}
    # The grounder introduces atoms of its own (projecting ``_`` out of a body atom, say):
    # a body literal over one stands for any of the bodies that define it.
    hidden: dict[int, list[tuple[int, ...]]] = {}
    for head, body in observer.rules:
        if head not in symbol:
            hidden.setdefault(head, []).append(body)
    instances: list[Instance] = []
    for head, shown in observer.rules:
        if head not in symbol:
            continue
        for body in _unfold(shown, hidden):
            instances.append(_instance(symbol, names_of, head, body))
    facts = {symbol[a] for a in observer.facts if a in symbol}
    return instances, _static(instances, facts - inputs, inputs)


def _unfold(
    body: tuple[int, ...], hidden: Mapping[int, list[tuple[int, ...]]]
) -> list[tuple[int, ...]]:
    """``body`` with each literal over a grounder's atom replaced by one of its bodies."""
    options: list[list[tuple[int, ...]]] = []
    for b in body:
        if b in hidden:
            options.append([x for alt in hidden[b] for x in _unfold(alt, hidden)])
        else:
            assert -b not in hidden, "a grounder's atom under not"
            options.append([(b,)])
    return [tuple(x for part in combo for x in part) for combo in itertools.product(*options)]


def _instance(
    symbol: Mapping[int, clingo.Symbol],
    names_of: Mapping[int, tuple[str, bool]],
    head: int,
    body: tuple[int, ...],
) -> Instance:
    marks = [symbol[b] for b in body if b > 0 and symbol[b].name == MARK]
    assert len(marks) == 1, f"a ground rule of {symbol[head]} names {len(marks)} pack rules"
    rule, negated = names_of[marks[0].arguments[0].number]
    positive = tuple(symbol[b] for b in body if b > 0 and symbol[b].name != MARK)
    negative = tuple(symbol[-b] for b in body if b < 0)
    return Instance(rule, symbol[head], positive, negative, negated)


def _static(
    instances: list[Instance], facts: set[clingo.Symbol], inputs: set[clingo.Symbol]
) -> set[clingo.Symbol]:
    """Pack knowledge: the facts (no input among them), and what rule instances without
    ``not`` derive from them alone (an input is never pack knowledge)."""
    static = set(facts)
    grew = True
    while grew:
        grew = False
        for i in instances:
            if (
                i.head not in static
                and i.head not in inputs
                and not i.negated
                and all(p in static for p in i.positive)
            ):
                static.add(i.head)
                grew = True
    return static


# ---- builtins: mentioned/1 and next_date/4, from their documentation ----------------------

_FULL = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")
_NO_YEAR = re.compile(r"--(\d{2})(?:-(\d{2}))?")
HORIZON = 400


def _date(text: str) -> tuple[int | None, int, int] | None:
    """(year or None, month, day or 0) of ``2026-12-05``, ``2026-12``, ``--12-05``, ``--12``."""
    m = _FULL.fullmatch(text)
    if m:
        year, month, day = int(m[1]), int(m[2]), int(m[3] or 0)
    elif m := _NO_YEAR.fullmatch(text):
        year, month, day = None, int(m[1]), int(m[2] or 0)
    else:
        return None
    try:
        datetime.date(2024 if year is None else year, month, day or 1)  # 2024: has 02-29
    except ValueError:
        return None
    return year, month, day


def _days(a: tuple[int, int, int], b: tuple[int, int, int]) -> int | None:
    """Days from ``a`` to ``b`` (both with years), 30 a month when either is a month."""
    if a[2] and b[2]:
        try:
            return (datetime.date(*b) - datetime.date(*a)).days
        except ValueError:  # 02-29 in a common year
            return None
    return 30 * ((b[0] - a[0]) * 12 + b[1] - a[1])


def _days_until(start: tuple[int | None, int, int], end: tuple[int | None, int, int]) -> int | None:
    """Days from ``start`` on to ``end``, or None when ``end`` comes first. A year-less date
    is placed in the other's year, or the year after (the one before, for a year-less start)
    when that puts the event on or after the start."""
    if start[0] is not None and end[0] is not None:
        placings = [(start[0], end[0])]
    elif start[0] is not None:
        placings = [(start[0], start[0]), (start[0], start[0] + 1)]
    else:
        base = end[0] if end[0] is not None else 2000
        placings = [(base, base), (base - 1, base)]
    for ys, ye in placings:
        d = _days((ys, start[1], start[2]), (ye, end[1], end[2]))
        if d is not None and d >= 0:
            return d
    return None


def builtins(inputs: Iterable[clingo.Symbol]) -> set[clingo.Symbol]:
    """``mentioned(A)`` for every input; ``next_date(D,F,E,N)``: for every date string ``D``
    an input carries and every predicate ``F`` whose inputs carry dates, ``E`` the first of
    those on or after ``D`` (ties: the smaller string) and ``N`` the days to it, within
    :data:`HORIZON` days."""
    out: set[clingo.Symbol] = set()
    dates: set[str] = set()
    events: dict[str, set[str]] = {}
    for atom in inputs:
        out.add(clingo.Function("mentioned", [atom]))
        for arg in atom.arguments:
            if arg.type is clingo.SymbolType.String and _date(arg.string) is not None:
                dates.add(arg.string)
                events.setdefault(atom.name, set()).add(arg.string)
    for pred, ends in events.items():
        for d in dates:
            start = _date(d)
            assert start is not None
            best = min(
                ((n, e) for e in ends if (n := _days_until(start, _date(e) or start)) is not None),
                default=None,
            )
            if best is not None and best[0] <= HORIZON:  # dates and names need no quoting
                out.add(clingo.parse_term(f'next_date("{d}",{pred},"{best[1]}",{best[0]})'))
    return out


# ---- reading the instances back as justifications ----------------------------------------


class _Program:
    """The oracle's own reading of the ground program: each atom's firings (rule instances
    with it as head, pack knowledge left out), by head."""

    def __init__(self, instances: list[Instance], static: set[clingo.Symbol]) -> None:
        self.by_head: dict[clingo.Symbol, dict[Key, set[str]]] = {}
        for i in instances:
            if i.head in static or any(n in static for n in i.negative):
                continue  # pack knowledge, or blocked by it
            premises = tuple(sorted({f"atom:{p}" for p in i.positive if p not in static}))
            unless = tuple(sorted({f"atom:{n}" for n in i.negative}))
            key = (f"rule:{i.head}", premises, unless)
            self.by_head.setdefault(i.head, {}).setdefault(key, set()).add(i.rule)

    def firings(self, atom: clingo.Symbol) -> dict[Key, set[str]]:
        return self.by_head.get(atom, {})


def grounded_links(
    states: Iterable[tuple[str, bool, Sequence[str]]], packs: Sequence[str]
) -> tuple[frozenset[tuple[Key, tuple[str, ...]]], frozenset[str]]:
    """The rule justifications the packs give these states, through atom nodes, as the
    contract (``stategraph/text/linking.py``'s docstring) says, written out again here:

    - an atom is demanded when a derived state carries it, or a firing of a demanded atom
      cites it (in its body or under ``not``); each firing of a demanded atom is a
      justification of ``rule:A`` citing the ``atom:`` nodes of its body and its blockers;
    - an atom a firing of a demanded atom cites has ``atom:A``, justified by each state
      carrying it, and by ``rule:A`` when some firing derives it;
    - a derived state every atom of which some firing derives is justified by their
      ``rule:`` nodes.

    Clingo's grounder leaves ``not A`` out of an instance when nothing can make ``A`` true (no
    state carries it, no rule derives it), where linking keeps it as a blocker that no
    justification makes hold; so the atoms that *can* hold are returned too, for the caller
    to compare blockers over them.

    Args:
        states: ``(id, derived, atoms)`` for every state (retracted and superseded ones too:
            linking reads them all).
        packs: pack names or ``.lp`` paths.

    Returns:
        The justifications (identity and rules), and the ``atom:`` nodes of every atom some
        state carries or some instance derives.
    """
    with_atoms = [
        (sid, derived, [clingo.parse_term(a) for a in atoms])
        for sid, derived, atoms in states
        if atoms
    ]
    carriers: dict[clingo.Symbol, set[str]] = {}
    for sid, _, syms in with_atoms:
        for sym in syms:
            carriers.setdefault(sym, set()).add(sid)
    if not packs or not carriers:
        return frozenset(), frozenset()
    program = _Program(*ground(carriers, packs))
    links: set[tuple[Key, tuple[str, ...]]] = set()
    demanded: set[clingo.Symbol] = set()
    cited: set[clingo.Symbol] = set()
    todo = [a for _, derived, syms in with_atoms if derived for a in syms]
    while todo:
        atom = todo.pop()
        if atom in demanded:
            continue
        demanded.add(atom)
        for key, rules in program.firings(atom).items():
            links.add((key, tuple(sorted(rules))))
            for node in (*key[1], *key[2]):
                below = clingo.parse_term(node.removeprefix("atom:"))
                cited.add(below)
                todo.append(below)
    for atom in cited:
        for sid in carriers.get(atom, ()):
            links.add(((f"atom:{atom}", (sid,), ()), ()))
        if program.firings(atom):
            links.add(((f"atom:{atom}", (f"rule:{atom}",), ()), ()))
    for sid, derived, syms in with_atoms:
        if derived and all(program.firings(a) for a in syms):
            links.add(((sid, tuple(sorted({f"rule:{a}" for a in syms})), ()), ()))
    live = {f"atom:{a}" for a in (*carriers, *program.by_head)}
    return frozenset(links), frozenset(live)


def grounded_truth(
    states: Iterable[tuple[str, bool, bool, Sequence[str]]],
    declared: Iterable[tuple[str, Sequence[str], Sequence[str]]],
    packs: Sequence[str],
) -> dict[str, str]:
    """Each state's value in the well-founded model of the whole program: the active facts,
    the declared justifications of active derived states, and the rule links of
    :func:`grounded_links` (an inactive state neither holds nor supports), computed by the
    alternating fixpoint of :mod:`stategraph.testing.oracles.wfm`, not by the engine.

    Args:
        states: ``(id, derived, active, atoms)`` for every state.
        declared: ``(head, premises, unless)`` of every justification the writer gave (and
            the engine's stand-ins for a missing basis, which are the writer's too).
        packs: pack names or ``.lp`` paths.
    """
    from stategraph.testing.oracles.wfm import well_founded_model

    states = list(states)
    active = {sid for sid, _, is_active, _ in states if is_active}
    facts = [sid for sid, derived, is_active, _ in states if is_active and not derived]
    rules = [(head, premises, unless) for head, premises, unless in declared if head in active]
    linked, _ = grounded_links([(s, d, atoms) for s, d, _, atoms in states], packs)
    for (head, premises, unless), _ in linked:
        if head.startswith(("atom:", "rule:")) or head in active:
            rules.append((head, premises, unless))
    model = well_founded_model(facts, rules)
    return {sid: model.value(sid) for sid, *_ in states}


def assert_links_match_grounding(memory: Memory, where: str = "") -> None:
    """The rule justifications ``memory`` holds are :func:`grounded_links`' for its states,
    and every memory's value is the one :func:`grounded_truth` computes.

    Raises:
        AssertionError: listing the links only one side has, or the memories whose values
            differ.
    """
    states = memory.states()
    theirs, live = grounded_links(
        [(s.id, not memory.policy.is_exogenous(s), s.atoms) for s in states], memory.rules
    )
    held = memory.store.justifications()
    # a blocker nothing can make hold is one clingo's grounder leaves out (see above)
    mine = {
        ((j.head, j.premises, tuple(u for u in j.unless if u in live)), j.rules)
        for j in held
        if j.origin is Origin.rule
    }
    at = f" {where}" if where else ""
    assert mine == theirs, (
        f"rule links{at} differ from clingo's ground program; engine only "
        f"{sorted(mine - theirs)}, grounding only {sorted(theirs - mine)}"
    )
    declared = [
        (j.head, j.premises, j.unless)
        for j in memory.justifications()
        if j.origin is not Origin.rule and not j.candidates()
    ]
    truth = grounded_truth(
        [
            (s.id, not memory.policy.is_exogenous(s), memory.is_active(s.id), s.atoms)
            for s in states
        ],
        declared,
        memory.rules,
    )
    wrong = {
        sid: (memory.truth(sid).value, want)
        for sid, want in truth.items()
        if memory.truth(sid).value != want
    }
    assert not wrong, f"values{at} differ from the well-founded model (engine, oracle): {wrong}"
