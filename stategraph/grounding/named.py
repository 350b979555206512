"""What a text names, read from the lexicons alone: no spaCy, no jieba.

Grounding a text builds a spaCy pipeline (and, for Chinese, jieba's dictionary): a second or
more before the first text is read. A recall query needs less than the atoms: the things it
names (the lexicon's constants, the same in both languages: "Shenzhen" and 深圳 are
``shenzhen``, "dog" and 狗 are ``pet``) and its dates and amounts, normalised as grounding
normalises them. :func:`named` finds those by looking every surface form of
``grounding/lexicon/*.jsonl`` up in a dictionary, and with the value patterns of
``grounding/<lang>/values.jsonl``, in milliseconds. :func:`forms` gives back every surface
form of a constant, in every language: what a query's words are widened by, so that "dog"
meets a memory that says 狗.

A form matches case-insensitively, as the grounder's phrase matcher does, and where it stands
on its own: a form that starts or ends with a Latin letter or digit is not matched inside a
longer word ("cat" in "catalogue"); Chinese has no spaces, so a Han form matches wherever it
occurs, the longest first.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from stategraph.grounding.language import detect_language
from stategraph.grounding.lexicon import load_lexicon
from stategraph.grounding.values import find_values

__all__ = ["Named", "forms", "named"]


@dataclass(frozen=True, slots=True)
class Named:
    """What a text names.

    Attributes:
        constants: the lexicon constants of the entities it mentions, in text order, each once.
        values: its dates, doses and amounts, normalised (``2026-12``, ``500mg``), each once.
    """

    constants: tuple[str, ...]
    values: tuple[str, ...]


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _alnum(c: str) -> bool:
    return c.isascii() and c.isalnum()


@functools.cache
def _lexicon() -> tuple[dict[str, str], tuple[int, ...]]:
    """Every surface form (folded) with the constant it names, and the forms' lengths,
    longest first."""
    constant: dict[str, str] = {}
    for entry in load_lexicon():
        for form in (*entry.en, *entry.zh):
            constant.setdefault(_fold(form), entry.id)
    return constant, tuple(sorted({len(f) for f in constant}, reverse=True))


def _mentions(text: str) -> Iterator[str]:
    """The constants of the forms in a folded text: at each place, the longest form that
    stands there on its own, then on past it (a dictionary lookup per length: building one
    regular expression of 2,400 forms cost more than the whole recall)."""
    constant, lengths = _lexicon()
    i, n = 0, len(text)
    while i < n:
        for size in lengths:
            form = text[i : i + size]
            if len(form) < size or form not in constant:
                continue
            if _alnum(form[0]) and i > 0 and _alnum(text[i - 1]):
                continue
            if _alnum(form[-1]) and i + size < n and _alnum(text[i + size]):
                continue
            yield constant[form]
            i += size
            break
        else:
            i += 1


@functools.cache
def _forms() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for entry in load_lexicon():
        out.setdefault(entry.id, []).extend((*entry.en, *entry.zh))
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def forms(constant: str) -> tuple[str, ...]:
    """Every surface form of a lexicon constant, English first, each once (none for a
    constant the lexicon does not have)."""
    return _forms().get(constant, ())


def named(text: str) -> Named:
    """The constants and values a text names (see the module docstring).

    Args:
        text: any text (a recall query, a memory).
    """
    found = _mentions(_fold(text))
    values = [v.value for v in find_values(text, detect_language(text)) if v.value is not None]
    return Named(tuple(dict.fromkeys(found)), tuple(dict.fromkeys(str(v) for v in values)))
