"""Entity lexicons: surface forms in each language mapped to one shared constant.

The lexicon is what makes 上海, 沪 and "Shanghai" meet in the constant ``shanghai``: every
entry names a constant (``id``), an entity label (``CITY``, ``MED``, ...) and its surface forms
per language. Districts carry their city as ``id`` (so 南山 grounds to ``shenzhen``) and their
own name as ``district``, because the rule packs reason at city level.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from stategraph.grounding.data import read_jsonl_folder
from stategraph.grounding.language import Lang

__all__ = ["LexiconEntry", "entity_patterns", "load_lexicon"]

_CONSTANT = re.compile(r"^[a-z][a-z0-9_]*$")


class LexiconEntry(BaseModel):
    """One lexicon line: a constant and the words that name it.

    Attributes:
        id: the clingo constant the words normalise to (lowercase identifier).
        label: the entity label the frames ask for (``CITY``, ``PERSON``, ...).
        en: English surface forms, matched case-insensitively.
        zh: Chinese surface forms.
        district: for a district, its own name (informational; ``id`` is its city).
        predicates: for an event (``move``, ``trip``), the predicates whose atoms state such an
            event (``moves``; ``trip``, ``event_in``): a new fact that names the event meets
            the facts that state it (:mod:`stategraph.text.reversals`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    label: str = Field(pattern=r"^[A-Z_]+$")
    en: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()
    district: str | None = None
    predicates: tuple[str, ...] = ()

    @field_validator("id")
    @classmethod
    def _id_is_a_constant(cls, value: str) -> str:
        if not _CONSTANT.match(value):
            raise ValueError(f"{value!r} is not a clingo constant (lowercase letters, digits, _)")
        return value

    def forms(self, lang: Lang) -> tuple[str, ...]:
        """The surface forms for one language."""
        return self.en if lang == "en" else self.zh


@functools.cache
def load_lexicon() -> tuple[LexiconEntry, ...]:
    """Every entry of every ``grounding/lexicon/*.jsonl`` file, validated (cached)."""
    return tuple(LexiconEntry.model_validate(row) for row in read_jsonl_folder("lexicon"))


def entity_patterns(lang: Lang) -> list[dict[str, Any]]:
    """The lexicon as spaCy SpanRuler phrase patterns for one language.

    Each pattern carries the constant as its ``id``, which the ruler copies to ``span.id_``.
    """
    return [
        {"label": entry.label, "pattern": form, "id": entry.id}
        for entry in load_lexicon()
        for form in entry.forms(lang)
    ]
