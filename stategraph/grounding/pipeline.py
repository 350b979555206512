"""The spaCy pipelines: a blank language, a segmenter, and rule components fed by JSONL data.

Each pipeline is ``spacy.blank(lang)`` (zh with the jieba segmenter) plus three components:

- ``sg_entities``: a SpanRuler over the lexicon (``grounding/lexicon/*.jsonl``); each span's
  ``id_`` is the constant the words normalise to. Overlaps resolve to the longest span.
- ``sg_cues``: a SpanRuler over ``grounding/<lang>/cues.jsonl``: frame triggers, argument
  markers (FROM, TO), negation, hedges, clause breaks. Cues may overlap (搬到 is both a move
  trigger and a TO marker).
- ``stategraph_values``: dates and amounts from ``grounding/<lang>/values.jsonl`` regexes.

Building a pipeline costs about a second (jieba's dictionary), so pipelines are cached per
language for the life of the process.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from typing import Any

import jieba
import spacy
from spacy.language import Language
from spacy.tokens import Doc

from stategraph.grounding.data import read_jsonl
from stategraph.grounding.language import Lang
from stategraph.grounding.lexicon import entity_patterns
from stategraph.grounding.values import find_values

__all__ = [
    "CUES_KEY",
    "ENTITIES_KEY",
    "REFERENCE_YEAR_KEY",
    "VALUES_KEY",
    "build_pipeline",
    "get_pipeline",
]

ENTITIES_KEY = "sg_entities"
CUES_KEY = "sg_cues"
VALUES_KEY = "sg_values"
REFERENCE_YEAR_KEY = "stategraph.reference_year"

# Added to jieba's dictionary with this frequency so lexicon and cue words always win over
# jieba's own longer words (otherwise 搬家前退宽带 segments as ... 前退 ... and 退 is lost).
_WORD_FREQ = 10**7


class _JiebaSegmenter:
    """A private jieba tokenizer with our vocabulary, in place of spaCy's module-level one.

    spaCy's zh tokenizer calls ``jieba_seg.cut(text, cut_all=False)`` on the *global* jieba
    module. Adding our words there would change every other jieba user in the process, so we
    hand spaCy this object instead: its own ``jieba.Tokenizer`` with the lexicon and cue words
    added, and the HMM new-word guesser off so that segmentation depends only on the
    dictionary (deterministic, and it cannot glue a cue to its neighbour).
    """

    def __init__(self, words: set[str]) -> None:
        self._tokenizer = jieba.Tokenizer()
        for word in sorted(words):
            self._tokenizer.add_word(word, freq=_WORD_FREQ)

    def cut(self, text: str, cut_all: bool = False) -> Iterator[str]:
        """Segment text the way spaCy's zh tokenizer expects (``cut_all`` is ignored)."""
        return iter(self._tokenizer.cut(text, cut_all=False, HMM=False))


@Language.component(
    "stategraph_values",
    assigns=["doc.spans"],
)
def _values_component(doc: Doc) -> Doc:
    """Mark dates and amounts; the normalised value goes to ``span.id_`` (``""`` if unresolved)."""
    lang: Lang = "zh" if doc.lang_ == "zh" else "en"
    reference_year = doc.user_data.get(REFERENCE_YEAR_KEY)
    spans = []
    for match in find_values(doc.text, lang, reference_year):
        span = doc.char_span(match.start, match.end, label=match.label, alignment_mode="expand")
        if span is None:  # pragma: no cover - expand always aligns on a non-empty range
            continue
        span.id_ = "" if match.value is None else str(match.value)
        spans.append(span)
    doc.spans[VALUES_KEY] = spans
    return doc


def _cue_patterns(lang: Lang) -> list[dict[str, Any]]:
    return read_jsonl(f"{lang}/cues.jsonl")


def _zh_words(entities: list[dict[str, Any]], cues: list[dict[str, Any]]) -> set[str]:
    words = {p["pattern"] for p in entities + cues if isinstance(p["pattern"], str)}
    return {w for w in words if w.strip()}


def build_pipeline(lang: Lang) -> Language:
    """Build a fresh pipeline for one language (slow: prefer :func:`get_pipeline`).

    Args:
        lang: ``"en"`` or ``"zh"``.
    """
    entities = entity_patterns(lang)
    cues = _cue_patterns(lang)
    if lang == "zh":
        logging.getLogger("jieba").setLevel(logging.WARNING)
        nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "jieba"}}})
        tokenizer: Any = nlp.tokenizer  # spacy.lang.zh.ChineseTokenizer
        tokenizer.jieba_seg = _JiebaSegmenter(_zh_words(entities, cues))
    else:
        nlp = spacy.blank("en")
    entity_ruler: Any = nlp.add_pipe(
        "span_ruler",
        name=ENTITIES_KEY,
        config={
            "spans_key": ENTITIES_KEY,
            "phrase_matcher_attr": "LOWER",
            "spans_filter": {"@misc": "spacy.first_longest_spans_filter.v1"},
        },
    )
    entity_ruler.add_patterns(entities)
    cue_ruler: Any = nlp.add_pipe(
        "span_ruler",
        name=CUES_KEY,
        config={"spans_key": CUES_KEY, "phrase_matcher_attr": "LOWER"},
    )
    cue_ruler.add_patterns(cues)
    nlp.add_pipe("stategraph_values")
    return nlp


@functools.cache
def get_pipeline(lang: Lang) -> Language:
    """The cached pipeline for one language; built on first use."""
    return build_pipeline(lang)
