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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stategraph.grounding.result import Grounding

__all__ = ["WITHHELD", "Reading", "evidence_atoms", "read", "withheld_atoms"]

WITHHELD = "withheld_atoms"
"""The metadata key under which a memory read unclean keeps the atoms grounding found, and
why they were withheld (see the module docstring for the entry's shape)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What one grounding gives a memory.

    Attributes:
        atoms: the atoms the memory carries: a clean reading's, else none.
        withheld: the :data:`WITHHELD` entry of an unclean reading that found atoms, else None.
    """

    atoms: tuple[str, ...]
    withheld: Mapping[str, Sequence[str]] | None = None

    def to_json(self) -> list[Any]:
        """The reading as a JSON value (the grounding-ahead worker's answer for one text)."""
        return [list(self.atoms), None if self.withheld is None else dict(self.withheld)]

    @classmethod
    def from_json(cls, value: Any) -> Reading:
        """The reading :meth:`to_json` wrote.

        Raises:
            ValueError: when ``value`` is not such a reading.
        """
        if not isinstance(value, list) or len(value) != 2:
            raise ValueError(f"not a reading: {value!r:.80}")
        atoms, withheld = value
        if not isinstance(atoms, list) or not all(isinstance(a, str) for a in atoms):
            raise ValueError(f"not a reading's atoms: {atoms!r:.80}")
        if withheld is not None and not withheld_atoms({WITHHELD: withheld}):
            raise ValueError(f"not a withheld entry: {withheld!r:.80}")
        return cls(tuple(atoms), withheld)


def read(found: Grounding, unread: Sequence[str] = ()) -> Reading:
    """The atoms a memory may carry from ``found``, or the entry that sets them aside.

    Args:
        found: the grounding of the memory's text.
        unread: values the caller knows the reading should have taken in and did not (for a
            replacement: the things the fact it replaces names, left unread), which make it
            unclean too.
    """
    if not found.atoms:
        return Reading(())
    if found.clean and not unread:
        return Reading(found.texts)
    entry: dict[str, list[str]] = {"atoms": list(found.texts)}
    if found.unconsumed:
        entry["unconsumed"] = list(found.unconsumed)
    if found.ambiguous:
        entry["ambiguous"] = list(found.ambiguous)
    if unread:
        entry["unread"] = list(unread)
    return Reading((), entry)


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


def evidence_atoms(atoms: Sequence[str], metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """A memory's atoms and the ones its reading withheld: what it names, for finding the
    memories it shares a place, a person, a drug or a date with (never for a rule link)."""
    return (*atoms, *(a for a in withheld_atoms(metadata) if a not in atoms))
