"""The strict parse of a judge's reply: one JSON object, bare or in one ```json fence."""

from __future__ import annotations

import pytest

from stategraph.errors import MalformedAnswerError, StategraphError
from stategraph.judge import JudgeAnswer, parse_answer

GOOD = '{"still_holds": true, "support": ["f2"], "reason": "stays"}'
ANSWER = JudgeAnswer(still_holds=True, support=("f2",), reason="stays")


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        f"  {GOOD}\n",
        f"```json\n{GOOD}\n```",
        f"```JSON\n{GOOD}```",
        f"```\n{GOOD}\n```",
        f"\n```json\n{GOOD}\n```\n",
    ],
    ids=["bare", "padded", "fence", "fence-upper-no-newline", "fence-untagged", "fence-padded"],
)
def test_accepted(text):
    assert parse_answer(text) == ANSWER


def test_defaults_of_the_model_apply():
    assert parse_answer('{"still_holds": false}') == JudgeAnswer(still_holds=False)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "empty reply"),
        ("   ", "empty reply"),
        ("still holds", "not a JSON object"),
        (f"Here you go: {GOOD}", "not a JSON object"),
        (f"```json\n{GOOD}\n```\nHope this helps", "not a JSON object"),
        (f"```python\n{GOOD}\n```", "not a JSON object"),
        (f"{GOOD}\n{GOOD}", "invalid JSON: Extra data"),
        ("[true]", "not a JSON object"),
        ('{"still_holds": true, "support": ["f2"]', "invalid JSON"),
        ('{"still_holds": true, "still_holds": false}', "invalid JSON: duplicate keys still_holds"),
        ('{"still_holds": "yes"}', "schema: still_holds"),
        ('{"still_holds": 1}', "schema: still_holds"),
        ('{"still_holds": true, "support": "f2"}', "schema: support"),
        ('{"still_holds": true, "support": [2]}', "schema: support.0"),
        ('{"still_holds": true, "answer": "x"}', "schema: answer"),
        ('{"support": []}', "schema: still_holds"),
        ('{"still_holds": true, "reason": "' + "x" * 2001 + '"}', "schema: reason"),
    ],
)
def test_rejected(text, problem):
    with pytest.raises(MalformedAnswerError) as caught:
        parse_answer(text)
    assert caught.value.problem.startswith(problem)
    assert isinstance(caught.value, StategraphError) and isinstance(caught.value, ValueError)
    assert "expected one JSON object" in str(caught.value)
