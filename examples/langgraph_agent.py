"""A LangGraph agent whose long-term memory is stategraph (pip install "stategraph[langgraph]").

The agent is a compiled LangGraph graph with a checkpointer; its node is scripted (no model):
what the user says decides what it writes with ``store.put`` and reads with ``store.search``.
The user says they will move to Shenzhen, then that they will stay in Shanghai: the store
revises what rested on the move, so the broadband to-do no longer comes back, and a plan
written with the move in context comes back with ``ask_first``, the question to put to the
user before relying on it.
"""

from __future__ import annotations

import operator
import tempfile
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from stategraph.integrations.langgraph import StategraphStore


class Turn(TypedDict):
    said: str
    replies: Annotated[list[str], operator.add]


def agent(state: Turn, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
    """A scripted agent: the user's words choose what it remembers and what it looks up."""
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
        store.put(ns, "gym", {"text": "在深圳南山办一张健身卡", "kind": "plan", "context": "move"})
        return {"replies": ["记下了"]}
    if said == "不搬了，我留在上海":
        store.put(ns, "move", {"text": "用户最终决定留在上海，取消搬迁计划"})  # supersedes
        return {"replies": ["好的"]}
    if said == "是的，还要办":
        for item in store.search(ns, filter={"status": "needs_confirmation"}):
            assert isinstance(store, StategraphStore)
            store.confirm(ns, item.key, by="the user", note=said)
        return {"replies": ["已确认"]}
    # anything else is a question: look it up, and ask first about what is in doubt
    found = store.search(ns, query=said)
    for item in found:
        if "ask_first" in item.value:
            return {"replies": [item.value["ask_first"]]}
    return {"replies": ["; ".join(i.value["text"] for i in found) or "(nothing holds)"]}


def build(store: BaseStore) -> Any:
    graph = StateGraph(Turn)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    return graph.compile(checkpointer=InMemorySaver(), store=store)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "memory.db"
        with StategraphStore.from_url(f"sqlite:///{path}") as store:
            app = build(store)
            config: RunnableConfig = {"configurable": {"thread_id": "t1", "user_id": "u1"}}
            for said in [
                "我计划 12 月从上海搬到深圳",
                "宽带",
                "不搬了，我留在上海",
                "宽带",
                "健身卡",
                "是的，还要办",
                "健身卡",
            ]:
                reply = app.invoke({"said": said}, config)["replies"][-1]
                print(f"user: {said}\nagent: {reply}")
            ns = ("memories", "u1")
            for key in ("move", "commute", "broadband", "gym"):
                item = store.get(ns, key)
                assert item is not None
                print(f"{key}: {item.value['status']}")
            print("namespaces:", store.list_namespaces())


if __name__ == "__main__":
    main()
