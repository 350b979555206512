"""Date normalisation: every way of writing a month or a day becomes ``"YYYY-MM[-DD]"``.

The value patterns (``grounding/<lang>/values.jsonl``) find date mentions with named groups;
this module turns the groups into the canonical string. A month with no year takes an
explicit reference year when one is given (the memory's creation year); otherwise it stays
year-less, ISO 8601's reduced form ``"--MM"`` / ``"--MM-DD"``: grounding never guesses the
year from the clock, because the same memory must ground to the same atom tomorrow. The rule
packs' ``next_date`` builtin compares a year-less date with another date in the nearest year
that puts them in order, so "a reminder on 6月17日" still precedes "the signing on 6月18日".
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
        ``"2026-12"`` or ``"2026-12-05"``; ``"--12"`` or ``"--12-05"`` when the text names no
        year and no reference year was given; None when the groups are not a real date.
    """
    month = _number(groups, "m", "mz")
    if month is None and groups.get("mon"):
        month = _MONTHS.get((groups["mon"] or "").lower().rstrip("."))
    day = _number(groups, "d", "dz")
    year = int(groups["y"] or 0) if groups.get("y") else reference_year
    if month is None:
        return None
    try:  # a leap year stands in for a missing one, so 2月29日 stays a date
        datetime.date(2024 if year is None else year, month, day or 1)
    except ValueError:
        return None
    prefix = "-" if year is None else f"{year:04d}"
    return f"{prefix}-{month:02d}" + (f"-{day:02d}" if day else "")
