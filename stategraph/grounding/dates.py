"""Date normalisation: every way of writing a month or a day becomes ``"YYYY-MM[-DD]"``.

The value patterns (``grounding/<lang>/values.jsonl``) find date mentions with named groups;
this module turns the groups into the canonical string. A month with no year is resolved only
against an explicit reference year: grounding never guesses the year from the clock, because
the same memory must ground to the same atom tomorrow.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping

__all__ = ["normalise_date", "zh_numeral"]

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}

_ZH_DIGITS = {
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}


def zh_numeral(text: str) -> int | None:
    """Read a Chinese numeral from 1 to 99 (十二, 二十五, 三十一); None if it is not one."""
    if not text:
        return None
    if "十" not in text:
        return _ZH_DIGITS.get(text) if len(text) == 1 else None
    tens_text, _, units_text = text.partition("十")
    tens = 1 if not tens_text else _ZH_DIGITS.get(tens_text)
    units = 0 if not units_text else _ZH_DIGITS.get(units_text)
    if tens is None or units is None or len(tens_text) > 1 or len(units_text) > 1:
        return None
    return tens * 10 + units


def _number(groups: Mapping[str, str | None], digits: str, chinese: str) -> int | None:
    if groups.get(digits):
        return int(groups[digits] or 0)
    if groups.get(chinese):
        return zh_numeral(groups[chinese] or "")
    return None


def normalise_date(
    groups: Mapping[str, str | None], reference_year: int | None = None
) -> str | None:
    """Build the canonical date string from a value pattern's named groups.

    Args:
        groups: the match's named groups: ``y`` (year), ``m`` (month digits), ``mz`` (month as a
            Chinese numeral), ``mon`` (English month name), ``d`` / ``dz`` (day).
        reference_year: the year to assume when the text names none (e.g. the memory's
            creation year); None leaves such dates unresolved.

    Returns:
        ``"2026-12"`` or ``"2026-12-05"``; None when the groups are not a real date or the
        year is missing and no reference year was given.
    """
    month = _number(groups, "m", "mz")
    if month is None and groups.get("mon"):
        month = _MONTHS.get((groups["mon"] or "").lower().rstrip("."))
    day = _number(groups, "d", "dz")
    year = int(groups["y"] or 0) if groups.get("y") else reference_year
    if month is None or year is None:
        return None
    try:
        datetime.date(year, month, day or 1)
    except ValueError:
        return None
    return f"{year:04d}-{month:02d}" + (f"-{day:02d}" if day else "")
