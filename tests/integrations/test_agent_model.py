"""The LangGraph agent's own model as the judge, and its user asked first through interrupt().

The judge is :class:`ChatModelJudge` over ``langchain_core``'s fake chat models (the same
``BaseChatModel`` interface ``init_chat_model`` returns); the ask-first step runs inside a real
compiled graph with a checkpointer, stopped by ``interrupt()`` and resumed with
``Command(resume=...)``, and records its answers through the store's review path.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph", reason="needs LangGraph: pip install 'stategraph[langgraph]'")

from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore
from langgraph.types import Command

from stategraph import Memory, audit
from stategraph.cli import demo
from stategraph.errors import InvalidInputError
from stategraph.integrations.ask_first import ANSWERS, ask_user_first
from stategraph.integrations.chat_model import NAME, ChatModelJudge
from stategraph.integrations.langgraph import StategraphStore
from stategraph.judge.settle import JudgeBudget
from stategraph.text.evidence import EvidenceProposer

from .test_langgraph import put_trip_and_visa

ZH = demo.SCENARIO["zh"]


def seed(mem: Memory) -> Memory:
    """The seed scenario in Chinese, m2 and m3 written without a basis."""
    mem.fact("m1", ZH["m1"])
    mem.belief("m2", ZH["m2"])
    mem.action("m3", ZH["m3"], status="pending")
    mem.fact("m4", ZH["m4"])
    return mem


def answers(*pairs: tuple[str, bool]) -> str:
    return json.dumps(
        {
            "answers": [
                {"head": h, "still_holds": holds, "support": ["m4"] if holds else [], "reason": "r"}
                for h, holds in pairs
            ]
        }
    )


def test_a_chat_model_judges_the_seed_in_one_request(tmp_path: Path) -> None:
    reply = AIMessage(
        content=answers(("m2", False), ("m3", False)),
        usage_metadata={"input_tokens": 900, "output_tokens": 60, "total_tokens": 960},
    )
    chat = GenericFakeChatModel(messages=iter([reply]))
    mem = seed(Memory(tmp_path / "m.db", judge=ChatModelJudge(chat, model="fake:honest")))
    report = mem.supersede("m1", {"id": "m1b", "kind": "fact", "text": ZH["m1b"]})
    assert report.invalidated == ["m2", "m3"] and report.consequences == {"m3": "cancel"}
    assert report.entry("m4") is None
    calls = mem.history()[-1].calls
    assert [(c.judge, c.model, c.question.head.id) for c in calls] == [
        (NAME, "fake:honest", "m2"),
        (NAME, "fake:honest", "m3"),
    ]
    costs = [(c.attempts, c.prompt_tokens, c.completion_tokens) for c in calls]
    assert costs == [(1, 900, 60), (0, 0, 0)]
    mem.close()
    audit.export(Memory(tmp_path / "m.db").store, tmp_path / "log.jsonl")  # type: ignore[arg-type]
    assert audit.verify_export(tmp_path / "log.jsonl").not_replayed == ""


def test_the_judge_is_named_by_the_model_and_held_to_its_basis_check() -> None:
    # the model says both still hold on m4, the Cantonese food: m4 was not offered as their
    # support (it is no neighbour of theirs), so the answers are refused
    chat = FakeListChatModel(responses=[answers(("m2", True), ("m3", True))])
    judge = ChatModelJudge(chat)
    assert judge.model == "fake-list-chat-model"
    mem = seed(Memory(judge=judge))
    report = mem.supersede("m1", {"id": "m1b", "kind": "fact", "text": ZH["m1b"]})
    calls = mem.history()[-1].calls
    assert [[h.id for h in c.question.holding] for c in calls] == [["m1b"], ["m1b"]]
    assert report.needs_confirmation == ["m2", "m3"] and report.kept == []
    refused = "rejected: 'still holds' cites m4, not among the holding memories offered"
    assert [e.note for e in report.edges] == [refused, refused]


def test_a_slow_model_is_cut_at_the_revisions_deadline() -> None:
    chat = FakeListChatModel(responses=[answers(("m2", False), ("m3", False))], sleep=30)
    judge = ChatModelJudge(chat, timeout=60)
    mem = seed(Memory(judge=judge, judge_budget=JudgeBudget(seconds=0.5)))
    report = mem.supersede("m1", {"id": "m1b", "kind": "fact", "text": ZH["m1b"]})
    assert report.needs_confirmation == ["m2", "m3"]
    errors = {c.error for c in mem.history()[-1].calls}
    assert errors == {"deadline: the revision's judge time ran out in a request"}


def test_a_reply_cut_at_its_length_is_truncated() -> None:
    cut = AIMessage(content='{"answers": [', response_metadata={"finish_reason": "length"})
    mem = seed(Memory(judge=ChatModelJudge(GenericFakeChatModel(messages=iter([cut])))))
    assert mem.supersede("m1", {"id": "m1b", "text": ZH["m1b"]}).needs_confirmation == [
        "m2",
        "m3",
    ]
    assert {c.error for c in mem.history()[-1].calls} == {"truncated: finish reason length"}


# --- asking the user first, through interrupt() ----------------------------------------------


class Turn(TypedDict):
    said: str
    replies: Annotated[list[Any], operator.add]


def agent(state: Turn, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
    assert isinstance(store, StategraphStore)
    ns = ("memories", "u1")
    if state["said"] == "seed":
        store.put(ns, "move", {"text": ZH["m1"]})
        store.put(ns, "commute", {"text": ZH["m2"], "kind": "belief", "context": "move"})
        store.put(ns, "broadband", {"text": ZH["m3"], "kind": "action", "context": "move"})
        store.put(ns, "move", {"text": ZH["m1b"]})  # no judge: both wait for the user
        return {"replies": ["noted"]}
    if state["said"] == "visa":
        put_trip_and_visa(store, ns)
        store.put(
            ns,
            "form",
            {"text": "Print the consulate's visa form", "kind": "plan", "context": "visa"},
        )
        store.put(
            ns,
            "apply",
            {"text": "Apply at the consulate for the visa", "kind": "plan", "context": "visa"},
        )
        store.delete(ns, "trip")  # the belief is asked about; both plans rest on it
        return {"replies": ["noted"]}
    found = ask_user_first(store, store.search(ns, query=state["said"]), by="u1")
    return {"replies": [[(i.key, i.value["status"]) for i in found]]}


@pytest.fixture
def app(tmp_path: Path) -> Any:
    yield from _compiled(StategraphStore.from_url(f"sqlite:///{tmp_path / 'm.db'}"))


@pytest.fixture
def app_not_inherited(tmp_path: Path) -> Any:
    """Candidates whose own candidates a plan does not take: what rests on a belief in doubt
    waits for it."""
    memory = Memory(tmp_path / "m.db", candidates=EvidenceProposer(inherit=False))
    yield from _compiled(StategraphStore(memory))


def _compiled(store: StategraphStore) -> Iterator[Any]:
    graph = StateGraph(Turn)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    compiled = graph.compile(checkpointer=InMemorySaver(), store=store)
    yield compiled
    store.close()


CONFIG: RunnableConfig = {"configurable": {"thread_id": "t1"}}


def _reviews(folder: Path) -> list[Any]:
    """Every review the store's log records, oldest first."""
    with Memory(folder / "m.db") as mem:
        return [r for e in mem.history() for r in e.report.change.reviews]


def test_the_user_is_asked_once_about_every_memory_in_doubt_and_answers_are_recorded(
    app: Any, tmp_path: Path
) -> None:
    app.invoke({"said": "seed"}, CONFIG)
    stopped = app.invoke({"said": "通勤 宽带"}, CONFIG)
    (stop,) = stopped["__interrupt__"]
    asked = stop.value["ask_first"]
    assert [q["id"] for q in asked] == ["memories/u1/commute", "memories/u1/broadband"]
    assert all(q["ask_first"].endswith("还成立吗？") for q in asked)
    assert stop.value["answers"] == list(ANSWERS)
    resume = {
        "memories/u1/commute": {"answer": "still holds", "note": "我说的"},
        "memories/u1/broadband": "no longer holds",
    }
    done = app.invoke(Command(resume=resume), CONFIG)
    assert "__interrupt__" not in done
    assert done["replies"][-1] == [("commute", "holds")]  # the rejected one is retracted
    assert [(r.id, r.decision.value, r.by, r.note) for r in _reviews(tmp_path)] == [
        ("memories/u1/commute", "confirmed", "u1", "我说的"),
        ("memories/u1/broadband", "rejected", "u1", ""),
    ]


def test_memories_resting_on_doubt_ask_once_about_what_they_rest_on(
    app_not_inherited: Any, tmp_path: Path
) -> None:
    app = app_not_inherited
    app.invoke({"said": "visa"}, CONFIG)
    stopped = app.invoke({"said": "consulate"}, CONFIG)
    (stop,) = stopped["__interrupt__"]
    (asked,) = stop.value["ask_first"]  # two plans, one question: the belief's
    assert asked["id"] == "memories/u1/visa" and asked["key"] == "visa"
    assert 'rests on "The user needs a Japanese visa", which is in doubt' in asked["ask_first"]
    done = app.invoke(Command(resume="no longer holds"), CONFIG)
    assert sorted(done["replies"][-1]) == [
        ("apply", "needs_confirmation"),
        ("form", "needs_confirmation"),
    ]  # the belief is gone: now each plan is asked about itself
    assert [(r.id, r.decision.value) for r in _reviews(tmp_path)] == [
        ("memories/u1/visa", "rejected")
    ]


def test_answers_in_order_and_dont_know(app: Any) -> None:
    app.invoke({"said": "seed"}, CONFIG)
    app.invoke({"said": "通勤 宽带"}, CONFIG)
    done = app.invoke(Command(resume=["don't know", "still holds"]), CONFIG)
    assert done["replies"][-1] == [("commute", "needs_confirmation"), ("broadband", "holds")]


@pytest.mark.parametrize(
    ("resume", "says"),
    [
        (["maybe", "still holds"], "answer 'maybe': one of still holds"),
        (["still holds"], "1 answers for 2 questions"),
        ("still holds", "several questions: resume with a list of answers or {id: answer}"),
    ],
)
def test_a_resume_that_answers_nothing_asked_is_refused(app: Any, resume: Any, says: str) -> None:
    app.invoke({"said": "seed"}, CONFIG)
    app.invoke({"said": "通勤 宽带"}, CONFIG)
    with pytest.raises(InvalidInputError, match=re.escape(says)):
        app.invoke(Command(resume=resume), CONFIG)
