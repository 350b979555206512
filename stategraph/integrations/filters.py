"""A search's ``filter`` and a ``list_namespaces`` condition, as LangGraph's stores read them.

``status`` and ``kind`` choose what recall looks at; every other field of a filter is compared
with the item's value as LangGraph's own stores compare it (its in-memory store's semantics,
which mirror PostgreSQL's JSONB): equality, nested mappings, and the operators ``$eq``, ``$ne``,
``$gt``, ``$gte``, ``$lt``, ``$lte``. Anything else is refused, never ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stategraph.errors import InvalidInputError

__all__ = ["OPERATORS", "STATUSES", "Filter", "namespace_matches"]

STATUSES = ("holds", "rests_on_doubt", "needs_confirmation", "undefined", "invalidated")
"""The ``status`` a returned value carries (:class:`stategraph.recall.Recalled`)."""

OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
"""The comparison operators a filter may use."""


def invalid(where: str, message: str) -> InvalidInputError:
    """The error for a bad argument of the LangGraph store."""
    return InvalidInputError("langgraph store", [(where, message)])


class Filter:
    """A search's ``filter``: ``status`` and ``kind`` choose what recall looks at; every
    other field is compared with the item's value, as LangGraph's own stores do (equality,
    nested mappings, and the operators ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``,
    ``$lte``)."""

    def __init__(self, spec: Mapping[str, Any] | None) -> None:
        self.spec = dict(spec or {})
        for key, cond in self.spec.items():
            if key.startswith("$"):
                raise invalid(
                    f"filter.{key}",
                    "a filter names value fields; operators such as $or or $and are not "
                    "supported (search twice, or filter the items yourself)",
                )
            _check_operators(cond, f"filter.{key}")
        statuses = set(STATUSES)
        if "status" in self.spec:
            _check_status(self.spec["status"])
            statuses = {s for s in STATUSES if _compare(s, self.spec["status"])}
            unknown = _named(self.spec["status"]) - set(STATUSES)
            if unknown:
                raise invalid("filter.status", f"{sorted(unknown)[0]!r}: one of {STATUSES}")
        self.invalidated = "invalidated" in statuses and "status" in self.spec
        self.doubtful = bool(statuses & {"rests_on_doubt", "needs_confirmation", "undefined"})
        self.kinds: list[str] | None = None
        kind = self.spec.get("kind")
        if isinstance(kind, str):
            self.kinds = [kind]
        elif isinstance(kind, Mapping) and set(kind) == {"$eq"} and isinstance(kind["$eq"], str):
            self.kinds = [kind["$eq"]]

    def match(self, value: Mapping[str, Any]) -> bool:
        return all(_compare(value.get(k), cond) for k, cond in self.spec.items())


def _check_status(cond: Any) -> None:
    """A ``status`` filter is a status, or ``{"$eq": status}`` / ``{"$ne": status}``."""
    ok = isinstance(cond, str) or (
        isinstance(cond, Mapping)
        and bool(cond)
        and set(cond) <= {"$eq", "$ne"}
        and all(isinstance(v, str) for v in cond.values())
    )
    if not ok:
        raise invalid(
            "filter.status",
            f'a status ({", ".join(STATUSES)}), or {{"$eq": ...}} or {{"$ne": ...}} of one; '
            f"not {cond!r:.60}: search once per status for several",
        )


def _named(cond: Any) -> set[str]:
    if isinstance(cond, str):
        return {cond}
    if isinstance(cond, Mapping):
        return {v for v in cond.values() if isinstance(v, str)}
    return set()


def _check_operators(cond: Any, where: str) -> None:
    if isinstance(cond, Mapping):
        for k, v in cond.items():
            if not isinstance(k, str):
                raise invalid(where, "filter fields are strings")
            if k.startswith("$") and k not in OPERATORS:
                supported = ", ".join(OPERATORS)
                raise invalid(f"{where}.{k}", f"unsupported operator; supported: {supported}")
            _check_operators(v, f"{where}.{k}")


def _compare(value: Any, cond: Any) -> bool:
    """LangGraph's filter semantics (its in-memory store's, which mirror PostgreSQL's JSONB)."""
    if isinstance(cond, Mapping):
        if any(k.startswith("$") for k in cond):
            return all(_operator(value, op, arg) for op, arg in cond.items())
        if not isinstance(value, Mapping):
            return False
        return all(_compare(value.get(k), v) for k, v in cond.items())
    if isinstance(cond, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(cond)
            and all(_compare(v, c) for v, c in zip(value, cond, strict=True))
        )
    return bool(value == cond)


def _operator(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return bool(value == arg)
    if op == "$ne":
        return bool(value != arg)
    left, right = _number(value), _number(arg)
    if left is None or right is None:
        return False  # a field that is no number is not greater or smaller than one
    if op == "$gt":
        return left > right
    if op == "$gte":
        return left >= right
    if op == "$lt":
        return left < right
    return left <= right


def _number(value: Any) -> int | float | None:
    """A number to compare, or None. Numbers are compared as they are (Python compares an int
    with a float exactly: ``10**400 > 1.5``, where ``float(10**400)`` overflowed), anything
    else as ``float`` reads it (``"2.5"``)."""
    if isinstance(value, int | float):
        return value
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def namespace_matches(match_type: str, path: Sequence[str], namespace: tuple[str, ...]) -> bool:
    """Whether a namespace matches a ``list_namespaces`` condition (``*`` matches any label)."""
    path = tuple(path)
    if len(namespace) < len(path):
        return False
    if match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise invalid("match_type", f"{match_type!r}: 'prefix' or 'suffix'")
    return all(p == "*" or n == p for n, p in pairs)
