"""Recall's optional embedding rerank: the lexical best
:data:`~stategraph.recall.RERANK_DEPTH`, reordered by
how close each memory's embedding is to the query's.

Lexical ranking (:mod:`stategraph.text.fulltext`) finds the candidates and the statuses are
filtered first, so a rerank only ever reorders memories recall would have returned at some
depth; it never brings in one that does not hold. Each candidate's vector comes from the
store's cache (:mod:`stategraph.store.vectors`), keyed by model, memory id and text hash, so a
memory is embedded once per model; the query is embedded on every recall. Order is by cosine
similarity, then by lexical rank.

If the embedder fails (:class:`~stategraph.errors.EmbeddingError`: a timeout, an HTTP error, a
malformed reply), the lexical order stands and the failure is returned as a warning for each
result's reason. A cache write that cannot be made (the store busy or refusing writes) is
skipped: the vectors still serve this recall.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from stategraph.errors import EmbeddingError, StategraphError
from stategraph.store import vectors

if TYPE_CHECKING:
    from stategraph.embedder import Embedder

__all__ = ["Reranked", "rerank"]

_log = logging.getLogger(__name__)

Reranked = tuple[list[tuple[str, float]], str | None]
"""(ids with their cosine similarity, best first; or the lexical hits as they were) and a
warning (None when the rerank happened)."""


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def rerank(
    store: object,
    embedder: Embedder,
    query: str,
    hits: list[tuple[str, float]],
    texts: dict[str, str],
) -> Reranked:
    """Reorder lexical ``hits`` (best first) by embedding similarity to ``query``.

    Args:
        store: the store whose cache holds the vectors.
        embedder: the embedder.
        query: the query as asked.
        hits: (id, lexical score), best first.
        texts: each hit's text.

    Returns:
        The hits reordered with their cosine similarity as score, and None; or the hits as
        they were and a warning saying why the rerank did not happen.
    """
    if not hits:
        return hits, None
    model = embedder.model
    keys = [(i, vectors.text_hash(texts[i])) for i, _ in hits]
    try:
        have = vectors.cached(store, model, keys)
    except StategraphError as exc:  # an unreadable cache costs an embedding, not the recall
        _log.warning("recall: embedding cache unreadable: %s", exc)
        have = {}
    try:
        missing = [key for key in dict.fromkeys(keys) if key not in have]
        got = embedder.embed([query, *(texts[i] for i, _ in missing)])
        if len(got) != len(missing) + 1:
            raise EmbeddingError(model, f"malformed: {len(got)} vectors for {len(missing) + 1}")
        fresh = dict(zip(missing, got[1:], strict=True))
        have.update(fresh)
        dims = {len(v) for v in have.values()} | {len(got[0])}
        if len(dims) > 1:
            raise EmbeddingError(model, "malformed: cached and new vectors differ in dimension")
    except EmbeddingError as exc:
        _log.warning("recall: embedding rerank failed, lexical order kept: %s", exc)
        return hits, f"embedding rerank failed ({exc.reason}): lexical order"
    except Exception as exc:  # an embedder of the caller's own: it must not lose the recall
        _log.warning("recall: embedding rerank failed, lexical order kept: %r", exc)
        return hits, f"embedding rerank failed (unexpected: {type(exc).__name__}): lexical order"
    try:
        vectors.remember(store, model, [(i, h, fresh[(i, h)]) for i, h in fresh])
    except StategraphError as exc:
        _log.warning("recall: embeddings not cached: %s", exc)
    q = got[0]
    scored = [
        (i, _cosine(q, have[key]), rank)
        for rank, ((i, _), key) in enumerate(zip(hits, keys, strict=True))
    ]
    scored.sort(key=lambda row: (-row[1], row[2]))
    return [(i, s) for i, s, _ in scored], None
