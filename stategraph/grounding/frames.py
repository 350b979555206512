"""Frames: how cues and entities in a clause become one atom.

A frame (one line of ``grounding/frames.jsonl``) names a predicate, the cue that triggers it,
and its arguments in order, each with the entity labels it accepts and how to pick one. The
assembly is language-neutral: all language lives in the cue and lexicon data, so an English
and a Chinese memory of the same fact build the same atom through the same frame.

Polarity is decided here, conservatively. A negation cue (or, for events, a cancellation cue)
anywhere in the trigger's clause suppresses the atom: grounding reports it in ``notes`` and
emits nothing, never the positive atom. A hedge cue wraps the atom as ``maybe(Atom)``, a
predicate no rule pack consumes, so a hedged memory never supports a derivation yet the
agent can still see what was entertained.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import clingo
from pydantic import BaseModel, ConfigDict, Field, field_validator

from stategraph.grounding.data import read_jsonl
from stategraph.grounding.result import GroundedAtom, SourceSpan
from stategraph.grounding.terms import argument_terms

if TYPE_CHECKING:  # spaCy: the frames' specs are read without it (reversals, readings)
    from stategraph.grounding.analysis import Analysis, Mention

__all__ = [
    "CHANGE_CUE",
    "ENDING_CUES",
    "HEDGE_PREDICATE",
    "POLARITY_CUES",
    "ArgSpec",
    "Assembly",
    "FrameSpec",
    "ambiguous_values",
    "assemble",
    "doubtful_atoms",
    "load_frames",
    "unread_values",
]

HEDGE_PREDICATE = "maybe"
"""The wrapper predicate for hedged atoms: ``maybe(moves(user,shanghai,shenzhen,unknown))``."""

_HEDGE_CUE = "HEDGE"
_AGENT = "agent"
_POSS = "POSS"
_USER = "user"
# Value labels that become clingo strings ("2026-12", "500mg"); AMOUNT becomes a number.
_STRING_VALUES = frozenset({"DATE", "DOSE"})
# A marker may stand right before its entity or one token earlier (搬到了深圳, to the Shenzhen).
_MARKER_GAP = 1


class ArgSpec(BaseModel):
    """One argument of a frame.

    Attributes:
        role: the argument's name, reported as the role of the span that filled it.
        types: entity labels accepted (``["CITY"]``, ``["MED", "ALLERGEN"]``).
        pick: which candidate to take: ``before`` (nearest before the trigger), ``after``
            (nearest after, else nearest before unless a marker is set), ``any`` (nearest on
            either side), ``marker`` (only one introduced by the marker cue).
        marker: a cue label that introduces this argument (``FROM``, ``TO``); a candidate
            right after such a cue wins over position.
        default: the constant used when nothing is found; None makes the argument required.
        scope: ``clause`` or ``sentence``: where candidates may stand (dates often sit in
            another clause: "In December 2026, the user moves ...").
        skip_after: cue labels whose entity is never this argument (the recipient after 给 /
            "to" is not the agent of 用户给妈妈转账; the companion after "and" / 和 is not
            the agent of "the user and her husband fly"). A single label is accepted too.
        each: take every candidate in scope, one atom each (coordinated objects: "cancel gas
            and water" gives two atoms); at most one argument of a frame sets it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    types: tuple[str, ...]
    pick: Literal["before", "after", "any", "marker"] = "any"
    marker: str | None = None
    default: str | None = None
    scope: Literal["clause", "sentence"] = "clause"
    skip_after: tuple[str, ...] = ()
    each: bool = False

    @field_validator("skip_after", mode="before")
    @classmethod
    def _one_or_many(cls, v: object) -> object:
        return (v,) if isinstance(v, str) else v


class FrameSpec(BaseModel):
    """One frame: a predicate, its trigger cue, its arguments and its polarity cues.

    Attributes:
        predicate: the atom's predicate name.
        domain: the rule pack whose vocabulary this predicate belongs to.
        trigger: the cue label that starts the frame, or an entity / value label: a frame
            triggered by ``CATEGORY`` or ``DOSE`` starts at every such mention (a noun can
            carry the frame: "pizza places in Denver", "metformin 500 mg").
        args: the arguments in atom order.
        negated_by: cue labels that, anywhere in the clause, suppress the atom.
        requires: cue, entity or value labels that must also be in the clause (``DONE`` for
            "verified", ``DATE`` for a reminder tied to a date).
        excludes: cue, entity or value labels whose presence in the clause means another
            frame owns it.
        referenced_by: cue labels that, right next to the trigger, make it a reference to
            the event rather than a statement of it: 搬家前 ("before moving"), "after the
            trip". Such a trigger yields no atom: the memory is about something done around
            the event, and the event itself is stated elsewhere.
        reverses: predicates whose facts this frame's atom undoes by what it says, each with
            the role of that predicate its own value stands in: ``stays`` reverses
            ``moves`` at its ``origin`` (staying in the city one was to leave calls the move
            off), so "the user will stay in Shanghai" told as a new fact is read as the
            reversal of a move from Shanghai (:mod:`stategraph.text.reversals`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    predicate: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    domain: str
    trigger: str
    args: tuple[ArgSpec, ...]
    negated_by: tuple[str, ...] = ("NEG", "STOP")
    requires: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    referenced_by: tuple[str, ...] = ()
    reverses: dict[str, str] = Field(default_factory=dict)


@functools.cache
def load_frames() -> tuple[FrameSpec, ...]:
    """The frames of ``grounding/frames.jsonl``, validated (cached)."""
    return tuple(FrameSpec.model_validate(row) for row in read_jsonl("frames.jsonl"))


@dataclass(frozen=True, slots=True)
class _Bound:
    value: clingo.Symbol
    mention: Mention | None


def _in(m: Mention, rng: tuple[int, int]) -> bool:
    return rng[0] <= m.start and m.end <= rng[1]


def _distance(m: Mention, trigger: Mention) -> int:
    if m.start >= trigger.end:
        return m.start - trigger.end
    if m.end <= trigger.start:
        return trigger.start - m.end
    return 0


def _marked(m: Mention, markers: Iterable[Mention]) -> bool:
    return any(0 <= m.start - c.end <= _MARKER_GAP for c in markers)


def _pick(
    arg: ArgSpec, trigger: Mention, candidates: list[Mention], markers: list[Mention]
) -> Mention | None:
    """Choose the mention that fills one argument, or None."""
    if arg.marker is not None:
        marked = [m for m in candidates if _marked(m, markers)]
        if marked:
            return min(marked, key=lambda m: (_distance(m, trigger), m.start))
    if arg.pick == "marker":
        return None
    # A candidate the trigger overlaps counts as before it too (会后 is the meeting and the 后).
    before = [m for m in candidates if m.end <= trigger.start or _distance(m, trigger) == 0]
    after = [m for m in candidates if m.start >= trigger.end or _distance(m, trigger) == 0]
    if arg.pick == "before":
        return before[-1] if before else None
    if arg.pick == "after":
        if after:
            return after[0]
        return before[-1] if before and arg.marker is None else None
    return min(candidates, key=lambda m: (_distance(m, trigger), m.start), default=None)


def _range_end(m: Mention, others: list[Mention]) -> bool:
    """Is ``m`` a date that closes a range opened by a date at most one token before it?"""
    return m.label == "DATE" and any(
        o.label == "DATE" and o is not m and 0 <= m.start - o.end <= _MARKER_GAP for o in others
    )


def _value(label: str, value: str) -> clingo.Symbol:
    if label in _STRING_VALUES:
        return clingo.String(value)
    if label == "AMOUNT":
        return clingo.Number(int(value))
    return clingo.Function(value)


def _bind(
    frame: FrameSpec, trigger: Mention, analysis: Analysis
) -> tuple[list[list[_Bound]], str | None]:
    """Fill the frame's arguments.

    Returns:
        One binding per atom to build (several when an ``each`` argument has several
        candidates), or no binding and the note that says what was missing.
    """
    clause = analysis.clause_of(trigger.start)
    sentence = analysis.sentence_of(trigger.start)
    used: set[Mention] = set()
    bindings: list[list[_Bound]] = [[]]
    for arg in frame.args:
        scope = clause if arg.scope == "clause" else sentence
        in_scope = [m for m in analysis.entities if m.label in arg.types and _in(m, scope)]
        candidates = [m for m in in_scope if m.value and m not in used]
        # The second of two dates a word apart ends a range (4月3日到8日, Oct 3 to Oct 10):
        # the event is dated by its first day.
        candidates = [m for m in candidates if not _range_end(m, in_scope)]
        if arg.skip_after:
            skip = [c for c in analysis.cues if c.label in arg.skip_after and _in(c, clause)]
            # The user is never a mere companion: "my wife and I are moving" is the user's move.
            candidates = [m for m in candidates if m.value == _USER or not _marked(m, skip)]
        if arg.role == _AGENT:
            # A possessor is not the agent: in "a friend's wedding" / 朋友的婚礼 the user goes;
            # whose drug or document it is, _owned decides.
            poss = {c.start for c in analysis.cues if c.label == _POSS}
            candidates = [m for m in candidates if m.end not in poss]
        markers = [c for c in analysis.cues if c.label == arg.marker and _in(c, clause)]
        chosen = _pick(arg, trigger, candidates, markers)
        if chosen is not None:
            fills = candidates if arg.each else [chosen]
            used.update(fills)
            options = [_Bound(_value(m.label, m.value), m) for m in fills]
        elif arg.default is not None:
            options = [_Bound(clingo.Function(arg.default), None)]
        else:
            unresolved = [m.text for m in in_scope if not m.value]
            why = f" (cannot resolve {unresolved[0]!r})" if unresolved else ""
            return [], f"{frame.predicate}: {trigger.text!r} without a {arg.role}{why}"
        bindings = [[*b, o] for b in bindings for o in options]
    return [_owned(frame, b, trigger, analysis) for b in bindings], None


# What a possessive hands to its possessor: things people have (their drug, condition,
# allergy, document, card). Not events: "a friend's wedding" is one the user attends.
_OWNED = frozenset({"MED", "COND", "ALLERGEN", "DOC", "CARD"})
_REL = _POSS  # zh 的 marks both a possessor and the end of a relative clause
# How far after the trigger a zh relative clause may end in its head noun (住在|青岛|的|母亲).
_REL_GAP = 3


def _owner(m: Mention, people: list[Mention], poss: list[Mention]) -> Mention | None:
    """The person whose possessive stands right before ``m`` ("father's lisinopril", 父亲的药)."""
    for c in poss:
        if 0 <= m.start - c.end <= _MARKER_GAP:
            owner = next((p for p in people if p.end == c.start), None)
            if owner is not None:
                return owner
    return None


def _owned(
    frame: FrameSpec, bound: list[_Bound], trigger: Mention, analysis: Analysis
) -> list[_Bound]:
    """Rebind the agent to the person the memory is really about.

    Two argument structures name a person other than the nearest one before the trigger:
    a possessive on an argument that is a possession (``_OWNED``: "remind the user to
    collect their father's lisinopril", 用户父亲的降压药) makes the possessor the agent;
    a Chinese relative clause ending in a person right after the trigger
    (提醒用户和住在青岛的母亲通话) makes that person the agent of the clause's verb.
    Without either, the binding is unchanged.
    """
    roles = [a.role for a in frame.args]
    if _AGENT not in roles:
        return bound
    at = roles.index(_AGENT)
    clause = analysis.clause_of(trigger.start)
    people = [m for m in analysis.entities if m.label == "PERSON" and m.value and _in(m, clause)]
    poss = [c for c in analysis.cues if c.label == _POSS and _in(c, clause)]
    rel = [c for c in analysis.cues if c.label == _REL and _in(c, clause)]
    new: Mention | None = None
    for b, arg in zip(bound, frame.args, strict=True):
        if arg.role != _AGENT and b.mention is not None and b.mention.label in _OWNED:
            new = _owner(b.mention, people, poss) or new
    if new is None:
        new = next(
            (
                p
                for p in people
                if p.start >= trigger.end
                and p.start - trigger.end <= _REL_GAP
                and any(c.end == p.start for c in rel)
            ),
            None,
        )
    if new is None or (bound[at].mention is not None and bound[at].mention == new):
        return bound
    out = list(bound)
    out[at] = _Bound(clingo.Function(new.value), new)
    return out


def _polarity(
    frame: FrameSpec, trigger: Mention, analysis: Analysis
) -> tuple[Mention | None, Mention | None]:
    """The clause's negation cue and hedge cue for this trigger (None when absent).

    A cue that covers the trigger itself does not count: "stopped" is a negation for
    ``takes`` but is the very trigger of ``cancel_utility`` in "stopped the gym membership".
    """
    clause = analysis.clause_of(trigger.start)
    others = [
        c
        for c in analysis.cues
        if _in(c, clause) and not (c.start < trigger.end and trigger.start < c.end)
    ]
    negation = next((c for c in others if c.label in frame.negated_by), None)
    hedge = next((c for c in others if c.label == _HEDGE_CUE), None)
    return negation, hedge


def _applies(frame: FrameSpec, trigger: Mention, analysis: Analysis) -> bool:
    clause = analysis.clause_of(trigger.start)
    mentions = (*analysis.cues, *(m for m in analysis.entities if m.value))
    labels = {m.label for m in mentions if _in(m, clause)}
    return all(r in labels for r in frame.requires) and not any(e in labels for e in frame.excludes)


_POSTPOSITION = "_POST"
# A postposed cue (Chinese 前 / 后) may follow the trigger's own argument: 搬到|深圳|后.
_POSTPOSITION_GAP = 2


def _referenced(frame: FrameSpec, trigger: Mention, analysis: Analysis) -> Mention | None:
    """The cue that makes this trigger a reference to its event, or None.

    A cue whose label ends in ``_POST`` is a postposition (搬家|前, 搬到|深圳|后, or one word
    with its event: 会后): it must follow or share the trigger in its clause, at most two
    tokens later. Any other cue is a
    preposition ("before the move", "after moving"): it must end at most one token before
    the trigger.
    """
    clause = analysis.clause_of(trigger.start)
    for cue in analysis.cues:
        if cue.label not in frame.referenced_by or not _in(cue, clause):
            continue
        if cue.label.endswith(_POSTPOSITION):
            if cue.start >= trigger.start and cue.start - trigger.end <= _POSTPOSITION_GAP:
                return cue
        elif 0 <= trigger.start - cue.end <= _MARKER_GAP:
            return cue
    return None


def _spans(trigger: Mention, bound: list[_Bound], frame: FrameSpec) -> tuple[SourceSpan, ...]:
    spans = [SourceSpan(trigger.start_char, trigger.end_char, trigger.text, "trigger")]
    for arg, b in zip(frame.args, bound, strict=True):
        if b.mention is not None:
            m = b.mention
            spans.append(SourceSpan(m.start_char, m.end_char, m.text, arg.role))
    return tuple(sorted(spans, key=lambda s: (s.start, s.end, s.role)))


CHANGE_CUE = "CHANGE"
"""The cue label of a fact told as a change of an earlier one ("actually", "now", "moved to",
改到, 其实): read by no frame, only by the check for a new fact that replaces an old one
(:mod:`stategraph.text.reversals`)."""

POLARITY_CUES = frozenset({"NEG", "STOP", "CANCEL", "REVERSAL"})
"""Cue labels that can turn a text against what its words name: negation (``NEG``, and
``STOP`` for what ends or refuses something), cancellation, and reversal (``REVERSAL``: "is
off", "fell through", 黄了, 算了), which no frame reads but whose presence, left unconsumed,
means the atoms may say the opposite of the text."""

ENDING_CUES = frozenset({"STOP", "CANCEL", "REVERSAL"})
"""The polarity cues that end, refuse or call something off ("stopped", "no longer",
"cancelled", "split up", 停用, 黄了), as against a bare negation ("can't manage long walks",
不在滨江). A frame reads ``STOP`` wherever it reads ``NEG``."""


@dataclass(frozen=True, slots=True)
class Assembly:
    """What the frames made of one analysed text (:func:`assemble`).

    Attributes:
        atoms: the atoms, deduplicated, in order of their first span.
        negated: the atoms a negation or cancellation cue suppressed, built as they would have
            been (``trip(user,tokyo,unknown)`` for "the Tokyo trip is cancelled"): what the
            text says is *not* so. Never a memory's atoms; what it names counts as read.
        notes: why each trigger that did not yield a positive atom did not, one line each.
        unconsumed: the polarity cues no frame consumed (:data:`POLARITY_CUES` that neither
            suppressed an atom nor are part of one), as their surface texts in text order. A
            cue is consumed when it negates a trigger in its clause (whether or not the
            trigger found its arguments) or lies inside the spans of an atom ("stopped" as the
            trigger of ``cancel_utility``).
        turns: every polarity or change cue in the text, consumed or not, in text order: what
            makes a new fact read as a reversal or a replacement of an old one.
        changes: those of the turns that are change cues (:data:`CHANGE_CUE`).
        clauses: each atom's clause (the token range of its trigger's clause), by its text.
        left: the unconsumed polarity cues themselves.
        turned: the values named in a clause that holds a turn (a polarity or change cue), in
            text order: what the turn is about; where those clauses name nothing ("That's not
            happening anymore"), every value the text names.
        ends: those of the turns that call something off or end it (:data:`ENDING_CUES`),
            not a bare negation or a change cue.
    """

    atoms: list[GroundedAtom]
    negated: list[GroundedAtom]
    notes: list[str]
    unconsumed: list[str]
    turns: list[str]
    changes: list[str]
    clauses: dict[str, tuple[int, int]] = field(default_factory=dict)
    left: list[Mention] = field(default_factory=list)
    turned: list[str] = field(default_factory=list)
    ends: list[str] = field(default_factory=list)


def assemble(analysis: Analysis, frames: Iterable[FrameSpec] | None = None) -> Assembly:
    """Build the atoms of one analysed text.

    Args:
        analysis: the text's mentions, cues and clauses.
        frames: the frames to try; defaults to :func:`load_frames`.
    """
    atoms: dict[str, GroundedAtom] = {}
    negated: dict[str, GroundedAtom] = {}
    clauses: dict[str, tuple[int, int]] = {}
    notes: list[str] = []
    consumed: set[Mention] = set()
    by_label: dict[str, list[Mention]] = {}  # in text order, cues first, as frames read them
    for m in (*analysis.cues, *analysis.entities):
        by_label.setdefault(m.label, []).append(m)
    for frame in load_frames() if frames is None else frames:
        for trigger in by_label.get(frame.trigger, ()):
            if not _applies(frame, trigger, analysis):
                continue
            if (ref := _referenced(frame, trigger, analysis)) is not None:
                notes.append(f"{frame.predicate}: {trigger.text!r} is referenced by {ref.text!r}")
                continue
            if analysis.sentence_of(trigger.start) in analysis.questions:
                notes.append(f"{frame.predicate}: {trigger.text!r} is in a question")
                continue
            negation, hedge = _polarity(frame, trigger, analysis)
            if negation is not None:  # it is about this trigger, atom or not
                consumed.add(negation)
            bindings, missing = _bind(frame, trigger, analysis)
            if missing is not None:
                notes.append(missing)
                continue
            for bound in bindings:
                atom = _atom(frame, trigger, bound, hedge)
                if negation is not None:
                    notes.append(f"negated: {atom.symbol} by {negation.text!r}")
                    negated.setdefault(atom.text, atom)
                else:
                    atoms.setdefault(atom.text, atom)
                    clauses.setdefault(atom.text, analysis.clause_of(trigger.start))
    ordered = sorted(atoms.values(), key=lambda a: (a.spans[0].start, a.text))
    spans = [(sp.start, sp.end) for a in ordered for sp in a.spans]
    left = [
        c
        for c in analysis.cues
        if c.label in POLARITY_CUES
        and c not in consumed
        and not any(start <= c.start_char and c.end_char <= end for start, end in spans)
    ]
    denied = sorted(negated.values(), key=lambda a: (a.spans[0].start, a.text))
    turns = [c for c in analysis.cues if c.label in POLARITY_CUES or c.label == CHANGE_CUE]
    changes = [c.text for c in turns if c.label == CHANGE_CUE]
    where = {analysis.clause_of(c.start) for c in turns}
    about = [m for m in analysis.entities if m.value and analysis.clause_of(m.start) in where]
    if where and not about:  # "That's not happening anymore": about what the text names
        about = [m for m in analysis.entities if m.value]
    return Assembly(
        ordered,
        denied,
        sorted(set(notes)),
        [c.text for c in left],
        list(dict.fromkeys(c.text for c in turns)),
        list(dict.fromkeys(changes)),
        clauses,
        left,
        list(dict.fromkeys(m.value for m in about)),
        list(dict.fromkeys(c.text for c in turns if c.label in ENDING_CUES)),
    )


def _atom(
    frame: FrameSpec, trigger: Mention, bound: list[_Bound], hedge: Mention | None
) -> GroundedAtom:
    """Build one atom, hedged as ``maybe(Atom)`` when a hedge cue is in its clause."""
    symbol = clingo.Function(frame.predicate, [b.value for b in bound])
    if hedge is not None:
        symbol = clingo.Function(HEDGE_PREDICATE, [symbol])
    return GroundedAtom(
        symbol, _spans(trigger, bound, frame), frame.predicate, hedged=hedge is not None
    )


def _unread(analysis: Analysis, atoms: list[GroundedAtom]) -> list[Mention]:
    """The entity mentions with a value that no atom took in: neither inside an atom's spans
    nor named by an atom from another mention, the first mention of each value."""
    spans = [(sp.start, sp.end) for a in atoms for sp in a.spans]
    read = argument_terms(a.text for a in atoms)  # named by some atom, from any mention
    out: dict[str, Mention] = {}
    for m in analysis.entities:
        inside = any(start <= m.start_char and m.end_char <= end for start, end in spans)
        if m.value and not inside and "a:" + m.value not in read:
            out.setdefault(m.value, m)
    return list(out.values())


def unread_values(analysis: Analysis, atoms: Iterable[GroundedAtom]) -> list[str]:
    """The values of the entities a text names that no atom took in (``metformin`` in "the
    doctor doubled the metformin" when only a visit to the doctor was read), in text order.

    A reading that leaves out what the text says about a thing it names is not the whole
    reading: where that thing is what an old fact was about, the new atoms cannot be trusted
    to stand for the text (``stategraph.prepare``).
    """
    return [m.value for m in _unread(analysis, list(atoms))]


_UNRIVALLED = frozenset({"PERSON", "DATE"})
"""Kinds whose unread values never make a reading ambiguous: people are named around a fact
without being its agent ("ask the neighbour to water the plants"), and a frame dates an event
by its own rule (the first of a range, the nearest in the sentence)."""


def _rivals(
    analysis: Analysis, atoms: list[GroundedAtom], read: Iterable[GroundedAtom]
) -> dict[str, list[Mention]]:
    """For each atom, the unread mentions of the kind of a word that fills one of its roles
    (not its trigger, not its agent): its rivals, wherever they stand."""
    unread = _unread(analysis, [*atoms, *read])
    kind = {(m.start_char, m.end_char): m.label for m in analysis.entities}
    out: dict[str, list[Mention]] = {}
    for a in atoms:
        labels = {
            kind.get((sp.start, sp.end)) for sp in a.spans if sp.role not in ("trigger", _AGENT)
        } - {None, *_UNRIVALLED}
        out[a.text] = [m for m in unread if m.label in labels]
    return out


def ambiguous_values(
    analysis: Analysis, atoms: Iterable[GroundedAtom], read: Iterable[GroundedAtom] = ()
) -> list[str]:
    """The unread values (:func:`unread_values`) of the kind of a word that fills a role of
    the atoms, in text order: that role had a rival it did not take, so the atom may stand on
    the wrong word ("the round-trip flights Shanghai-Tokyo" read as a trip to Shanghai leaves
    ``tokyo``; "warfarin" is the rival of "ibuprofen" in 吃华法林期间不能吃布洛芬). People and
    dates are not rivals (:data:`_UNRIVALLED`).

    Args:
        analysis: the text's mentions.
        atoms: the atoms read.
        read: further atoms whose words count as read (the negated ones: "cancelled the move
            to Shenzhen" reads Shenzhen, as what is not so).
    """
    rivals = _rivals(analysis, list(atoms), read)
    seen = {m for found in rivals.values() for m in found}
    return list(dict.fromkeys(m.value for m in sorted(seen, key=lambda m: m.start)))


def doubtful_atoms(analysis: Analysis, made: Assembly) -> list[str]:
    """The atoms whose own clause was not read cleanly: a polarity cue no atom took in stands
    in it, or a rival of one of its roles (:func:`ambiguous_values`) does. An atom read from a
    clean clause of a text whose other clauses were not ("The user is pregnant; her OB told her
    to use acetaminophen, not ibuprofen": the pregnancy) says what its clause says."""
    rivals = _rivals(analysis, made.atoms, made.negated)
    out = []
    for a in made.atoms:
        clause = made.clauses[a.text]
        if any(analysis.clause_of(m.start) == clause for m in (*made.left, *rivals[a.text])):
            out.append(a.text)
    return out
