"""The index terms of a memory: what candidate proposal looks memories up by.

Two kinds of term, one inverted index (:class:`~stategraph.store.SQLiteStore`, table ``terms``):

- ``a:<constant>``: every argument of the memory's grounded atoms (the place, the person, the
  drug, the date, the amount). Memories that name the same thing share the term, whatever the
  language they were written in, because grounding normalises both to one constant.
- ``g:<gram>``: lexical grams, so that memories that ground to nothing still meet their
  neighbours: character 3-grams inside each Latin-script word (``moving`` and ``move`` share
  ``mov``; words under three letters count whole) and character 2-grams inside each run of CJK
  characters (Chinese has no spaces; two characters are the common word length). Grams never
  cross a word boundary, which keeps a memory at a few dozen terms.

Terms are sets: how often a gram occurs in one memory does not matter.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

import clingo

__all__ = [
    "argument_terms",
    "lexical_terms",
    "memory_terms",
    "predicate_terms",
    "terms_of",
    "value_terms",
]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def lexical_terms(text: str) -> set[str]:
    """The ``g:`` terms of a text (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: set[str] = set()
    for run in _CJK.findall(text):
        if len(run) == 1:
            out.add("g:" + run)
        out.update("g:" + run[i : i + 2] for i in range(len(run) - 1))
    for word in _WORD.findall(_CJK.sub(" ", text)):
        if len(word) < 3:
            out.add("g:" + word)
        else:
            out.update("g:" + word[i : i + 3] for i in range(len(word) - 2))
    return out


def _constants(sym: clingo.Symbol) -> Iterable[str]:
    for arg in sym.arguments:
        if arg.type is clingo.SymbolType.Function and arg.arguments:
            yield from _constants(arg)
        elif arg.type is clingo.SymbolType.String:
            yield arg.string
        elif arg.type is not clingo.SymbolType.Function or arg.name:
            yield str(arg)


def argument_terms(atoms: Iterable[str]) -> set[str]:
    """The ``a:`` terms of grounded atoms; ``unknown`` (the grounding's "not said") is left out.

    Atoms that do not parse are skipped: a state's atoms are validated when it is linked, and
    the index must never be the place a bad atom is reported.
    """
    out: set[str] = set()
    for text in atoms:
        try:
            sym = clingo.parse_term(text)
        except (RuntimeError, UnicodeError):
            continue
        if sym.type is clingo.SymbolType.Function:
            out.update("a:" + c for c in _constants(sym) if c != "unknown")
    return out


def value_terms(values: Iterable[str]) -> set[str]:
    """The ``a:`` terms of constants a memory names outside its atoms
    (:data:`stategraph.grounding.reading.NAMED`): the same terms as those of an atom naming
    them, so a memory that names Shanghai meets one whose atom does."""
    return {"a:" + v for v in values if v != "unknown"}


def predicate_terms(atoms: Iterable[str]) -> set[str]:
    """The ``p:`` terms of grounded atoms: their predicates (``p:moves``), by which a new fact
    that names an event ("搬家的事黄了") finds the facts that state one
    (:mod:`stategraph.text.reversals`). Hedged atoms (``maybe(...)``) state nothing."""
    out = set()
    for text in atoms:
        name = text.split("(", 1)[0].strip()
        if name and name != "maybe":
            out.add("p:" + name)
    return out


def terms_of(text: str, atoms: Iterable[str]) -> set[str]:
    """Every index term of a memory."""
    return lexical_terms(text) | argument_terms(atoms)


@functools.lru_cache(maxsize=64)
def memory_terms(text: str, atoms: tuple[str, ...]) -> frozenset[str]:
    """:func:`terms_of`, kept for the memories just seen: a new memory's terms are wanted
    when its candidates are proposed and again when it is indexed (frozen: one set is shared
    by every caller)."""
    return frozenset(terms_of(text, atoms))
