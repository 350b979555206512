"""Value mentions (dates, money amounts) found by the regexes in ``grounding/<lang>/values.jsonl``.

Values are found by regular expressions over the raw text rather than by token patterns:
jieba splits ``2026年12月5日`` differently from ``2026-12-05``, and a regex with named groups
states both the shape and the parts the normaliser needs in one line of data.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from stategraph.grounding.amounts import normalise_amount, normalise_dose
from stategraph.grounding.data import read_jsonl
from stategraph.grounding.dates import normalise_date
from stategraph.grounding.language import Lang

__all__ = ["ValueMatch", "ValuePattern", "find_values", "value_patterns"]


class ValuePattern(BaseModel):
    """One line of ``values.jsonl``: a label (``DATE``, ``DOSE`` or ``AMOUNT``) and its regex."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    regex: str
    comment: str = ""


@dataclass(frozen=True, slots=True)
class ValueMatch:
    """A value found in the text.

    Attributes:
        start: character offset of the mention.
        end: one past its last character.
        label: ``DATE``, ``DOSE`` or ``AMOUNT``.
        value: the normalised value (``"2026-12"``, ``"500mg"``, ``50000``), or None for a
            date that cannot be resolved (a month with no year and no reference year).
    """

    start: int
    end: int
    label: str
    value: str | int | None


# Dates first, then doses, then bare amounts: the 500 of "500 mg" is a dose, never money.
_ORDER = {"DATE": 0, "DOSE": 1, "AMOUNT": 2}


@functools.cache
def value_patterns(lang: Lang) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The compiled value patterns for a language, dates first (cached)."""
    rows = [ValuePattern.model_validate(r) for r in read_jsonl(f"{lang}/values.jsonl")]
    rows.sort(key=lambda r: _ORDER.get(r.label, len(_ORDER)))
    return tuple((r.label, re.compile(r.regex)) for r in rows)


def find_values(text: str, lang: Lang, reference_year: int | None = None) -> list[ValueMatch]:
    """Find the dates, doses and amounts in a text.

    Patterns are tried in file order, dates before doses before amounts; a match that overlaps
    an earlier one is skipped, so the ``2026`` inside ``2026-12`` never becomes an amount and
    the ``500`` of ``500 mg`` never becomes money.

    Args:
        text: the memory's text.
        lang: which language's patterns to use.
        reference_year: passed to :func:`normalise_date` for dates without a year.
    """
    taken: list[ValueMatch] = []
    for label, pattern in value_patterns(lang):
        for m in pattern.finditer(text):
            if m.start() == m.end() or any(m.start() < v.end and v.start < m.end() for v in taken):
                continue
            groups = m.groupdict()
            value: str | int | None
            if label == "DATE":
                value = normalise_date(groups, reference_year)
            elif label == "DOSE":
                value = normalise_dose(groups)
                if value is None:
                    continue
            else:
                value = normalise_amount(groups)
                if value is None:
                    continue
            taken.append(ValueMatch(m.start(), m.end(), label, value))
    return sorted(taken, key=lambda v: v.start)
