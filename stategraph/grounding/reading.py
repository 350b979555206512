"""What a memory keeps of its grounding: a clean reading's atoms, or its atoms set aside.

A memory's atoms feed the rule packs, and a rule link decides truth: what it derives holds, and
what it derived goes when a premise goes, without anyone being asked. So a memory carries the
atoms of a **clean** reading only (:attr:`~stategraph.grounding.result.Grounding.clean`: no
negation, cancellation or reversal cue left over, and no value of a kind its atoms take left
unread beside them). The atoms of any other reading are kept in the memory's metadata under
:data:`WITHHELD`, with what made the reading unclean: they are evidence (the term index, the
candidate proposer and the check for a new fact that reverses an old one read them through
:func:`evidence_atoms`), never premises or heads of a rule link. Such a memory is linked by
candidates, which a judge or a person settles.

The entry is a JSON object::

    {"atoms": ["trip(user,shanghai,\"2027-04-10\")"],   # what the grounder read
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
from dataclasses import dataclass
from typing import Any

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
        atoms: the atoms the memory carries: a clean reading's, else none.
        withheld: the :data:`WITHHELD` entry of an unclean reading that found atoms, else None.
        named: the :data:`NAMED` values: what the text names outside its atoms.
        turned: the text has a turn (a negation, cancellation, reversal or change cue, or an
            atom that undoes another): as a new fact it may reverse an old one, and is read
            for that (:mod:`stategraph.text.reversals`); without one it never is.
    """

    atoms: tuple[str, ...]
    withheld: Mapping[str, Sequence[str]] | None = None
    named: tuple[str, ...] = ()
    turned: bool = False

    def metadata(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """A memory's metadata with this reading's entries added to ``given``."""
        out = dict(given)
        if self.withheld is not None:
            out[WITHHELD] = dict(self.withheld)
        if self.named:
            out[NAMED] = list(self.named)
        return out

    def to_json(self) -> list[Any]:
        """The reading as a JSON value (the grounding-ahead worker's answer for one text)."""
        withheld = None if self.withheld is None else dict(self.withheld)
        return [list(self.atoms), withheld, list(self.named), self.turned]

    @classmethod
    def from_json(cls, value: Any) -> Reading:
        """The reading :meth:`to_json` wrote.

        Raises:
            ValueError: when ``value`` is not such a reading.
        """
        if not isinstance(value, list) or len(value) != 4:
            raise ValueError(f"not a reading: {value!r:.80}")
        atoms, withheld, named, turned = value
        if not _strings(atoms) or not _strings(named) or not isinstance(turned, bool):
            raise ValueError(f"not a reading's atoms and names: {value!r:.80}")
        if withheld is not None and not withheld_atoms({WITHHELD: withheld}):
            raise ValueError(f"not a withheld entry: {withheld!r:.80}")
        return cls(tuple(atoms), withheld, tuple(named), turned)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def read(found: Grounding, unread: Sequence[str] = ()) -> Reading:
    """The atoms a memory may carry from ``found``, or the entry that sets them aside.

    Args:
        found: the grounding of the memory's text.
        unread: values the caller knows the reading should have taken in and did not (for a
            replacement: the things the fact it replaces names, left unread), which make it
            unclean too.
    """
    named = tuple(v for v in found.unread_values if v != _EVERYONE)
    turned = turns(found)
    if not found.atoms:
        return Reading((), None, named, turned)
    if found.clean and not unread:
        return Reading(found.texts, None, named, turned)
    entry: dict[str, list[str]] = {"atoms": list(found.texts)}
    if found.unconsumed:
        entry["unconsumed"] = list(found.unconsumed)
    if found.ambiguous:
        entry["ambiguous"] = list(found.ambiguous)
    if unread:
        entry["unread"] = list(unread)
    return Reading((), entry, named, turned)


def turns(found: Grounding) -> bool:
    """True when a text has a turn: a negation, cancellation, reversal or change cue, or an
    atom whose frame undoes another (``reverses``: staying where one was to leave)."""
    if found.turns:
        return True
    from stategraph.grounding.frames import load_frames  # found was grounded: spaCy is in

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
