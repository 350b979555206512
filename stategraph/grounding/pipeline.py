"""The spaCy pipelines: a blank language, a segmenter, and rule components fed by JSONL data.

Each pipeline is ``spacy.blank(lang)`` (zh with the jieba segmenter) plus three components:

- ``sg_entities``: a SpanRuler over the lexicon (``grounding/lexicon/*.jsonl``); each span's
  ``id_`` is the constant the words normalise to. Overlaps resolve to the longest span.
- ``sg_cues``: a SpanRuler over ``grounding/<lang>/cues.jsonl``: frame triggers, argument
  markers (FROM, TO), negation, hedges, clause breaks. Cues may overlap (搬到 is both a move
  trigger and a TO marker). Token patterns that only list words are matched as phrases
  (:func:`as_phrases`).
- ``stategraph_values``: dates and amounts from ``grounding/<lang>/values.jsonl`` regexes.

Building a pipeline costs about a second (jieba's dictionary), so pipelines are cached per
language for the life of the process.
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections.abc import Callable, Iterator
from typing import Any

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
    "as_phrases",
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
        import jieba  # only a Chinese text needs it: an English one never loads it

        jieba.setLogLevel(logging.WARNING)  # its import sets DEBUG: the dictionary's chatter
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


def _words(token: dict[str, Any]) -> list[str | None] | None:
    """The words one token pattern matches (None in the list: it may be left out), or None
    when it tests anything but the word itself."""
    if not set(token) <= {"LOWER", "ORTH", "OP"} or token.get("OP", "?") != "?":
        return None
    if "LOWER" in token and "ORTH" in token:
        return None
    if "ORTH" in token:
        value = token["ORTH"]
        # ORTH and LOWER agree only on a word without letter case ("-")
        words = [value] if isinstance(value, str) and value.lower() == value.upper() else None
    elif isinstance(token["LOWER"], str):
        words = [token["LOWER"]]
    elif isinstance(token["LOWER"], dict) and set(token["LOWER"]) == {"IN"}:
        words = list(token["LOWER"]["IN"])
    else:
        words = None
    if words is None:
        return None
    return [*words, None] if "OP" in token else list(words)


def as_phrases(
    patterns: list[dict[str, Any]], make_doc: Callable[[str], Doc]
) -> list[dict[str, Any]]:
    """The same patterns, with each token pattern that only lists words spelt out as phrases.

    spaCy's Matcher tests every token predicate of every pattern on every token, which made
    the English cue ruler (80 patterns of ``{"LOWER": {"IN": [...]}}``) two thirds of the
    English pipeline's time; a PhraseMatcher on ``LOWER`` looks each token up once. A token
    pattern becomes the phrases of every choice of its words (both with and without an
    optional ``"OP": "?"`` token, as the Matcher, not greedy, reports both). It is left as a
    token pattern when it tests more than the word (``IS_SENT_START``, another operator) or
    when a phrase would not tokenize back into exactly its words, so the spans the ruler
    finds are the same either way (``tests/grounding/test_pipeline.py`` holds it to that).
    """
    out: list[dict[str, Any]] = []
    for pattern in patterns:
        tokens = pattern["pattern"]
        choices = None if isinstance(tokens, str) else [_words(t) for t in tokens]
        phrases: list[str] = []
        if choices is not None and all(c is not None for c in choices):
            for combo in itertools.product(*(c for c in choices if c is not None)):
                words = [w for w in combo if w is not None]
                if not words or [t.lower_ for t in make_doc(" ".join(words))] != words:
                    phrases = []
                    break
                phrases.append(" ".join(words))
        if not phrases:
            out.append(pattern)
            continue
        rest = {k: v for k, v in pattern.items() if k != "pattern"}
        out.extend({**rest, "pattern": p} for p in dict.fromkeys(phrases))
    return out


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
        # Made with the char segmenter, then given ours: asked for "jieba", spaCy loads and
        # warms jieba's global dictionary, a second load of half a second that ours replaces.
        nlp = spacy.blank("zh")
        tokenizer: Any = nlp.tokenizer  # spacy.lang.zh.ChineseTokenizer
        tokenizer.jieba_seg = _JiebaSegmenter(_zh_words(entities, cues))
        tokenizer.segmenter = "jieba"
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
    cue_ruler.add_patterns(as_phrases(cues, nlp.make_doc))
    nlp.add_pipe("stategraph_values")
    return nlp


@functools.cache
def get_pipeline(lang: Lang) -> Language:
    """The cached pipeline for one language; built on first use."""
    return build_pipeline(lang)
