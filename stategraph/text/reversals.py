"""A new fact told as a change: finding the holding fact it reverses or replaces.

Agents rarely write "supersede". They write a new fact: "Actually the Tokyo trip is
cancelled", 我们不养狗了，送给了朋友, "The dentist appointment moved to 2027-03-25". Added as
it is, such a fact sits beside the one it undoes, and both hold: the trip and its
cancellation, with every booking that rests on the trip. So a new fact is read for a **turn**
(a negation, cancellation, reversal or change cue anywhere in it:
:attr:`~stategraph.grounding.result.Grounding.turns`) together with something it shares with a
holding fact: a subject, an event or a time. What it shares is looked up in the term index by
the constants both name: the atoms its cue negated, the things named in the clause of a turn
(:attr:`~stategraph.grounding.result.Grounding.turned`: what the turn is about, not what the
rest of the text mentions), the atoms of a replacement, and for an event it names ("the move",
出差) the predicates that state such an event.

A match is **clean** when the reading says exactly what is undone:

- a negated atom of the new fact matches an atom of the old one, argument by argument, with
  ``unknown`` matching anything ("the Tokyo trip is cancelled": ``trip(user,tokyo,unknown)``
  against ``trip(user,tokyo,"2027-04-10")``); or
- with a change cue ("now", "moved to", 改到), an atom of the new fact gives the same
  predicate of the same person another value ("the dentist appointment moved to 2027-03-25"
  against the appointment on 2027-03-18; "the user now lives in Shenzhen"); or
- an atom of the new fact undoes the old one by what it says, as its frame declares
  (``reverses``: "the user will stay in Shanghai" against a move from Shanghai), cue or not.

Any other shared thing with a turn is a match that is not clean: the new fact may be about the
old one, and only a person can say. What is done with a match is the memory's policy
(:mod:`stategraph.prepare`): it never leaves both holding without saying so.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import clingo

from stategraph.grounding.frames import load_frames
from stategraph.grounding.lexicon import load_lexicon
from stategraph.grounding.reading import evidence_atoms, named_values
from stategraph.grounding.result import Grounding
from stategraph.grounding.terms import value_terms
from stategraph.model import State
from stategraph.values import TRUE, Truth

__all__ = ["FactReads", "Match", "evidence_matches", "find_matches", "loose_together", "question"]

_UNKNOWN = "unknown"
_EVERYONE = "user"
_LOOKUP = 50
"""Memories read per shared term: the newest that name it (a fact undone is a recent one)."""

_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_DATE = re.compile(r"(\d{4}|-)-[\d-]*")
"""A grounded date: ``2027-03-14``, ``--04`` (a month), ``--03-14``."""
_DAY = re.compile(r"(\d{4}|-)-\d\d-\d\d")
"""A grounded date to the day; a month alone ("our April weekend") names no one fact."""

_LOOSE = 3
"""At most this many loose matches (facts that share the most with a new one, no reading
confirming the reversal) are asked about, the newest first."""

_NEAR = 0.75
"""A fact whose evidence is within a quarter of the best match's is a match too, up to
:data:`_LOOSE`: evidence this close cannot tell them apart ("Kenji's leave got cancelled; he
won't make it to Seattle" shares the city with a bike ride and the name with Kenji's visit)."""

_STRONG = 0.5
"""The evidence that makes a fact a match though it shares no thing the turn names, when the
turn calls something off (:attr:`~stategraph.grounding.result.Grounding.ends`): about one word
only a few memories carry ("Kenji's leave got cancelled; he won't make it to Seattle" names
Seattle, and calls off Kenji's visit, which says nothing of it). A word many memories carry,
or a common one in a small store, weighs less ("won't travel to Phuket" shares "travel" with
"won't travel to Macau", and ends nothing: no match)."""


class FactReads(Protocol):
    """What finding the fact a new one reverses reads from a store."""

    def postings(self, term: str, limit: int) -> list[tuple[int, str, int]]:
        """The newest ``limit`` memories carrying an index term: ``(seq, id, size)``."""
        ...

    def state(self, state_id: str) -> tuple[State, bool, Truth] | None:
        """A memory, whether it is active, and its value."""
        ...


@dataclass(frozen=True, slots=True)
class Match:
    """A holding fact a new fact reads as reversing or replacing.

    Attributes:
        old: the holding fact.
        clean: the reading says exactly what is undone (see the module docstring).
        shared: the constants both name (for a clean match, the matched atom's).
    """

    old: str
    clean: bool
    shared: tuple[str, ...]


@functools.cache
def _event_predicates() -> dict[str, tuple[str, ...]]:
    """Each event constant and the predicates that state such an event (lexicon data)."""
    return {e.id: e.predicates for e in load_lexicon() if e.predicates}


@functools.cache
def _places() -> frozenset[str]:
    return frozenset(e.id for e in load_lexicon() if e.label == "CITY")


@functools.cache
def _roles() -> frozenset[str]:
    """The people named by their role (a child, the parents, a relative: lexicon data)."""
    return frozenset(e.id for e in load_lexicon() if e.label == "PERSON")


def _things(named: set[str], found: Grounding) -> set[str]:
    """What a fact must name to be the one a new fact's turn is about: the things the turn
    names but events (matched by predicate), people named by their role ("the kids", 父母:
    every other fact has one) and numbers, which a turn names as new values ("meets on
    Fridays at 7 from now on", 换成一小时150); with a change cue, a date too ("moved to
    the 14th"): the old fact has the old one; a month alone never ("our April weekend")."""
    out = named - _event_predicates().keys() - _roles()
    out = {t for t in out if not _NUMBER.fullmatch(t)}
    dates = {t for t in out if _DATE.fullmatch(t)}
    out -= {t for t in dates if found.changes or not _DAY.fullmatch(t)}
    return out


@functools.cache
def _reverses() -> dict[str, dict[str, int]]:
    """For each predicate, the predicates its atoms reverse, and at which argument of theirs
    its own value stands (frame data: ``reverses``)."""
    roles: dict[str, list[str]] = {}
    for f in load_frames():
        roles.setdefault(f.predicate, [a.role for a in f.args])
    out: dict[str, dict[str, int]] = {}
    for f in load_frames():
        for pred, role in f.reverses.items():
            out.setdefault(f.predicate, {})[pred] = roles[pred].index(role)
    return out


def _undoes(new: clingo.Symbol, old: clingo.Symbol) -> bool:
    """The new atom reverses the old one by what it says (:func:`_reverses`): the same person,
    its value agreeing with the old atom's at the declared place and naming none of the old
    atom's other arguments ("stay in Shanghai" undoes a move from Shanghai, or from a city not
    said, to elsewhere; not a move to Shanghai)."""
    at = _reverses().get(new.name, {}).get(old.name)
    if at is None or len(new.arguments) != 2 or new.arguments[0] != old.arguments[0]:
        return False
    value = new.arguments[1]
    others = [a for i, a in enumerate(old.arguments) if i not in (0, at)]
    return _agrees(value, old.arguments[at]) and value not in others


def _value(arg: clingo.Symbol) -> bool:
    """An argument a fact can change while staying the same fact: a date or a dose (strings),
    an amount (a number), or a city (where one lives, where a trip goes)."""
    if arg.type in (clingo.SymbolType.String, clingo.SymbolType.Number):
        return True
    return str(arg) in _places()


def _symbols(texts: Iterable[str]) -> list[clingo.Symbol]:
    out = []
    for text in texts:
        try:
            sym = clingo.parse_term(text)
        except (RuntimeError, UnicodeError):
            continue
        if sym.type is clingo.SymbolType.Function and sym.name != "maybe":
            out.append(sym)
    return out


def _constants(sym: clingo.Symbol) -> set[str]:
    out = set()
    for arg in sym.arguments:
        value = arg.string if arg.type is clingo.SymbolType.String else str(arg)
        if value not in (_UNKNOWN, _EVERYONE):
            out.add(value)
    return out


def _agrees(a: clingo.Symbol, b: clingo.Symbol) -> bool:
    return a == b or str(a) == _UNKNOWN or str(b) == _UNKNOWN


def _denies(negated: clingo.Symbol, old: clingo.Symbol) -> bool:
    """The negated atom says the old one is not so: every argument agrees."""
    if (negated.name, len(negated.arguments)) != (old.name, len(old.arguments)):
        return False
    return all(_agrees(a, b) for a, b in zip(negated.arguments, old.arguments, strict=True))


def _replaces(new: clingo.Symbol, old: clingo.Symbol) -> bool:
    """The new atom is the old one with another value: the same predicate and person, every
    other argument agreeing except values (:func:`_value`: a date, a dose, an amount, a city),
    at least one of which differs. Another kind of thing (a dentist for a doctor, one drug for
    another) is another fact, not a new value of this one."""
    if (new.name, len(new.arguments)) != (old.name, len(old.arguments)) or not new.arguments:
        return False
    if new.arguments[0] != old.arguments[0]:
        return False
    pairs = zip(new.arguments[1:], old.arguments[1:], strict=True)
    differ = [(a, b) for a, b in pairs if not _agrees(a, b)]
    return bool(differ) and all(_value(a) and _value(b) for a, b in differ)


def _named(
    found: Grounding,
    negated: list[clingo.Symbol],
    positive: list[clingo.Symbol],
    undoing: list[clingo.Symbol],
) -> set[str]:
    """The constants a new fact names about what it undoes: those of the atoms its cue
    negated, the values of a clause that holds a turn, and for a replacement its own atoms'.
    Those besides an event (a place, a date, a person) are what a loose match must share;
    an event named alone ("搬家的事黄了") matches by predicate."""
    named = {c for s in negated for c in _constants(s)}
    named |= {v for v in found.turned if v not in (_UNKNOWN, _EVERYONE)}
    if undoing or (found.changes and positive):  # a replacement: its atoms name the old fact
        named |= {c for s in positive for c in _constants(s)}
    return named


def find_matches(
    reads: FactReads,
    fact: State,
    found: Grounding,
    is_fact: Callable[[State], bool],
    changing: Iterable[str] = (),
) -> list[Match]:
    """The holding facts a new fact reads as reversing or replacing, best first.

    Args:
        reads: the store.
        fact: the new fact (its id is never a match).
        found: the grounding of its text.
        is_fact: which memories are facts (the policy's exogenous kinds).
        changing: memories the same change already retracts or supersedes (never a match).

    Returns:
        The clean matches if there are any; otherwise the facts that share the most with the
        new one (ties all kept); none without a turn or anything shared.
    """
    positive = _symbols(found.texts)
    undoing = [p for p in positive if p.name in _reverses()]
    if not found.turns and not undoing:
        return []
    negated = _symbols(found.negated)
    named = _named(found, negated, positive, undoing)
    events = _event_predicates()
    predicates = {p for v in named for p in events.get(v, ())}
    predicates |= {p for u in undoing for p in _reverses()[u.name]}
    terms = value_terms(named) | {f"p:{p}" for p in predicates}
    things = _things(named, found)
    said = _said(fact.text)
    skip = {fact.id, *changing}
    seen: dict[str, State] = {}
    newest: dict[str, int] = {}
    for term in sorted(terms):
        for seq, sid, _ in reads.postings(term, _LOOKUP):
            if sid in seen or sid in skip:
                continue
            row = reads.state(sid)
            if row is not None and row[1] and row[2] is TRUE and is_fact(row[0]):
                seen[sid] = row[0]
                newest.setdefault(sid, -seq)
    changed = bool(found.changes) and bool(positive)
    clean: list[Match] = []
    loose: list[tuple[int, Match]] = []
    for sid, old in sorted(seen.items()):
        atoms = _symbols(evidence_atoms(old.atoms, old.metadata))
        hit = next((a for a in atoms if any(_denies(n, a) for n in negated)), None)
        if hit is None and changed:
            hit = next((a for a in atoms if any(_replaces(p, a) for p in positive)), None)
        if hit is None and undoing:
            hit = next((a for a in atoms if any(_undoes(p, a) for p in undoing)), None)
        if hit is not None:
            clean.append(Match(sid, True, tuple(sorted(_constants(hit)))))
            continue
        mine = {c for a in atoms for c in _constants(a)} | set(named_values(old.metadata))
        if things and not things & mine:
            continue  # "won't travel to Phuket" says nothing of a concert in Xuzhou
        if _said(old.text) == said:
            continue  # the same fact said again, word for word, reverses nothing
        shared = (named & mine) | (predicates & {a.name for a in atoms})
        if shared:
            loose.append((len(shared), Match(sid, False, tuple(sorted(shared)))))
    if clean:
        return clean
    best = max((n for n, _ in loose), default=0)
    tied = [m for n, m in loose if n == best]
    # the newest few: a denial said in one language after many in another met every one, and
    # each asked reversal is a dry run of retracting it
    return sorted(tied, key=lambda m: newest[m.old])[:_LOOSE]


class Evidence(Protocol):
    """What a new memory shares with each stored one (:mod:`stategraph.text.evidence`)."""

    shared: dict[str, dict[str, float]]

    def total(self, sid: str) -> float: ...
    def ranked(self) -> list[str]: ...


def evidence_matches(
    reads: FactReads,
    fact: State,
    found: Grounding,
    is_fact: Callable[[State], bool],
    evidence: Callable[[FactReads, State, set[str]], Evidence],
    skip: Iterable[str] = (),
    wide: bool = False,
    unturned: bool = False,
) -> list[Match]:
    """With a turn and no clean match, the holding facts that share the most evidence with the
    new fact: its rare words and grounded arguments, weighed as candidates are
    (:mod:`stategraph.text.evidence`), the best and those near it (:data:`_NEAR`), at most a
    few. Loose matches, asked: "Leo's internship at the lab fell through" grounds to nothing
    the rules know, and without this the internship, and everything planned on it, held
    silently beside it. As for any loose match, a fact that does not share a thing the new
    one's turn names is none ("won't travel to Phuket" shares two words with "won't travel to
    Macau"), unless the turn ends something and the fact shares a rare word (:data:`_STRONG`).

    Args:
        reads: the store.
        fact: the new fact.
        found: the grounding of its text (without a turn, nothing is matched).
        is_fact: which memories are facts.
        evidence: the proposer's evidence (``EvidenceProposer.evidence``).
        skip: memories never matched (the same change retracts or supersedes them).
        wide: the holding facts with the most evidence, whatever they name and however far
            below the best: what a judge may be asked about (never a person), where the
            reading found nothing it could ask about ("June broke her wrist, so we've called
            off Tassie" shares a name with the Tasmania trip and names nothing of it).
        unturned: match though the reading found no turn, the facts near the best whatever
            they name: what a judge may be asked about under the ``check`` policy, where a
            reversal is told with no cue the grounder knows.
    """
    if not found.turns and not unturned:
        return []
    state = fact.model_copy(update={"atoms": tuple(found.texts)})
    shared = evidence(reads, state, {fact.id, *skip})
    positive = _symbols(found.texts)
    undoing = [p for p in positive if p.name in _reverses()]
    named = _named(found, _symbols(found.negated), positive, undoing)
    things = _things(named, found)
    said = _said(fact.text)
    best: float | None = None
    out: list[Match] = []
    for sid in shared.ranked():
        total = shared.total(sid)
        if best is not None and total < _NEAR * best and not wide:
            break
        units = shared.shared[sid]
        on_thing = any(f"a:{t}" in units or f"w:{t}" in units for t in things)
        if (
            things
            and not on_thing
            and not (found.ends and total >= _STRONG)
            and not wide
            and not unturned
        ):
            continue
        row = reads.state(sid)
        if row is None or not row[1] or row[2] is not TRUE or not is_fact(row[0]):
            continue
        if _said(row[0].text or "") == said:
            continue
        best = total if best is None else best  # near the best, never near the last
        out.append(Match(sid, False, tuple(sorted(units))))
        if len(out) == _LOOSE:
            break
    return out


def loose_together(by_evidence: list[Match], by_name: list[Match]) -> list[Match]:
    """The loose matches of both kinds, those found by evidence first, each fact once, at most
    :data:`_LOOSE`. Neither kind alone is enough: "the centre gave our slot away, the
    beginners meet at 7 from now on" shares its rare words with the class it moves and names
    nothing of it; what a reading names finds a fact that shares a place or an event with the
    turn and little wording."""
    out = list(by_evidence)
    out += [m for m in by_name if m.old not in {o.old for o in out}]
    return out[:_LOOSE]


def _said(text: str) -> str:
    """A text as said, whatever its case, spacing and closing punctuation."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).rstrip(".。!！")


def question(new: str, old: str) -> str:
    """The question a reversal puts to a person, in the new fact's language: does the new
    fact (its text) replace the old one?"""
    from stategraph.grounding.language import detect_language

    if detect_language(new) == "zh":
        return f"“{new}”是否取代了“{old}”？"
    return f'Does "{new}" replace "{old}"?'
