"""What the generated examples reach, so that a test run says how much it exercised.

A property that holds on examples whose changes move nothing proves little: an empty
report is trivially local, deterministic and equal to a rebuild. Every example the real
engine replays (:class:`~stategraph.testing.engine.StategraphEngine`) notes which of the
cases the properties are about its changes reached, as a Hypothesis ``event`` (shown by
``pytest --hypothesis-show-statistics``) and in a process-wide tally that stategraph's own
suite prints at the end of the session (``tests/conftest.py``). Other generators (the
candidate and linking properties) note theirs under a family of their own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

__all__ = ["FAMILIES", "TALLY", "note", "summary"]

_REVISION = (
    "a non-empty report",
    "an invalidated state",
    "a needs_confirmation entry",
    "an undefined state",
    "an action's consequence",
    "a candidate premise",
)

FAMILIES: dict[str, tuple[str, ...]] = {
    "scenarios": _REVISION,
    "candidates": _REVISION,
    "linking": ("a rule link", "a rule link with unless"),
    "held gates": ("a cone narrowed past a held gate", "a change moving nothing it reached"),
    "dense linking": (
        "an atom node with more than 16 justifications",
        "a firing blocked",
        "a memory restored",
        "a memory whose own atoms derive each other",
    ),
}
"""Each family of generated examples and what its examples may reach, in summary order."""

TALLY: Counter[tuple[str, str]] = Counter()
"""Per family: examples replayed (``examples``) and, per feature, how many reached it."""


def note(reached: Iterable[str], family: str = "scenarios") -> None:
    """Count one example of ``family`` and the features (:data:`FAMILIES`) it reached.

    Raises:
        ValueError: an unknown family or feature.
    """
    features = set(reached)
    known = FAMILIES.get(family)
    if known is None or features - set(known):
        raise ValueError(f"unknown family or features: {family}, {sorted(features)}")
    TALLY[family, "examples"] += 1
    TALLY.update((family, f) for f in features)
    try:
        from hypothesis import event

        for f in sorted(features):
            event(f"reached {f}")
    except Exception:  # outside a Hypothesis test (or without Hypothesis): the tally is enough
        pass


def summary() -> list[str]:
    """One line per family that ran: examples, and the share that reached each feature."""
    lines = []
    for family, features in FAMILIES.items():
        n = TALLY[family, "examples"]
        if n:
            shares = ", ".join(f"{f} {100 * TALLY[family, f] / n:.0f}%" for f in features)
            lines.append(f"{family}: {n} examples; their changes reached {shares}")
    return lines
