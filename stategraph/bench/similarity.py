"""The similarity baseline: invalidate what reads like the changed state.

Each memory is a TF-IDF vector of character 2- and 3-grams (so Chinese, which has no spaces,
works as well as English); IDF is computed over the case's own texts, so a case is scored on
its inputs alone. A memory's score is its highest cosine to the text of any changed state
that existed before the change (retracted, superseded) or that the change asserts; above the
threshold it is considered lost.

The threshold is tuned on a fixed development split: the cases whose id hashes into bucket 0 of
:data:`DEV_BUCKETS` (:func:`is_dev`). Reports score every system on the other cases only, so the
tuned figure is never measured on the cases it was tuned on.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from stategraph.bench.cases import Case
from stategraph.bench.systems import Prediction, grade

__all__ = [
    "DEFAULT_THRESHOLD",
    "DEV_BUCKETS",
    "SimilaritySystem",
    "cosine",
    "is_dev",
    "ngrams",
    "scores",
    "tfidf",
    "tune_threshold",
]

DEV_BUCKETS = 5
"""One case in this many (by id hash) is a development case."""

DEFAULT_THRESHOLD = 0.01
"""Used when a run has no development case to tune on: the value tuned on the shipped suite's
development split (a test keeps the two in step). So low a value means any shared n-gram counts."""

_SPACE = re.compile(r"\s+")


def is_dev(case_id: str) -> bool:
    """True when the case belongs to the development split (stable across runs and machines)."""
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % DEV_BUCKETS == 0


def ngrams(text: str, sizes: Sequence[int] = (2, 3)) -> Counter[str]:
    """Character n-gram counts of the lower-cased, space-normalised text."""
    t = _SPACE.sub(" ", text.lower()).strip()
    grams: Counter[str] = Counter()
    for n in sizes:
        grams.update(t[i : i + n] for i in range(len(t) - n + 1))
    return grams


def tfidf(texts: Sequence[str]) -> list[dict[str, float]]:
    """TF-IDF vectors (smoothed IDF, raw term counts), one per text."""
    counts = [ngrams(t) for t in texts]
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    n = len(texts)
    idf = {g: math.log((1 + n) / (1 + d)) + 1.0 for g, d in df.items()}
    return [{g: k * idf[g] for g, k in c.items()} for c in counts]


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    """Cosine similarity of two sparse vectors (0 when either is empty)."""
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(g, 0.0) for g, v in a.items())
    na = math.sqrt(sum(v * v for v in a.values()))
    nb = math.sqrt(sum(v * v for v in b.values()))
    return dot / (na * nb) if na and nb else 0.0


def scores(case: Case) -> dict[str, float]:
    """Each unchanged memory's highest similarity to a changed state's text."""
    changed = case.change.changed_ids()
    old = [m for m in case.memories if m.id in case.change.removed_ids()]
    queries = [m.text for m in old] + [m.text for m in case.change.assert_]
    others = [m for m in case.memories if m.id not in changed]
    vectors = tfidf([*queries, *(m.text for m in others)])
    qv, mv = vectors[: len(queries)], vectors[len(queries) :]
    return {
        m.id: max((cosine(v, q) for q in qv), default=0.0) for m, v in zip(others, mv, strict=True)
    }


def tune_threshold(cases: Iterable[Case]) -> float:
    """The threshold (step 0.01) with the best micro Impact-F1 on the given cases."""
    table = [(scores(c), set(c.expect.invalidated)) for c in cases]
    best, best_f1 = DEFAULT_THRESHOLD, -1.0
    for step in range(1, 100):
        t = step / 100
        tp = fp = fn = 0
        for sc, gold in table:
            pred = {s for s, v in sc.items() if v >= t}
            tp += len(pred & gold)
            fp += len(pred - gold)
            fn += len(gold - pred)
        f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        if f1 > best_f1:
            best, best_f1 = t, f1
    return best


class SimilaritySystem:
    """Invalidate memories whose text is close to a changed state's text.

    Args:
        threshold: the cosine at or above which a memory is considered lost.
    """

    name = "similarity"

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold

    def fit(self, dev_cases: Sequence[Case]) -> None:
        """Tune the threshold on development cases (no-op when there are none)."""
        if dev_cases:
            self.threshold = tune_threshold(dev_cases)

    def run(self, case: Case) -> Prediction:
        """Invalidate every memory at or above the threshold."""
        return grade(case, (s for s, v in scores(case).items() if v >= self.threshold))
