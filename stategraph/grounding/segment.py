"""jieba's search words of a run of Han characters: what the full-text index keeps of Chinese
text (:mod:`stategraph.text.fulltext`).

Here, beside the grounding pipelines, because the warm grounder (:mod:`stategraph.grounding.warm`)
answers with them too: loading jieba's dictionary is a second of a command's start-up.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["loaded", "search_words"]


@functools.cache
def _jieba() -> Any:
    import jieba

    jieba.setLogLevel(60)  # its dictionary-loading chatter goes to stderr otherwise
    return jieba.Tokenizer()


def loaded() -> bool:
    """True once this process has loaded jieba's dictionary."""
    return _jieba.cache_info().currsize > 0


def search_words(run: str) -> list[str]:
    """jieba's words of ``run`` for a search index (the run whole if it has none)."""
    words = [w for w in _jieba().cut_for_search(run, HMM=False) if w.strip()]
    return words or [run]
