"""The grounder interface, the rule-based grounder, and a registry of versioned names.

Another pipeline (a trained model, an LLM extractor) plugs in by implementing
:class:`Grounder` and registering a factory under a new versioned name; the engine asks for
grounders by name, so a stored configuration keeps meaning the same pipeline.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from stategraph.errors import InvalidInputError
from stategraph.grounding.errors import GroundingError
from stategraph.grounding.language import Lang, detect_language
from stategraph.grounding.result import Grounding
from stategraph.grounding.warm import ground_warm
from stategraph.model import check_text

__all__ = [
    "DEFAULT_GROUNDER",
    "Grounder",
    "RuleGrounder",
    "get_grounder",
    "ground",
    "is_builtin",
    "register_grounder",
    "registered_grounders",
]

DEFAULT_GROUNDER = "stategraph.rule_grounder.v1"
_LANGS: tuple[Lang, ...] = ("en", "zh")


@runtime_checkable
class Grounder(Protocol):
    """Anything that turns a memory's text into atoms."""

    name: str

    def ground(
        self, text: str, *, lang: Lang | None = None, reference_year: int | None = None
    ) -> Grounding:
        """Ground one text; see :func:`ground` for the arguments."""
        ...


class RuleGrounder:
    """The default grounder: blank spaCy pipelines, JSONL patterns and lexicons, frames.

    Deterministic and offline: the same text, language and reference year always give the
    same atoms. In a process that uses a warm grounder (:mod:`stategraph.grounding.warm`),
    the texts go to it until this process has built its own pipelines.
    """

    name = DEFAULT_GROUNDER

    def ground(
        self, text: str, *, lang: Lang | None = None, reference_year: int | None = None
    ) -> Grounding:
        """Ground one text; see :func:`ground` for the arguments."""
        chosen = detect_language(text) if lang is None else lang
        if chosen not in _LANGS:
            raise GroundingError(chosen, _LANGS, kind="language")
        warm = ground_warm(text, chosen, reference_year)
        if warm is not None:
            return warm
        # Imported here, not at the top: spaCy and jieba take about a second to import, and
        # only grounding needs them (``stategraph show``, ``why`` and ``--help`` never ground).
        from stategraph.grounding.analysis import analyse_doc
        from stategraph.grounding.frames import (
            ambiguous_values,
            assemble,
            doubtful_atoms,
            unread_values,
        )
        from stategraph.grounding.pipeline import REFERENCE_YEAR_KEY, get_pipeline

        nlp = get_pipeline(chosen)
        doc = nlp.make_doc(text)
        doc.user_data[REFERENCE_YEAR_KEY] = reference_year
        doc = nlp(doc)
        analysis = analyse_doc(doc)
        made = assemble(analysis)
        atoms = made.atoms
        return Grounding(
            text,
            chosen,
            tuple(atoms),
            tuple(made.notes),
            self.name,
            tuple(made.unconsumed),
            tuple(unread_values(analysis, atoms)),
            tuple(ambiguous_values(analysis, atoms, made.negated)),
            tuple(a.text for a in made.negated),
            tuple(made.turns),
            tuple(made.changes),
            tuple(doubtful_atoms(analysis, made)),
            tuple(made.turned),
            tuple(made.ends),
        )


_BUILTIN: dict[str, Callable[[], Grounder]] = {DEFAULT_GROUNDER: RuleGrounder}
_FACTORIES = dict(_BUILTIN)


def register_grounder(name: str, factory: Callable[[], Grounder]) -> None:
    """Make a grounder available under a versioned name (``"my_team.llm_grounder.v1"``).

    Registering a name again replaces its factory (and forgets the cached instance), so
    tests can stand in a double under the default name and restore it afterwards.
    """
    _FACTORIES[name] = factory
    get_grounder.cache_clear()


def is_builtin(name: str) -> bool:
    """True when ``name`` is one of this package's grounders and no other factory has been
    registered in its place: any process loading the package grounds with it the same way."""
    return name in _BUILTIN and _FACTORIES.get(name) is _BUILTIN[name]


def registered_grounders() -> list[str]:
    """The registered grounder names, sorted."""
    return sorted(_FACTORIES)


@functools.cache
def get_grounder(name: str = DEFAULT_GROUNDER) -> Grounder:
    """The grounder registered under ``name`` (one cached instance per name).

    Raises:
        GroundingError: when no grounder is registered under that name.
    """
    if name not in _FACTORIES:
        raise GroundingError(name, _FACTORIES, kind="grounder")
    return _FACTORIES[name]()


def ground(
    text: str,
    *,
    lang: Lang | None = None,
    reference_year: int | None = None,
    grounder: str = DEFAULT_GROUNDER,
) -> Grounding:
    """Turn a memory's text into atoms.

    Args:
        text: the memory's text, in English or Chinese.
        lang: ``"en"`` or ``"zh"``; detected from the text when None (any Han character
            means Chinese).
        reference_year: the year for dates that name only a month or day (12月, "in
            December"), e.g. the memory's creation year; without it such dates stay
            ``unknown`` rather than guessed.
        grounder: the registry name of the grounder to use.

    Returns:
        The atoms with the spans that produced them; ``atoms`` is empty and ``reason`` says
        why when nothing was found.

    Raises:
        GroundingError: for an unknown language or grounder name.
        InvalidInputError: the text is no Unicode (a lone surrogate: on the command line, an
            argument that was not UTF-8).
    """
    try:
        check_text(text)
    except ValueError as exc:
        raise InvalidInputError("text", [("text", str(exc))]) from None
    return get_grounder(grounder).ground(text, lang=lang, reference_year=reference_year)
