"""Money amounts: ``5,000`` / ``5k`` / ``5万`` / ``1.5 million`` become whole numbers.

Rule packs compare amounts against limits with clingo's integer arithmetic, so an amount is a
``clingo.Number`` of whole currency units; fractions of a unit are dropped (limits are whole
numbers, and a cent never decides a tier).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

__all__ = ["normalise_amount"]

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
