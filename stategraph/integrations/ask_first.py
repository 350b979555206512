"""Asking the user first inside a LangGraph graph: ``interrupt()``, then ``Command(resume=...)``.

A memory in doubt comes back from :class:`~stategraph.integrations.langgraph.StategraphStore`'s
``search`` with ``ask_first`` in its value: the question to put to the user before relying on
it. :func:`ask_user_first`, called in a node with what a search found, puts every such
question to the user in one ``interrupt()``: the graph stops, and the caller shows the
questions (the interrupt's value) and resumes it with the user's answers::

    result = app.invoke({"said": "健身卡"}, config)
    for question in result["__interrupt__"][0].value["ask_first"]:
        print(question["ask_first"])
    app.invoke(Command(resume="still holds"), config)

Each answer is ``"still holds"``, ``"no longer holds"`` or ``"don't know"``, or a mapping
``{"answer": ..., "note": ...}``; the resume value is one answer (one question), a list of
answers in the questions' order, or a mapping from each question's ``id`` to its answer.
A memory resting on doubt (``rests_on_doubt``) asks about the memory in doubt it rests on
(``ask_about`` in its value): the question's ``id``, ``namespace`` and ``key`` are that
memory's, and several resting on one are asked once.
"still holds" is recorded as a confirmation and "no longer holds" as a rejection, through the
store's :meth:`~stategraph.integrations.langgraph.StategraphStore.confirm` and
:meth:`~stategraph.integrations.langgraph.StategraphStore.reject` (the review path: logged,
cascading, replayed by ``audit verify``); "don't know", or no answer, leaves the memory in
doubt.

LangGraph runs an interrupted node again from its start when it resumes, and returns the
resume value from the same ``interrupt()`` call. So the questions are asked in one interrupt,
and the answers are recorded only after it returns: the node's search before it finds the same
memories in doubt on both runs, and nothing is recorded twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from stategraph.errors import InvalidInputError, NotPendingError
from stategraph.integrations.langgraph import StategraphStore

try:
    from langgraph.store.base import Item
    from langgraph.types import interrupt
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'stategraph.integrations.ask_first needs LangGraph: pip install "stategraph[langgraph]"'
    ) from exc

__all__ = ["ANSWERS", "ask_user_first"]

ANSWERS = ("still holds", "no longer holds", "don't know")
"""What the user may answer to a question."""


def _settles(item: Item) -> tuple[tuple[str, ...], str] | None:
    """The namespace and key whose answer settles an item's question: the item's own, or for
    one resting on doubt, the memory in doubt it rests on (``ask_about``); None when that
    one is not this store's to settle (outside the scope, or written some other way)."""
    if "ask_about" not in item.value:
        return tuple(item.namespace), item.key
    about = item.value["ask_about"]
    if isinstance(about, Mapping) and "key" in about:
        return tuple(about["namespace"]), str(about["key"])
    return None


def _question(item: Item, settles: tuple[tuple[str, ...], str]) -> dict[str, Any]:
    namespace, key = settles
    return {
        "id": "/".join((*namespace, key)),
        "namespace": list(namespace),
        "key": key,
        "text": item.value.get("text"),
        "ask_first": item.value["ask_first"],
    }


def _one(value: object, id: str) -> tuple[str, str]:
    """An answer and its note, from one resumed answer."""
    note = ""
    if isinstance(value, Mapping):
        note = str(value.get("note") or "")
        value = value.get("answer")
    if value is None:
        return ANSWERS[2], note
    if value not in ANSWERS:
        raise InvalidInputError(
            "ask_user_first", [(id, f"answer {value!r}: one of {', '.join(ANSWERS)}")]
        )
    return str(value), note


def _answers(resumed: object, ids: Sequence[str]) -> list[tuple[str, str]]:
    """Each question's answer and note, from the value the graph was resumed with."""
    if isinstance(resumed, Mapping) and set(resumed) <= set(ids) and resumed:
        return [_one(resumed.get(id), id) for id in ids]
    if isinstance(resumed, (list, tuple)):
        if len(resumed) != len(ids):
            raise InvalidInputError(
                "ask_user_first",
                [("resume", f"{len(resumed)} answers for {len(ids)} questions")],
            )
        return [_one(value, id) for value, id in zip(resumed, ids, strict=True)]
    if len(ids) == 1:
        return [_one(resumed, ids[0])]
    raise InvalidInputError(
        "ask_user_first",
        [("resume", "several questions: resume with a list of answers or {id: answer}")],
    )


def ask_user_first(
    store: StategraphStore, items: Iterable[Item], *, by: str = "user"
) -> list[Item]:
    """Inside a graph node: ask the user about each memory in doubt among ``items`` (one
    ``interrupt()``), and record each answer through the store.

    Args:
        store: the store the items were found in.
        items: what a ``search`` (or ``get``) returned.
        by: who answers, as the review records it.

    Returns:
        ``items`` read again after the answers, in the same order (a confirmed memory holds;
        a rejected one is retracted, and left out); ``items`` as they were when none is in
        doubt.

    Raises:
        InvalidInputError: a resume value that is not answers to the questions asked.
    """
    found = list(items)
    doubtful: dict[tuple[tuple[str, ...], str], Item] = {}  # one question per memory settled
    for i in found:
        if isinstance(i.value, Mapping) and i.value.get("ask_first"):
            settles = _settles(i)
            if settles is not None:
                doubtful.setdefault(settles, i)
    if not doubtful:
        return found
    questions = [_question(i, settles) for settles, i in doubtful.items()]
    resumed = interrupt({"ask_first": questions, "answers": list(ANSWERS)})
    answers = _answers(resumed, [q["id"] for q in questions])
    for (namespace, key), (answer, note) in zip(doubtful, answers, strict=True):
        if answer == ANSWERS[2]:
            continue
        settle = store.confirm if answer == ANSWERS[0] else store.reject
        try:
            settle(namespace, key, by=by, note=note)
        except NotPendingError:
            continue  # settled meanwhile: reading it again says how
    again = [store.get(i.namespace, i.key) for i in found]
    return [item for item in again if item is not None]
