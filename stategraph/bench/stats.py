"""Counts that describe a suite: what the cases cover, computed from the cases themselves.

Used by the tests that hold the shipped suite to its required coverage, and by the issue
report; the figures are computed, never estimated by hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from stategraph.bench.cases import Case

__all__ = ["suite_stats"]


def suite_stats(cases: Iterable[Case]) -> dict[str, object]:
    """Coverage counts: totals, by track/lang/domain/max depth, and per feature."""
    cs = list(cases)
    tags: Counter[str] = Counter(t for c in cs for t in set(c.tags))
    max_depth = Counter(min(max(c.expect.depth.values(), default=0), 5) for c in cs)
    return {
        "cases": len(cs),
        "by_track": dict(sorted(Counter(c.track for c in cs).items())),
        "by_lang": dict(sorted(Counter(c.lang for c in cs).items())),
        "by_domain": dict(sorted(Counter(c.domain for c in cs).items())),
        "by_max_depth": dict(sorted(max_depth.items())),
        "depth_3_plus": sum(1 for c in cs if max(c.expect.depth.values(), default=0) >= 3),
        "with_kept": sum(1 for c in cs if c.expect.kept),
        "action_consequences": sum(1 for c in cs if c.expect.consequences),
        "restored": sum(1 for c in cs if c.expect.restored),
        "needs_confirmation": sum(1 for c in cs if c.expect.needs_confirmation),
        "tags": dict(sorted(tags.items())),
    }
