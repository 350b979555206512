"""What a memory keeps of its grounding: the atoms read cleanly, and the others set aside.

A memory's atoms feed the rule packs, and a rule link decides truth: what it derives holds, and
what it derived goes when a premise goes, without anyone being asked. A fact holds on its own
word, so a fact's atom that says something the text does not would decide truth unasked. So a
fact carries only atoms read cleanly: each from a clause with no negation, cancellation or
reversal cue left over and no rival of its roles left unread beside it
(:attr:`~stategraph.grounding.result.Grounding.doubtful`), and a fact's replacement only when
its whole text was (:attr:`~stategraph.grounding.result.Grounding.clean`). The other atoms are
kept in the fact's metadata under :data:`WITHHELD`, with what made them doubtful: they are
evidence (the term index, the candidate proposer and the check for a new fact that reverses an
old one read them through :func:`evidence_atoms`), never a rule link's premise; the memories
resting on such a fact find it as a candidate, which logic never calls independent
(:meth:`stategraph.prepare.Preparer.check`), and a judge or a person settles. A derived memory
keeps all its atoms: it holds only on its own basis, and its atoms are what link it there.

The entry is a JSON object::

    {"atoms": ["trip(user,shanghai,\"2027-04-10\")"],   # the atoms withheld
     "unconsumed": ["is off"],                        # polarity cues no atom took in
     "ambiguous": ["tokyo"],                           # values a role could have taken instead
     "unread": ["metformin"]}                          # (a replacement) what the old fact names

with only the keys that apply besides ``atoms``.

A memory also keeps, under :data:`NAMED`, the things its text names that no atom took in (the
place of "每月5号交徐汇区的房租", the pet of 我们不养狗了): normalised constants, so that memories
in either language that name the same place, person, drug or date meet as neighbours, and a new
fact that reverses an old one finds it even when neither reads into an atom.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stategraph.grounding.frames import load_frames
from stategraph.grounding.result import Grounding

__all__ = [
    "NAMED",
    "WITHHELD",
    "Reading",
    "evidence_atoms",
    "named_values",
    "read",
    "turns",
    "withheld_atoms",
]

WITHHELD = "withheld_atoms"
"""The metadata key under which a memory read unclean keeps the atoms grounding found, and
why they were withheld (see the module docstring for the entry's shape)."""

NAMED = "named_values"
"""The metadata key under which a memory keeps the constants its text names outside its atoms
(a list of strings; never ``user``, which every memory names)."""

_EVERYONE = "user"


@dataclass(frozen=True, slots=True)
class Reading:
    """What one grounding gives a memory.

    Attributes:
        found: every atom the grounder read, in order.
        doubtful: those a fact withholds: read from a clause that was not read cleanly (for a
            replacement read whole: all, unless the whole text was read cleanly).
        why: what made them doubtful: ``unconsumed`` cues, ``ambiguous`` rivals, ``unread``
            things the replaced fact names (only the keys that apply).
        named: the :data:`NAMED` values: what the text names outside its atoms.
        turned: the text has a turn (a negation, cancellation, reversal or change cue, or an
            atom that undoes another): as a new fact it may reverse an old one, and is read
            for that (:mod:`stategraph.text.reversals`); without one it never is.
    """

    found: tuple[str, ...]
    doubtful: tuple[str, ...] = ()
    why: Mapping[str, Sequence[str]] = field(default_factory=dict)
    named: tuple[str, ...] = ()
    turned: bool = False

    def atoms(self, withhold: bool = True) -> tuple[str, ...]:
        """The atoms a memory carries: all but the doubtful ones (``withhold``), or all."""
        return tuple(a for a in self.found if not (withhold and a in self.doubtful))

    def metadata(self, given: Mapping[str, Any], withhold: bool = True) -> dict[str, Any]:
        """A memory's metadata with this reading's entries added to ``given``: the
        :data:`WITHHELD` entry when it withholds atoms, and the :data:`NAMED` values."""
        out = dict(given)
        if withhold and self.doubtful:
            why = {k: list(v) for k, v in self.why.items()}
            out[WITHHELD] = {"atoms": list(self.doubtful), **why}
        if self.named:
            out[NAMED] = list(self.named)
        return out

    def to_json(self) -> list[Any]:
        """The reading as a JSON value (the grounding-ahead worker's answer for one text)."""
        why = {k: list(v) for k, v in self.why.items()}
        return [list(self.found), list(self.doubtful), why, list(self.named), self.turned]

    @classmethod
    def from_json(cls, value: Any) -> Reading:
        """The reading :meth:`to_json` wrote.

        Raises:
            ValueError: when ``value`` is not such a reading.
        """
        if not isinstance(value, list) or len(value) != 5:
            raise ValueError(f"not a reading: {value!r:.80}")
        found, doubtful, why, named, turned = value
        lists = (found, doubtful, named, *(why.values() if isinstance(why, dict) else [None]))
        if not all(_strings(v) for v in lists) or not isinstance(turned, bool):
            raise ValueError(f"not a reading: {value!r:.80}")
        return cls(tuple(found), tuple(doubtful), why, tuple(named), turned)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def read(found: Grounding, unread: Sequence[str] = (), whole: bool = False) -> Reading:
    """What a memory may carry from ``found``, and what a fact sets aside.

    A fact carries each atom whose own clause was read cleanly
    (:attr:`~stategraph.grounding.result.Grounding.doubtful` lists the others): "The user is
    pregnant; her OB told her to use acetaminophen, not ibuprofen" carries the pregnancy and
    withholds what it read of the second clause. A replacement is read ``whole``: any doubt
    anywhere in it withholds all its atoms, since what it says of the fact it replaces may
    stand in any clause.

    Args:
        found: the grounding of the memory's text.
        unread: values the caller knows the reading should have taken in and did not (for a
            replacement: the things the fact it replaces names, left unread), which make the
            whole reading unclean.
        whole: doubt every atom unless the whole text was read cleanly (a replacement).
    """
    named = tuple(v for v in found.unread_values if v != _EVERYONE)
    if whole or unread:
        doubtful = found.texts if unread or not found.clean else ()
    else:
        doubtful = tuple(a for a in found.texts if a in found.doubtful)
    why: dict[str, list[str]] = {}
    if doubtful and found.unconsumed:
        why["unconsumed"] = list(found.unconsumed)
    if doubtful and found.ambiguous:
        why["ambiguous"] = list(found.ambiguous)
    if unread:
        why["unread"] = list(unread)
    return Reading(found.texts, doubtful, why, named, turns(found))


def turns(found: Grounding) -> bool:
    """True when a text has a turn: a negation, cancellation, reversal or change cue, or an
    atom whose frame undoes another (``reverses``: staying where one was to leave)."""
    if found.turns:
        return True
    undoing = {f.predicate for f in load_frames() if f.reverses}
    return any(a.frame in undoing and not a.hedged for a in found.atoms)


def withheld_atoms(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The atoms a memory's metadata keeps aside (none when it has no :data:`WITHHELD` entry,
    or one that is not well formed: metadata is the writer's, and evidence is never worth an
    error)."""
    entry = metadata.get(WITHHELD)
    if not isinstance(entry, Mapping):
        return ()
    atoms = entry.get("atoms")
    if not isinstance(atoms, list):
        return ()
    return tuple(a for a in atoms if isinstance(a, str))


def named_values(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The constants a memory's metadata says its text names outside its atoms (none when
    the :data:`NAMED` entry is absent or not a list of strings)."""
    found: Any = metadata.get(NAMED)
    return tuple(found) if _strings(found) else ()


def evidence_atoms(atoms: Sequence[str], metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """A memory's atoms and the ones its reading withheld: what it names, for finding the
    memories it shares a place, a person, a drug or a date with (never for a rule link)."""
    return (*atoms, *(a for a in withheld_atoms(metadata) if a not in atoms))
