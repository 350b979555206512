"""A LangGraph agent whose long-term memory is stategraph (pip install "stategraph[langgraph]").

The agent is a compiled LangGraph graph with a checkpointer; its node is scripted (no model):
what the user says decides what it writes with ``store.put`` and reads with ``store.search``.
The user says they will move to Shenzhen, then that they will stay in Shanghai: the store
revises what rested on the move, so the broadband to-do no longer comes back.

Two plans were written with the move in context only. The agent's chat model judges them
(:class:`~stategraph.integrations.chat_model.ChatModelJudge`), both in one request: here a
fake chat model of ``langchain_core`` stands in for ``init_chat_model(...)``, with the answers
a model would give. The flat hunt rested on the move; the gym card, the model says, still
holds, but it names nothing the card rests on, so the basis check refuses the answer and the
card stays in doubt. The next time the agent uses it, it asks the user first
(:func:`~stategraph.integrations.ask_first.ask_user_first`): the graph stops at an
``interrupt()``, the user answers, and ``Command(resume=...)`` records the answer.
"""

from __future__ import annotations

import json
import operator
import tempfile
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore
from langgraph.types import Command

from stategraph.integrations.ask_first import ask_user_first
from stategraph.integrations.chat_model import ChatModelJudge
from stategraph.integrations.langgraph import StategraphStore

# The answers the model gives when the move is called off (the format every judge answers
# in): in the first round about both plans, in the second about the gym card again, as the
# flat hunt it might have rested on went too.
FLAT, GYM = "memories/u1/flat", "memories/u1/gym"
DEPENDS = {
    "head": FLAT,
    "still_holds": False,
    "support": [],
    "reason": "在南山找房是因为要搬去深圳",
}
UNSUPPORTED = {"head": GYM, "still_holds": True, "support": [], "reason": "应该还要"}
ROUNDS = [{"answers": [DEPENDS, UNSUPPORTED]}, {"answers": [UNSUPPORTED]}]


class Turn(TypedDict):
    said: str
    replies: Annotated[list[str], operator.add]


def agent(state: Turn, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
    """A scripted agent: the user's words choose what it remembers and what it looks up."""
    assert isinstance(store, StategraphStore)
    ns = ("memories", config["configurable"]["user_id"])
    said = state["said"]
    if said == "我计划 12 月从上海搬到深圳":
        store.put(ns, "move", {"text": "用户计划 2026-12 从上海搬到深圳"})
        commute = {"text": "通勤时间按深圳南山算", "kind": "belief", "because": "move"}
        store.put(ns, "commute", commute)
        to_do = {"text": "已排待办：搬家前退宽带", "kind": "action", "because": "move"}
        store.put(ns, "broadband", to_do)
        store.put(ns, "food", {"text": "用户偏好粤菜"})
        # written while the move was in context, without a stated basis
        store.put(ns, "flat", {"text": "在深圳南山找房", "kind": "plan", "context": "move"})
        store.put(ns, "gym", {"text": "在深圳南山办一张健身卡", "kind": "plan", "context": "move"})
        return {"replies": ["记下了"]}
    if said == "不搬了，我留在上海":
        store.put(ns, "move", {"text": "用户最终决定留在上海，取消搬迁计划"})  # supersedes
        return {"replies": ["好的"]}
    # anything else is a question: look it up, and ask the user first about what is in doubt
    found = ask_user_first(store, store.search(ns, query=said), by="the user")
    holding = [i.value["text"] for i in found if i.value["status"] == "holds"]
    return {"replies": ["; ".join(holding) or "(nothing holds)"]}


def build(store: BaseStore) -> Any:
    graph = StateGraph(Turn)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    return graph.compile(checkpointer=InMemorySaver(), store=store)


def main() -> None:
    # init_chat_model("openai:gpt-4o-mini", temperature=0) in an agent; a fake model here
    model = FakeListChatModel(responses=[json.dumps(r, ensure_ascii=False) for r in ROUNDS])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "memory.db"
        with StategraphStore.from_url(f"sqlite:///{path}", judge=ChatModelJudge(model)) as store:
            app = build(store)
            config: RunnableConfig = {"configurable": {"thread_id": "t1", "user_id": "u1"}}
            for said in [
                "我计划 12 月从上海搬到深圳",
                "宽带",
                "不搬了，我留在上海",
                "宽带",
                "找房",
                "健身卡",
            ]:
                result = app.invoke({"said": said}, config)
                print(f"user: {said}")
                for stop in result.get("__interrupt__", ()):  # the graph asks the user first
                    for question in stop.value["ask_first"]:
                        print(f"agent asks: {question['ask_first']}")
                    print("user answers: still holds")
                    result = app.invoke(Command(resume="still holds"), config)
                print(f"agent: {result['replies'][-1]}")
            ns = ("memories", "u1")
            for key in ("move", "commute", "broadband", "flat", "gym"):
                item = store.get(ns, key)
                assert item is not None
                print(f"{key}: {item.value['status']}")
            (judged,) = [e for e in store.memory.history() if e.calls]
            print("judge requests:", sum(c.attempts for c in judged.calls))
            for edge in judged.report.edges:
                print(f"{edge.head} <- {edge.premise}: {edge.note}".replace("memories/u1/", ""))
            print("namespaces:", store.list_namespaces())


if __name__ == "__main__":
    main()
