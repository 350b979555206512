"""A store whose log holds every kind of entry, and a tamperer's view of its rows.

The tamperer works on the file or the database with plain SQL and ``zlib`` (not through
stategraph's own decoding), as someone editing a store by hand would (:class:`backends.Place`).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from backends import Place

from stategraph import Memory
from stategraph.judge import JudgeAnswer, JudgeCall, Question, question_key

COLUMNS = ("seq", "at", "change", "report", "config", "prev_hash", "hash", "calls")
HUB_BELIEFS = 300

BULK, TEXT_REPORT, WITH_CALLS, BIG_REPORT, LAST = 1, 3, 5, 6, 7
"""Entries of :func:`logged_store`: a bulk load's summary, a short report (stored as text), a
revision with judge calls (compressed), a hub's report (compressed), and the last entry."""


class Depends:
    """A judge that answers every question "the premise was needed"."""

    name = "test.depends.v1"
    model = "script"

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        return [
            JudgeCall(
                key=question_key(q, self.model),
                question=q,
                judge=self.name,
                model=self.model,
                answer=JudgeAnswer(still_holds=False, reason="it rested on that"),
                attempts=1,
            )
            for q in questions
        ]


def logged_store(url: str) -> None:
    """Seven entries: see :data:`BULK` and the others."""
    with Memory(url, judge=Depends()) as mem:
        states = [{"id": "hub", "kind": "fact", "text": "the hub"}]
        states += [{"id": f"b{i}", "kind": "belief"} for i in range(HUB_BELIEFS)]
        mem.bulk_load(states, [{"head": f"b{i}", "premises": ["hub"]} for i in range(HUB_BELIEFS)])
        mem.fact("f1", "The user flies to Tokyo on May 10")
        mem.fact("f2", "The user likes sushi")
        dinner = "Book a sushi dinner in Tokyo, near the hotel, for two, " * 10  # a long call
        mem.plan("p1", dinner, context=["f1", "f2"])
        assert mem.retract("f1").invalidated == ["p1"]  # asked the judge
        mem.retract("hub")
        mem.fact("m9", "the last one")


def decode(value: Any) -> str:
    """A stored column as text: TEXT as it is, a BLOB as its format byte 1 and zlib."""
    if isinstance(value, bytes):
        assert value[0] == 1, value[:1]
        return zlib.decompress(value[1:]).decode("utf-8")
    assert isinstance(value, str)
    return value


def encode_like(original: Any, text: str) -> Any:
    """``text`` stored the way ``original`` was (a careful tamperer keeps the format)."""
    if isinstance(original, bytes):
        return bytes((1,)) + zlib.compress(text.encode("utf-8"))
    return text


def row(place: Place, seq: int) -> dict[str, Any]:
    return place.log_row(seq)


def rows(place: Place) -> list[dict[str, Any]]:
    return place.log_rows()


def update(place: Place, entry: int, /, **columns: Any) -> None:
    """Set columns of one log row, with plain SQL."""
    place.update_log(entry, **columns)
