"""Rule packs: loading ``rules/packs/<domain>.lp`` and deriving rule firings from atoms.

:func:`derive` answers the engine's question "which derived atoms do these grounded atoms
support, and through which premises?". It grounds the packs with the atoms as facts and
reports every ground rule that fires, as head, positive premises and ``unless`` atoms: the
same shape as a justification, so a firing maps one-to-one onto a justification with origin
``rule``.

How firings are observed: every pack rule ``H :- B1, ..., not N1, ..., Cmp.`` is parsed with
:mod:`clingo.ast` and kept as is, and a twin rule is added beside it::

    __sg_fired("pack:line", H, (B1,...), (N1,...)) :- B1, ..., not N1, ..., Cmp.

The twin has the same body, hence the same safety and the same ground instances, and its
head records the instance. Pack facts (rules with no body) get ``__sg_static(H)`` instead.
Facts never reach clingo as text: they are added with ``backend.add_atom`` / ``add_rule``.

Built-in knowledge about the inputs (:data:`BUILTINS`): next to the input atoms, :func:`derive`
adds facts that describe them, so that packs can tie a conclusion to a value that only the
concluding memory names (an action dated the day before a flight, a saving of 4000 out of an
income of 20000) without making that memory its own premise:

- ``mentioned(A)``: atom ``A`` is one of the inputs (some memory states it). A rule may
  derive ``check_in(P,D)`` only for a ``D`` some memory mentions, instead of for every date.
- ``next_date(D,F,E,N)``: among the dates that inputs of predicate ``F`` carry (the trips,
  the appointments, ...), ``E`` is the earliest on or after the date ``D`` of any input, and
  ``N`` the days from ``D`` to ``E`` (months count 30 days when either date names only a
  month). A rule ties an action dated ``D`` to the event it precedes this way: "check in on
  2026-05-09" serves the flight of 2026-05-10. Superseded and retracted memories are inputs
  too, so an action keeps pointing at the event it was computed for: when the flight moves
  to 2026-05-17, the check-in still precedes 2026-05-10 first and loses its support.

They are pack knowledge, never premises: a firing lists only the atoms memories supply.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import clingo
from clingo import ast

from stategraph.errors import ResourceNotFoundError
from stategraph.grounding.errors import RulePackError
from stategraph.resources import list_resources, read_text

__all__ = [
    "BUILTINS",
    "NEXT_DATE_HORIZON",
    "Firing",
    "RulePack",
    "builtin_facts",
    "days_between",
    "derive",
    "firing_order",
    "is_date",
    "list_packs",
    "load_pack",
    "next_event",
    "static_atoms",
]

_FIRED = "__sg_fired"
_Fired = tuple[str, clingo.Symbol, tuple[clingo.Symbol, ...], tuple[clingo.Symbol, ...]]
_STATIC = "__sg_static"
_DATE = re.compile(r"^(?P<y>\d{4})-(?P<m>\d{2})(?:-(?P<d>\d{2}))?$")

BUILTINS = frozenset({"mentioned/1", "next_date/4"})
"""Signatures :func:`derive` supplies from the inputs themselves (see the module docstring)."""

_DOC = re.compile(
    r"%\*!\s*(?P<name>[a-z_][A-Za-z0-9_]*)\s*(?:\((?P<args>[^)]*)\))?\s*:\s*(?P<doc>.*?)\*%",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Firing:
    """One ground rule instance that fired.

    Attributes:
        rule: ``"pack:line"``: the pack and the line where the rule starts.
        head: the derived atom.
        premises: the positive body atoms, minus pack knowledge (static facts and what
            follows from them alone): exactly the atoms that memories or other firings supply.
        unless: the atoms under ``not`` in the body; none of them holds now, and asserting
            one would withdraw the firing.
    """

    rule: str
    head: clingo.Symbol
    premises: tuple[clingo.Symbol, ...]
    unless: tuple[clingo.Symbol, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The firing as a JSON-ready mapping of atom strings."""
        return {
            "rule": self.rule,
            "head": str(self.head),
            "premises": [str(p) for p in self.premises],
            "unless": [str(u) for u in self.unless],
        }


@dataclass(frozen=True, slots=True)
class RulePack:
    """A parsed, checked rule pack.

    Attributes:
        name: the pack's name (``"relocation"``), used in rule ids.
        text: the pack's source.
        statements: the rewritten program (pack rules plus their firing twins).
        potential: the same with every ``not`` literal dropped from the bodies (the twins
            still record them): the positive closure used by :func:`derive` with
            ``potential=True``.
        docs: the ``%*! pred(A,B): meaning *%`` blocks, keyed ``"pred/arity"``.
        heads: the ``"pred/arity"`` signatures the pack defines (rule heads and facts).
        used: every signature the pack mentions, in heads or bodies; ``used - heads`` are the
            pack's inputs, which grounding must produce.
    """

    name: str
    text: str
    statements: tuple[ast.AST, ...]
    potential: tuple[ast.AST, ...]
    docs: dict[str, str]
    heads: frozenset[str]
    used: frozenset[str]

    @classmethod
    def from_text(cls, name: str, text: str) -> RulePack:
        """Parse and check a pack given as text (packs shipped as files: :func:`load_pack`).

        Raises:
            RulePackError: when the text does not parse or holds anything but normal rules.
        """
        messages: list[str] = []
        parsed: list[ast.AST] = []
        try:
            ast.parse_string(text, parsed.append, logger=lambda _c, m: messages.append(m))
        except RuntimeError as exc:
            raise RulePackError(name, _clingo_message(messages, exc)) from exc
        statements: list[ast.AST] = []
        potential: list[ast.AST] = []
        heads: set[str] = set()
        used: set[str] = set()
        for stm in parsed:
            rewritten = _rewrite(name, stm)
            statements.extend(rewritten)
            potential.extend(_positive(r) for r in rewritten)
            if stm.ast_type == ast.ASTType.Rule:
                heads.update(_signatures(stm.head.atom.symbol))
                used.update(_signatures(stm.head.atom.symbol))
                for lit in stm.body:
                    if lit.atom.ast_type == ast.ASTType.SymbolicAtom:
                        used.update(_signatures(lit.atom.symbol))
        docs = _docs(text)
        return cls(
            name,
            text,
            tuple(statements),
            tuple(potential),
            docs,
            frozenset(heads),
            frozenset(used),
        )


def _on_builtin(lit: ast.AST) -> bool:
    """True for a literal over a :data:`BUILTINS` predicate (fixed by the inputs)."""
    atom = getattr(lit, "atom", None)
    if atom is None or atom.ast_type != ast.ASTType.SymbolicAtom:
        return False
    return bool(_signatures(atom.symbol) & BUILTINS)


def _positive(stm: ast.AST) -> ast.AST:
    """A rule without its ``not`` literals (other statements unchanged).

    A ``not`` over a builtin (``not mentioned(A)``) stays: builtins are fixed by the inputs,
    so the condition is no default that a later memory could flip.
    """
    if stm.ast_type != ast.ASTType.Rule or not stm.body:
        return stm
    body = [
        lit
        for lit in stm.body
        if getattr(lit, "sign", ast.Sign.NoSign) == ast.Sign.NoSign or _on_builtin(lit)
    ]
    return ast.Rule(stm.location, stm.head, body)


def _clingo_message(messages: list[str], exc: Exception) -> str:
    text = " ".join(m.strip().replace("\n", " ") for m in messages)
    return text or str(exc)


def _signatures(term: ast.AST) -> set[str]:
    """``"name/arity"`` of an atom's term; a pool (``p(a;b)``) contributes each alternative."""
    if term.ast_type == ast.ASTType.Pool:
        return {sig for arg in term.arguments for sig in _signatures(arg)}
    if term.ast_type == ast.ASTType.Function:
        return {f"{term.name}/{len(term.arguments)}"}
    if term.ast_type == ast.ASTType.SymbolicTerm:
        symbol = term.symbol
        return {f"{symbol.name}/{len(symbol.arguments)}"}
    return set()


def _docs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _DOC.finditer(text):
        args = [a for a in (m.group("args") or "").split(",") if a.strip()]
        out[f"{m.group('name')}/{len(args)}"] = " ".join(m.group("doc").split())
    return out


def _tuple(location: ast.Location, terms: list[ast.AST]) -> ast.AST:
    return ast.Function(location, "", terms, 0)


class _NameAnonymous(ast.Transformer):
    """Give each ``_`` a name, so the twin's head can mention the very same variable.

    Without this, ``_`` in the copied body atoms of ``__sg_fired(...)`` would be a new
    anonymous variable, not the one bound in the body, and the twin would be unsafe.
    """

    def __init__(self) -> None:
        self.count = 0

    def visit_Variable(self, node: ast.AST) -> ast.AST:
        if node.name != "_":
            return node
        self.count += 1
        return ast.Variable(node.location, f"SG_Anon{self.count}")


def _rewrite(pack: str, stm: ast.AST) -> list[ast.AST]:
    """Check one statement and return it with its firing twin (or static marker)."""
    kind = stm.ast_type
    if kind in (ast.ASTType.Comment, ast.ASTType.Definition):
        return [stm]
    if kind == ast.ASTType.Program:
        if stm.name != "base" or stm.parameters:
            raise RulePackError(pack, "program parts are not supported", stm.location.begin.line)
        return [stm]
    line = stm.location.begin.line
    if kind != ast.ASTType.Rule:
        raise RulePackError(pack, f"unsupported statement `{stm}`", line)
    head = stm.head
    if not (
        head.ast_type == ast.ASTType.Literal
        and head.sign == ast.Sign.NoSign
        and head.atom.ast_type == ast.ASTType.SymbolicAtom
    ):
        raise RulePackError(pack, f"`{stm}` does not have a single atom as its head", line)
    loc = stm.location
    if not stm.body:
        static = ast.Function(loc, _STATIC, [head.atom.symbol], 0)
        return [stm, ast.Rule(loc, ast.Literal(loc, ast.Sign.NoSign, ast.SymbolicAtom(static)), [])]
    stm = _NameAnonymous()(stm)
    positive: list[ast.AST] = []
    negative: list[ast.AST] = []
    for lit in stm.body:
        if lit.ast_type != ast.ASTType.Literal:
            raise RulePackError(pack, f"`{lit}` in `{stm}`: only literals are allowed", line)
        if lit.atom.ast_type == ast.ASTType.Comparison:
            if lit.sign != ast.Sign.NoSign:
                raise RulePackError(pack, f"negated comparison `{lit}` in `{stm}`", line)
            continue
        if lit.atom.ast_type != ast.ASTType.SymbolicAtom or lit.sign == ast.Sign.DoubleNegation:
            raise RulePackError(pack, f"`{lit}` in `{stm}` is not an atom or `not atom`", line)
        (positive if lit.sign == ast.Sign.NoSign else negative).append(lit.atom.symbol)
    rule_id = ast.SymbolicTerm(loc, clingo.String(f"{pack}:{line}"))
    fired = ast.Function(
        loc,
        _FIRED,
        [rule_id, head.atom.symbol, _tuple(loc, positive), _tuple(loc, negative)],
        0,
    )
    twin = ast.Rule(loc, ast.Literal(loc, ast.Sign.NoSign, ast.SymbolicAtom(fired)), stm.body)
    return [stm, twin]


def list_packs() -> list[str]:
    """The names of the shipped packs (``rules/packs/*.lp``), sorted."""
    return [
        n.removeprefix("packs/").removesuffix(".lp")
        for n in list_resources("rules", "packs", ".lp")
    ]


@functools.cache
def load_pack(name: str) -> RulePack:
    """Load, parse and check a shipped pack by name, or a pack of your own by path (cached).

    A name ending in ``.lp`` is a file of the caller's (relative to the working directory),
    so that a user can link memories with rules of their own domain without adding them to
    the package; its rule ids use the file's stem (``mypack:12``). Like a shipped pack, it is
    read once per process.

    Raises:
        RulePackError: when no such pack ships (or the file cannot be read) or it is
            malformed.
    """
    if name.endswith(".lp"):
        path = Path(name)
        try:
            own = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RulePackError(name, f"cannot read the file: {exc}") from exc
        return RulePack.from_text(path.stem, own)
    try:
        text = read_text("rules", f"packs/{name}.lp")
    except ResourceNotFoundError as exc:
        raise RulePackError(
            name, f"no such pack; shipped packs: {', '.join(list_packs())}"
        ) from exc
    return RulePack.from_text(name, text)


def _static_atoms(
    fired: list[_Fired], facts: set[clingo.Symbol], inputs: set[clingo.Symbol]
) -> set[clingo.Symbol]:
    """Pack knowledge: static facts, closed under firings that use nothing else."""
    static = facts - inputs
    changed = True
    while changed:
        changed = False
        for _rule, head, pos, neg in fired:
            if (
                head not in static
                and head not in inputs
                and not neg
                and all(p in static for p in pos)
            ):
                static.add(head)
                changed = True
    return static


NEXT_DATE_HORIZON = 400
"""Days after ``D`` within which ``next_date`` looks for an event (about a year)."""

_YEARLESS = re.compile(r"^--(?P<m>\d{2})(?:-(?P<d>\d{2}))?$")
_ANY_YEAR = 2024
"""A leap year: where a year-less date is checked on its own, 02-29 is still a date."""


@dataclass(frozen=True, slots=True)
class _Date:
    """A parsed date string: year (None when the text named none), month, day (0: a month)."""

    year: int | None
    month: int
    day: int


def _parse_date(value: str) -> _Date | None:
    """``"2026-12-05"``, ``"2026-12"``, ``"--12-05"`` or ``"--12"``; None if not a date."""
    m = _DATE.match(value) or _YEARLESS.match(value)
    if m is None or not 1 <= int(m["m"]) <= 12:
        return None
    year = int(m["y"]) if "y" in m.groupdict() else None
    day = int(m["d"]) if m["d"] is not None else 0
    try:
        datetime.date(_ANY_YEAR if year is None else year, int(m["m"]), day or 1)
    except ValueError:
        return None
    return _Date(year, int(m["m"]), day)


def _days(start: _Date, end: _Date, start_year: int, end_year: int) -> int:
    """Days from ``start`` to ``end`` in the given years; 30 a month if either is a month."""
    if start.day and end.day:
        try:
            first = datetime.date(start_year, start.month, start.day)
            last = datetime.date(end_year, end.month, end.day)
        except ValueError:  # 02-29 placed in a common year
            return -1
        return (last - first).days
    return 30 * ((end_year - start_year) * 12 + end.month - start.month)


def _days_until(start: _Date, end: _Date) -> int | None:
    """Days from ``start`` on to ``end``, or None when ``end`` is before ``start``.

    A year-less date takes the year of the other date, or the next one when that would put
    the event before the action: 12月28日 precedes 1月3日 by six days. Two year-less dates are
    placed the same way.
    """
    if start.year is not None and end.year is not None:
        days = _days(start, end, start.year, end.year)
        return days if days >= 0 else None
    base = start.year if start.year is not None else end.year if end.year is not None else 2000
    candidates = (
        [(base, base), (base, base + 1)]
        if start.year is not None
        else [(base, base), (base - 1, base)]
    )
    for start_year, end_year in candidates:
        days = _days(start, end, start_year, end_year)
        if days >= 0:
            return days
    return None


def is_date(value: str) -> bool:
    """True for a string :func:`builtin_facts` reads as a date."""
    return _parse_date(value) is not None


def days_between(date: str, event: str) -> int | None:
    """Days from ``date`` on to ``event`` as ``next_date`` counts them, or None when the event
    is before the date or either is not a date."""
    start, end = _parsed(date), _parsed(event)
    if start is None or end is None:
        return None
    return _days_until(start, end)


@functools.lru_cache(maxsize=65536)
def _parsed(value: str) -> _Date | None:
    return _parse_date(value)


def next_event(date: str, events: Iterable[str]) -> tuple[int, str] | None:
    """``(days, event)``: the event date on or after ``date`` that comes first (ties: the
    smallest string), within about a year; None when there is none. What ``next_date/4``
    states for ``date`` and a predicate whose inputs carry the ``events``."""
    parsed = _parsed(date)
    if parsed is None:
        return None
    best: tuple[int, str] | None = None
    for event in events:
        other = _parsed(event)
        if other is None:
            continue
        days = _days_until(parsed, other)
        if days is not None and (best is None or (days, event) < best):
            best = (days, event)
    if best is None or best[0] > NEXT_DATE_HORIZON:
        return None
    return best


def builtin_facts(inputs: Iterable[clingo.Symbol]) -> set[clingo.Symbol]:
    """The :data:`BUILTINS` facts that describe a set of input atoms.

    Args:
        inputs: the input atoms.

    Returns:
        ``mentioned(A)`` for every input; ``next_date(D,F,E,N)`` for every date string ``D``
        of an input and every predicate ``F`` whose inputs carry a date on or after ``D``
        (within about a year). Year-less dates (``"--06-18"``) are placed in the nearest
        year that puts the event on or after ``D`` (see :func:`_days_until`).
    """
    out: set[clingo.Symbol] = set()
    dates: dict[str, _Date] = {}
    by_predicate: dict[str, set[str]] = {}
    for atom in inputs:
        out.add(clingo.Function("mentioned", [atom]))
        for arg in atom.arguments:
            if arg.type is clingo.SymbolType.String and (parsed := _parse_date(arg.string)):
                dates[arg.string] = parsed
                by_predicate.setdefault(atom.name, set()).add(arg.string)
    for predicate, event_dates in sorted(by_predicate.items()):
        for date in dates:
            best = next_event(date, event_dates)
            if best is None:
                continue
            out.add(
                clingo.Function(
                    "next_date",
                    [
                        clingo.String(date),
                        clingo.Function(predicate),
                        clingo.String(best[1]),
                        clingo.Number(best[0]),
                    ],
                )
            )
    return out


def derive(
    atoms: Iterable[clingo.Symbol],
    packs: Sequence[str | RulePack],
    *,
    potential: bool = False,
) -> list[Firing]:
    """Ground rule packs over atoms and return every rule firing.

    Args:
        atoms: the input facts (e.g. ``Grounding.symbols`` of the memories); hedged
            ``maybe(...)`` atoms may be passed but no pack consumes them.
        packs: pack names (``"relocation"``) or :class:`RulePack` objects.
        potential: return every firing that *could* happen, whatever holds under ``not``
            (the positive closure; each firing still lists its ``unless`` atoms). The engine
            links states this way, so that asserting or retracting a blocker later finds the
            justification already in place.

    Returns:
        The firings, sorted by head, rule, premises and ``unless`` atoms. Firings that follow
        from pack knowledge alone (``contains(metformin,metformin)``) are left out, and so are
        firings that pack knowledge blocks (a ``not`` on a static fact); only firings that
        depend on the inputs are returned.

    Raises:
        RulePackError: when a pack is unknown, malformed or unsafe, or the packs together are
            not stratified (more than one answer).
    """
    inputs = set(atoms)
    fired, facts, builtins = _ground(inputs, packs, potential)
    static = _static_atoms(fired, facts | (builtins - inputs), inputs)
    out = {
        Firing(
            rule,
            head,
            tuple(p for p in pos if p not in static),
            tuple(n for n in neg if f"{n.name}/{len(n.arguments)}" not in BUILTINS),
        )
        for rule, head, pos, neg in fired
        # Pack knowledge under `not` is decided here: a rule blocked by a static fact never
        # fires (`not is_substitute(M)` for a known substitute), whatever the memories say.
        if head not in static and not any(n in static for n in neg)
    }
    return sorted(out, key=firing_order)


def firing_order(f: Firing) -> tuple[str, str, list[str], list[str]]:
    """The order :func:`derive` returns firings in (and linking expands them in)."""
    return (str(f.head), f.rule, [str(p) for p in f.premises], [str(u) for u in f.unless])


@functools.cache
def static_atoms(packs: tuple[str, ...]) -> frozenset[clingo.Symbol]:
    """Pack knowledge with no input at all: the static facts and what follows from them alone
    through rules without ``not`` (what :func:`derive` leaves out of premises when no input
    atom is one of them)."""
    fired, facts, _builtins = _ground(set(), packs, True)
    return frozenset(_static_atoms(fired, facts, set()))


def _ground(
    inputs: set[clingo.Symbol], packs: Sequence[str | RulePack], potential: bool
) -> tuple[list[_Fired], set[clingo.Symbol], set[clingo.Symbol]]:
    """Ground the packs over the inputs: the firings, the packs' static facts, the builtins."""
    loaded = [p if isinstance(p, RulePack) else load_pack(p) for p in packs]
    names = "+".join(p.name for p in loaded) or "<none>"
    messages: list[str] = []
    ctl = clingo.Control(["--warn=none"], logger=lambda _c, m: messages.append(m))
    try:
        with ast.ProgramBuilder(ctl) as builder:
            for pack in loaded:
                for stm in pack.potential if potential else pack.statements:
                    builder.add(stm)
        builtins = builtin_facts(inputs)
        with ctl.backend() as backend:
            for symbol in sorted(inputs | builtins):
                backend.add_rule([backend.add_atom(symbol)])
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        raise RulePackError(names, _clingo_message(messages, exc)) from exc
    models: list[Sequence[clingo.Symbol]] = []
    ctl.configuration.solve.models = 2  # type: ignore[union-attr]
    ctl.solve(on_model=lambda m: models.append(m.symbols(atoms=True)))
    if len(models) != 1:
        raise RulePackError(
            names,
            f"the packs have {len(models)} answers for these atoms, not one: "
            "a rule depends negatively on itself (make the packs stratified)",
        )
    fired: list[_Fired] = []
    facts: set[clingo.Symbol] = set()
    for symbol in models[0]:
        if symbol.match(_FIRED, 4):
            rule, head, pos, neg = symbol.arguments
            fired.append((rule.string, head, tuple(pos.arguments), tuple(neg.arguments)))
        elif symbol.match(_STATIC, 1):
            facts.add(symbol.arguments[0])
    return fired, facts, builtins
