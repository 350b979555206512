"""The pipelines' cue ruler: token patterns spelt out as phrases find the same spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import spacy

from stategraph.bench.perf.textgen import generate
from stategraph.grounding.data import read_jsonl
from stategraph.grounding.pipeline import CUES_KEY, as_phrases, get_pipeline

_GOLDEN = Path(__file__).parent / "golden" / "en.jsonl"


def _make_doc() -> Any:
    return spacy.blank("en").make_doc


def _phrases(pattern: dict[str, Any]) -> list[Any]:
    return [p["pattern"] for p in as_phrases([pattern], _make_doc())]


def test_word_lists_become_every_choice_of_words() -> None:
    pattern = {
        "label": "X",
        "id": "x",
        "pattern": [{"LOWER": {"IN": ["call", "calls"]}}, {"LOWER": "off"}],
    }
    out = as_phrases([pattern], _make_doc())
    assert [p["pattern"] for p in out] == ["call off", "calls off"]
    assert all(p["label"] == "X" and p["id"] == "x" for p in out)


def test_an_optional_token_gives_the_phrases_with_and_without_it() -> None:
    pattern = {
        "label": "C",
        "pattern": [{"LOWER": "check"}, {"ORTH": "-", "OP": "?"}, {"LOWER": "in"}],
    }
    assert _phrases(pattern) == ["check - in", "check in"]


@pytest.mark.parametrize(
    "token",
    [
        {"IS_SENT_START": True, "LOWER": {"IN": ["send"]}},  # tests more than the word
        {"ORTH": "Re"},  # ORTH of a cased word is not its LOWER
        {"LOWER": "home", "OP": "+"},  # repeats
        {"LOWER": {"REGEX": "^x"}},
        {"LOWER": "re-upload"},  # tokenizes into three tokens, not one
    ],
)
def test_patterns_that_test_more_than_words_stay_token_patterns(token: dict[str, Any]) -> None:
    pattern = {"label": "X", "pattern": [token]}
    assert _phrases(pattern) == [[token]]


def _texts() -> list[str]:
    golden = [json.loads(line)["text"] for line in _GOLDEN.read_text("utf-8").splitlines()]
    workload = generate(4_000, seed=3)
    generated = [str(m.state()["text"]) for m in workload.memories(0, 4_000) if m.lang == "en"]
    return golden + generated


def test_the_cue_ruler_finds_what_the_token_patterns_find() -> None:
    reference = spacy.blank("en")
    ruler: Any = reference.add_pipe(
        "span_ruler", config={"spans_key": CUES_KEY, "phrase_matcher_attr": "LOWER"}
    )
    ruler.add_patterns(read_jsonl("en/cues.jsonl"))
    shipped = get_pipeline("en")
    texts = _texts()
    assert len(texts) > 2_000
    for text in texts:
        want, got = reference(text), shipped(text)
        assert _spans(got) == _spans(want), text


def _spans(doc: Any) -> list[tuple[int, int, str, str]]:
    return [(s.start, s.end, s.label_, s.id_) for s in doc.spans[CUES_KEY]]
