"""Money amounts: ``5,000`` / ``5k`` / ``5万`` / ``1.5 million`` become whole numbers; doses
(``500 mg`` / ``500毫克``) become strings such as ``"500mg"``.

Rule packs compare amounts against limits with clingo's integer arithmetic, so an amount is a
``clingo.Number`` of whole currency units; fractions of a unit are dropped (limits are whole
numbers, and a cent never decides a tier).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

__all__ = ["normalise_amount", "normalise_dose"]

_MULTIPLIERS = {
    "": 1,
    "k": 1_000,
    "thousand": 1_000,
    "千": 1_000,
    "万": 10_000,
    "million": 1_000_000,
}


def normalise_amount(groups: Mapping[str, str | None]) -> int | None:
    """Build the whole-unit amount from a value pattern's named groups.

    Args:
        groups: ``num`` (digits, maybe with thousands commas), ``frac`` (decimals) and ``mult``
            (a multiplier word: k, thousand, million, 千, 万).

    Returns:
        The amount in whole units, or None when the groups do not form a number.
    """
    digits = (groups.get("num") or "").replace(",", "")
    if not digits:
        return None
    frac = groups.get("frac") or ""
    multiplier = _MULTIPLIERS.get((groups.get("mult") or "").lower())
    if multiplier is None:
        return None
    try:
        value = Decimal(f"{digits}.{frac}" if frac else digits) * multiplier
    except InvalidOperation:
        return None
    return int(value)


_DOSE_UNITS = {
    "mg": "mg",
    "毫克": "mg",
    "mcg": "mcg",
    "µg": "mcg",
    "μg": "mcg",
    "ug": "mcg",
    "微克": "mcg",
    "g": "g",
    "克": "g",
    "ml": "ml",
    "毫升": "ml",
    "iu": "iu",
    "unit": "iu",
    "units": "iu",
    "单位": "iu",
}


def normalise_dose(groups: Mapping[str, str | None]) -> str | None:
    """Build the canonical dose string from a value pattern's named groups.

    A dose is the strength of one intake of a medication, a string so that the packs compare
    it by equality only: ``500 mg`` and ``500毫克`` both become ``"500mg"``, ``0.5 mg`` becomes
    ``"0.5mg"`` and ``10 units`` becomes ``"10iu"``.

    Args:
        groups: ``num`` (digits), ``frac`` (decimals) and ``unit`` (mg, mcg, g, ml, IU,
            units, 毫克, 微克, 克, 毫升, 单位).

    Returns:
        The dose string, or None when the unit is unknown or the number is missing.
    """
    digits = (groups.get("num") or "").replace(",", "")
    unit = _DOSE_UNITS.get((groups.get("unit") or "").lower())
    if not digits or unit is None:
        return None
    frac = (groups.get("frac") or "").rstrip("0")
    number = f"{int(digits)}.{frac}" if frac else str(int(digits))
    return number + unit
