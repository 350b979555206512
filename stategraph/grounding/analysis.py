"""A spaCy doc reduced to what frame assembly needs: mentions, cues, clauses, sentences.

Keeping frame assembly off spaCy's types makes it a plain function of plain data: easy to
test, and another pipeline (a trained model, a different segmenter) only has to produce an
:class:`Analysis` to reuse the frames.
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc, Span

from stategraph.grounding.pipeline import CUES_KEY, ENTITIES_KEY, VALUES_KEY

__all__ = ["Analysis", "Mention", "analyse_doc"]

# Punctuation that ends a sentence / a clause. Negation, hedges and most arguments are scoped
# to a clause: in 用户决定留在上海，取消搬迁计划 the 取消 negates the move, not the stay.
_SENTENCE_END = frozenset({".", "。", "!", "！", "?", "？", ";", "；", "\n"})
_QUESTION = frozenset({"?", "？"})
_CLAUSE_END = frozenset({",", "，", "—", "–", "(", ")", "（", "）"})
_CLAUSE_CUE = "CLAUSE_BREAK"


@dataclass(frozen=True, slots=True)
class Mention:
    """A labelled stretch of tokens: an entity, a value or a cue.

    Attributes:
        label: ``CITY``, ``DATE``, ``MOVE``, ``NEG``, ...
        value: the normalised value (constant, date string, amount digits); ``""`` for cues
            and for dates that could not be resolved.
        start: first token index.
        end: one past the last token index.
        start_char: character offset of the first character.
        end_char: one past the last character.
        text: the surface text.
    """

    label: str
    value: str
    start: int
    end: int
    start_char: int
    end_char: int
    text: str


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything frame assembly reads, in token coordinates.

    Attributes:
        entities: lexicon entities and values (dates, amounts), sorted by position.
        cues: triggers, markers, negation, hedge and clause-break cues, sorted by position.
        clauses: ``(start, end)`` token ranges of the clauses, in order, covering the doc.
        sentences: ``(start, end)`` token ranges of the sentences, in order.
        questions: the sentences that end in a question mark: they ask, and state nothing.
    """

    entities: tuple[Mention, ...]
    cues: tuple[Mention, ...]
    clauses: tuple[tuple[int, int], ...]
    sentences: tuple[tuple[int, int], ...]
    questions: tuple[tuple[int, int], ...] = ()

    def clause_of(self, token: int) -> tuple[int, int]:
        """The clause range containing a token."""
        return _containing(self.clauses, token)

    def sentence_of(self, token: int) -> tuple[int, int]:
        """The sentence range containing a token."""
        return _containing(self.sentences, token)


def _containing(ranges: tuple[tuple[int, int], ...], token: int) -> tuple[int, int]:
    for start, end in ranges:
        if start <= token < end:
            return start, end
    return ranges[-1] if ranges else (0, 0)


def _mention(span: Span) -> Mention:
    return Mention(
        label=span.label_,
        value=span.id_,
        start=span.start,
        end=span.end,
        start_char=span.start_char,
        end_char=span.end_char,
        text=span.text,
    )


def _ranges(length: int, breaks: set[int]) -> tuple[tuple[int, int], ...]:
    """Split ``range(length)`` after every index in ``breaks``."""
    out: list[tuple[int, int]] = []
    start = 0
    for i in sorted(breaks):
        if start <= i < length:
            out.append((start, i + 1))
            start = i + 1
    if start < length or not out:
        out.append((start, max(length, start)))
    return tuple(out)


def _position(m: Mention) -> tuple[int, int, str]:
    return (m.start, m.end, m.label)


def analyse_doc(doc: Doc) -> Analysis:
    """Reduce a doc processed by a grounding pipeline to an :class:`Analysis`."""
    entities = [_mention(s) for key in (ENTITIES_KEY, VALUES_KEY) for s in doc.spans[key]]
    values = [_mention(s) for s in doc.spans[VALUES_KEY]]
    # A word inside a date or dose is part of the value, not a cue: the month in "in May
    # 2027" is no hedge, and "October 12, 2026" is one value, not two clauses.
    cues = [_mention(s) for s in doc.spans[CUES_KEY]]
    cues = [c for c in cues if not any(v.start <= c.start and c.end <= v.end for v in values)]
    inside = {i for v in values for i in range(v.start, v.end - 1)}
    sentence_breaks = {t.i for t in doc if t.text.strip() in _SENTENCE_END or "\n" in t.text}
    clause_breaks = sentence_breaks | {t.i for t in doc if t.text in _CLAUSE_END}
    # A clause-break word starts a new clause: break just before it.
    clause_breaks |= {c.start - 1 for c in cues if c.label == _CLAUSE_CUE and c.start > 0}
    clause_breaks -= inside
    sentence_breaks -= inside
    sentences = _ranges(len(doc), sentence_breaks)
    return Analysis(
        entities=tuple(sorted(entities, key=_position)),
        cues=tuple(sorted(cues, key=_position)),
        clauses=_ranges(len(doc), clause_breaks),
        sentences=sentences,
        questions=tuple(
            (a, b) for a, b in sentences if b > a and doc[b - 1].text.strip() in _QUESTION
        ),
    )
