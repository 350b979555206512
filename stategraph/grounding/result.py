"""What grounding returns: atoms with the text spans that produced them.

Plain frozen dataclasses rather than pydantic models, because an atom carries a live
:class:`clingo.Symbol` that pydantic cannot validate; :meth:`Grounding.to_dict` gives the
JSON-ready view for the CLI and for golden files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import clingo

__all__ = ["GroundedAtom", "Grounding", "SourceSpan"]


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """A piece of the input text that contributed to an atom.

    Attributes:
        start: character offset where the span starts in the grounded text.
        end: character offset one past its end.
        text: the surface text, ``text[start:end]`` of the input.
        role: what it contributed: ``"trigger"``, or the name of the argument it filled.
    """

    start: int
    end: int
    text: str
    role: str

    def to_dict(self) -> dict[str, Any]:
        """The span as a JSON-ready mapping."""
        return {"start": self.start, "end": self.end, "text": self.text, "role": self.role}


@dataclass(frozen=True, slots=True)
class GroundedAtom:
    """One atom found in a text.

    Attributes:
        symbol: the atom, built with ``clingo.Function``/``String``/``Number``.
        spans: the text spans that produced it, in text order.
        frame: the predicate of the frame that built it (``"moves"``), also for hedged atoms.
        hedged: True when the text only entertains the fact ("might move"); the symbol is then
            ``maybe(Atom)``, which no rule pack consumes.
    """

    symbol: clingo.Symbol
    spans: tuple[SourceSpan, ...]
    frame: str
    hedged: bool = False

    @property
    def text(self) -> str:
        """The atom's canonical text, ``str(symbol)``: what a state stores in ``atoms``."""
        return str(self.symbol)

    def to_dict(self) -> dict[str, Any]:
        """The atom as a JSON-ready mapping."""
        return {
            "atom": self.text,
            "frame": self.frame,
            "hedged": self.hedged,
            "spans": [s.to_dict() for s in self.spans],
        }


@dataclass(frozen=True, slots=True)
class Grounding:
    """The result of grounding one text.

    Attributes:
        text: the grounded text.
        lang: the language used (``"en"`` or ``"zh"``).
        atoms: the atoms found, in order of their first span; empty when none was found.
        notes: why frames that started did not yield a positive atom (negated, hedged, missing
            an argument), one line each; the explanation for an empty result.
        grounder: the registry name of the grounder that produced this result.
        unconsumed: negation, cancellation or reversal cues in the text that no atom took
            into account ("is off", "no longer", 黄了), by their surface text. Where there are
            any, the atoms may say the opposite of the text.
        unread_values: the normalised values of the entities the text names that no atom
            took in (``metformin`` in "the doctor doubled the metformin" read as a visit).
        ambiguous: those of the unread values whose kind a role of the atoms takes: the atom
            may have been built from the wrong word (``tokyo`` in "the round-trip flights
            Shanghai-Tokyo" read as a trip to Shanghai). Dates are left out: a frame dates an
            event by its own rule, and a second date is the end of a stay or a return.
        negated: the atoms a negation or cancellation cue suppressed, as they would have read
            (``trip(user,tokyo,unknown)`` for "the Tokyo trip is cancelled"): what the text
            says is not so. Never a memory's atoms; a new fact's negated atoms name the old
            fact it may reverse (:mod:`stategraph.text.reversals`).
        turns: every negation, cancellation, reversal or change cue in the text ("cancelled",
            "actually", "now", 改到), consumed or not: what makes a new fact read as a
            reversal or a replacement of an old one.
        changes: those of the turns that tell a change ("actually", "now", "moved to", 改到,
            其实) rather than a negation: with them a new value of an old fact's predicate
            reads as a replacement.
        doubtful: the atoms whose own clause was not read cleanly (a polarity cue left over
            in it, or a rival of one of the atom's roles in it): a memory withholds these and
            carries the others (:mod:`stategraph.grounding.reading`).
        turned: the values named in a clause that holds a turn: what a negation,
            cancellation or change is about (Tokyo and the trip in "Actually the Tokyo trip is
            cancelled"; not the district of "公司在渝北区安排了宿舍，不用自己租房").
        ends: those of the turns that call something off or end it ("cancelled", "split
            up", 黄了), not a bare negation ("can't manage long walks") or a change cue.
    """

    text: str
    lang: str
    atoms: tuple[GroundedAtom, ...]
    notes: tuple[str, ...] = field(default=())
    grounder: str = ""
    unconsumed: tuple[str, ...] = field(default=())
    unread_values: tuple[str, ...] = field(default=())
    ambiguous: tuple[str, ...] = field(default=())
    negated: tuple[str, ...] = field(default=())
    turns: tuple[str, ...] = field(default=())
    changes: tuple[str, ...] = field(default=())
    doubtful: tuple[str, ...] = field(default=())
    turned: tuple[str, ...] = field(default=())
    ends: tuple[str, ...] = field(default=())

    @property
    def clean(self) -> bool:
        """True when the atoms can be trusted to say what the text says: atoms were found,
        no negation, cancellation or reversal cue was left over, and no value of a kind the
        atoms take was left unread beside them. Only a clean reading gives a memory its atoms
        (:mod:`stategraph.grounding.reading`): a rule link decides truth, so it may rest on
        nothing less (``docs/revision.md``)."""
        return bool(self.atoms) and not self.unconsumed and not self.ambiguous

    @property
    def symbols(self) -> list[clingo.Symbol]:
        """The atoms' symbols, ready for :func:`stategraph.grounding.derive`."""
        return [a.symbol for a in self.atoms]

    @property
    def texts(self) -> tuple[str, ...]:
        """The atoms' canonical strings, ready for ``State.atoms``."""
        return tuple(a.text for a in self.atoms)

    @property
    def reason(self) -> str | None:
        """Why nothing was grounded, or None when atoms were found."""
        if self.atoms:
            return None
        if self.notes:
            return "no atom: " + "; ".join(self.notes)
        return "no atom: no frame trigger in the text"

    def to_record(self) -> dict[str, Any]:
        """Every field as a JSON-ready mapping, for :meth:`from_record` in another process
        (the warm grounder's answers, :mod:`stategraph.grounding.warm`). Unlike
        :meth:`to_dict`, which is what a person reads, nothing is left out."""
        return {
            "text": self.text,
            "lang": self.lang,
            "atoms": [
                [a.text, a.frame, a.hedged, [[s.start, s.end, s.text, s.role] for s in a.spans]]
                for a in self.atoms
            ],
            **{name: list(getattr(self, name)) for name in _LISTS},
            "grounder": self.grounder,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Grounding:
        """The grounding :meth:`to_record` wrote; equal to the one it was written from.

        Raises:
            KeyError, TypeError, ValueError, RuntimeError: ``record`` is not such a mapping
                (clingo raises RuntimeError for an atom it cannot parse).
        """
        atoms = tuple(
            GroundedAtom(
                clingo.parse_term(str(text)),
                tuple(SourceSpan(int(a), int(b), str(t), str(r)) for a, b, t, r in spans),
                str(frame),
                bool(hedged),
            )
            for text, frame, hedged, spans in record["atoms"]
        )
        lists = {name: tuple(str(v) for v in record[name]) for name in _LISTS}
        return cls(
            str(record["text"]), str(record["lang"]), atoms, grounder=record["grounder"], **lists
        )

    def to_dict(self) -> dict[str, Any]:
        """The grounding as a JSON-ready mapping (what ``stategraph ground --json`` prints)."""
        return {
            "text": self.text,
            "lang": self.lang,
            "grounder": self.grounder,
            "atoms": [a.to_dict() for a in self.atoms],
            "reason": self.reason,
            "notes": list(self.notes),
            **({"unconsumed": list(self.unconsumed)} if self.unconsumed else {}),
            **({"ambiguous": list(self.ambiguous)} if self.ambiguous else {}),
            **({"doubtful": list(self.doubtful)} if self.doubtful else {}),
        }


_LISTS = (
    "notes",
    "unconsumed",
    "unread_values",
    "ambiguous",
    "negated",
    "turns",
    "changes",
    "doubtful",
    "turned",
    "ends",
)
"""The fields of :class:`Grounding` that are tuples of strings."""
