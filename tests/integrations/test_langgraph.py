"""stategraph as a LangGraph store: inside a real compiled graph with a checkpointer, and held to
the BaseStore contract, on a SQLite file and on a PostgreSQL tenant."""

from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from backends import Place

pytest.importorskip("langgraph", reason="needs LangGraph: pip install 'stategraph[langgraph]'")

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    PutOp,
    SearchOp,
)

from stategraph import Memory
from stategraph.cli import demo
from stategraph.errors import InvalidInputError, InvalidKindError
from stategraph.integrations.langgraph import StategraphStore, ThreadError
from stategraph.recall import recall
from stategraph.text.evidence import EvidenceProposer

ZH = demo.SCENARIO["zh"]
U1 = ("memories", "u1")
NOT_INHERITED = EvidenceProposer(inherit=False)
"""Candidates whose own candidates a plan does not take: what rests on a belief in doubt waits."""


def put_trip_and_visa(store: BaseStore, namespace: tuple[str, ...]) -> None:
    """A trip (key ``trip``) and the belief that a visa is needed, resting on it through a
    candidate (key ``visa``): deleting the trip puts the belief in doubt."""
    store.put(namespace, "trip", {"text": "The user flies to Tokyo on 2027-04-10"})
    visa = {"text": "The user needs a Japanese visa", "kind": "belief", "context": "trip"}
    store.put(namespace, "visa", visa)


class Turn(TypedDict):
    said: str
    replies: Annotated[list[str], operator.add]
    seen: Annotated[list[Any], operator.add]


def agent(state: Turn, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
    """A scripted agent (no model): what the user says decides what it writes and reads."""
    ns = ("memories", config["configurable"]["user_id"])
    said = state["said"]
    if said == "move":
        store.put(ns, "move", {"text": ZH["m1"], "source": "chat"})
        store.put(ns, "commute", {"text": ZH["m2"], "kind": "belief", "because": ["move"]})
        store.put(ns, "broadband", {"text": ZH["m3"], "kind": "action", "because": "move"})
        store.put(ns, "food", {"text": ZH["m4"]})
        # written with the move in context but no stated basis: a candidate premise
        store.put(ns, "gym", {"text": "在深圳南山办一张健身卡", "kind": "plan", "context": "move"})
        return {"replies": ["noted"]}
    if said == "stay":
        store.put(ns, "move", {"text": ZH["m1b"], "source": "chat"})
        return {"replies": ["noted"]}
    if said.startswith("ask:"):
        found = store.search(ns, query=said.removeprefix("ask:"))
        seen = [(i.key, i.value["status"], i.value.get("ask_first")) for i in found]
        doubtful = [i.value["ask_first"] for i in found if "ask_first" in i.value]
        return {"replies": doubtful or [i.value["text"] for i in found], "seen": [seen]}
    if said == "yes":
        doubtful = store.search(ns, filter={"status": "needs_confirmation"})
        for item in doubtful:
            assert isinstance(store, StategraphStore)
            store.confirm(ns, item.key, by="the user", note=said)
        return {"replies": [f"confirmed {[i.key for i in doubtful]}"]}
    raise AssertionError(f"the script has no line for {said!r}")


def graph(store: BaseStore) -> Any:
    builder = StateGraph(Turn)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return builder.compile(checkpointer=InMemorySaver(), store=store)


def say(app: Any, said: str, user: str = "u1") -> dict[str, Any]:
    config = {"configurable": {"thread_id": f"thread-{user}", "user_id": user}}
    out: dict[str, Any] = app.invoke({"said": said}, config)
    return out


@pytest.fixture
def store(place: Place) -> Any:
    with StategraphStore.from_url(place.url) as opened:
        yield opened


def test_the_seed_scenario_inside_a_compiled_graph(store: StategraphStore) -> None:
    app = graph(store)
    say(app, "move")
    before = say(app, "ask:宽带")["seen"][-1]
    assert before == [("broadband", "holds", None)]

    say(app, "stay")
    after = say(app, "ask:宽带")
    assert after["seen"][-1] == []  # no holding broadband to-do
    assert store.get(U1, "broadband").value["status"] == "invalidated"  # type: ignore[union-attr]
    assert store.get(U1, "commute").value["status"] == "invalidated"  # type: ignore[union-attr]
    assert [i.key for i in store.search(U1, query="宽带", filter={"status": "invalidated"})] == [
        "broadband"
    ]

    asked = say(app, "ask:健身卡")
    ((key, status, ask),) = asked["seen"][-1]
    assert (key, status) == ("gym", "needs_confirmation")
    assert ask.startswith("之前：“用户计划 2026-12 从上海搬到深圳”。此后：")
    assert ask.endswith("“在深圳南山办一张健身卡”还成立吗？")
    assert asked["replies"][-1] == ask  # the agent asks before relying on it

    assert say(app, "yes")["replies"][-1] == "confirmed ['gym']"
    assert say(app, "ask:健身卡")["seen"][-1] == [("gym", "holds", None)]
    food = say(app, "ask:粤菜")["seen"][-1]
    assert food == [("food", "holds", None)]

    # the checkpointer kept the thread's turns; the store kept the memory, with its history
    history = app.get_state({"configurable": {"thread_id": "thread-u1"}}).values["replies"]
    assert len(history) == 7  # the search after the move was called off found nothing to say
    mem = store.memory
    assert mem.why_not(store.state_id(U1, "broadband") or "").id == "memories/u1/broadband"
    assert store.state_id(U1, "move") == "memories/u1/move#2"


def test_another_user_s_memories_stay_out_of_search(store: StategraphStore) -> None:
    app = graph(store)
    say(app, "move", user="u1")
    say(app, "move", user="u2")
    say(app, "stay", user="u2")
    assert say(app, "ask:宽带", user="u1")["seen"][-1] == [("broadband", "holds", None)]
    assert say(app, "ask:宽带", user="u2")["seen"][-1] == []
    assert {i.namespace for i in store.search(("memories",), query="宽带")} == {U1}
    assert store.list_namespaces(prefix=("memories",)) == [U1, ("memories", "u2")]


def test_put_of_a_changed_value_supersedes_and_an_unchanged_one_changes_nothing(
    tmp_path: Path,
) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db"))
    store.put(U1, "f", {"text": "The user lives in Lyon", "source": "chat"})
    store.put(U1, "b", {"text": "Commute is by tram", "kind": "belief", "because": ["f"]})
    seq = store.memory.head()[0]
    store.put(U1, "f", {"text": "The user lives in Lyon", "source": "chat"})
    assert store.memory.head()[0] == seq  # nothing written: b keeps its basis
    again = store.get(U1, "f")
    assert again is not None
    store.put(U1, "f", again.value)  # a value read back (status and all) is the same memory
    assert store.memory.head()[0] == seq
    store.put(U1, "f", {"text": "The user lives in Paris"})
    assert store.get(U1, "b").value["status"] == "invalidated"  # type: ignore[union-attr]
    f = store.get(U1, "f")
    assert f is not None and f.value == {
        "text": "The user lives in Paris",
        "kind": "fact",
        "status": "holds",
    }
    assert f.created_at < f.updated_at


def test_delete_retracts_and_cascades_and_a_later_put_starts_a_new_version(
    tmp_path: Path,
) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db"))
    store.put(U1, "f", {"text": "The user owns a car"})
    store.put(U1, "p", {"text": "Book a parking space", "kind": "plan", "because": "f"})
    store.delete(U1, "f")
    assert store.get(U1, "f") is None
    assert store.get(U1, "p").value["status"] == "invalidated"  # type: ignore[union-attr]
    assert store.search(U1) == []
    store.delete(U1, "missing")  # deleting what is not there is a no-op, as in LangGraph
    store.put(U1, "f", {"text": "The user owns a bicycle"})
    assert store.state_id(U1, "f") == "memories/u1/f#2"
    store.batch([PutOp(U1, "f", None)])
    assert store.get(U1, "f") is None


def test_a_plan_resting_on_a_belief_in_doubt_comes_back_resting_on_doubt(tmp_path: Path) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db", candidates=NOT_INHERITED))
    put_trip_and_visa(store, U1)
    store.put(
        U1, "d", {"text": "Apply for the visa at the consulate", "kind": "plan", "context": "visa"}
    )
    store.delete(U1, "trip")
    assert store.get(U1, "visa").value["status"] == "needs_confirmation"  # type: ignore[union-attr]
    d = store.get(U1, "d")
    assert d is not None and d.value["status"] == "rests_on_doubt"
    assert "Japanese visa" in d.value["ask_first"]
    waiting = store.search(U1, filter={"status": "rests_on_doubt"})
    assert [i.key for i in waiting] == ["d"]


def test_what_rests_on_doubt_in_another_namespace_is_never_named_nor_settled_here(
    tmp_path: Path,
) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db", candidates=NOT_INHERITED))
    other = ("profile", "u1")
    put_trip_and_visa(store, other)
    store.put(
        U1,
        "form",
        {
            "text": "Print the consulate's visa form",
            "kind": "plan",
            "context": {"namespace": list(other), "key": "visa"},
        },
    )
    store.delete(other, "trip")
    form = store.get(U1, "form")
    assert form is not None and form.value["status"] == "rests_on_doubt"
    assert form.value["ask_about"] is None  # not this namespace's to settle
    assert "outside this namespace" in form.value["ask_first"]
    assert "Japanese" not in form.value["ask_first"] and "profile" not in form.value["ask_first"]
    (hit,) = store.search(U1, query="consulate form")
    assert hit.value["ask_about"] is None and hit.value["ask_first"] == form.value["ask_first"]
    (found,) = recall(store.memory, "consulate form", 1, id_prefix="memories/u1/")
    assert found.ask_about is None and "profile" not in found.reason


def test_premises_in_another_namespace_and_unknown_premises(tmp_path: Path) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db"))
    store.put(("profile", "u1"), "city", {"text": "The user lives in Lyon"})
    store.put(
        U1,
        "tram",
        {
            "text": "Buy a tram pass",
            "kind": "plan",
            "because": {"namespace": ["profile", "u1"], "key": "city"},
        },
    )
    assert store.get(U1, "tram").value["status"] == "holds"  # type: ignore[union-attr]
    store.delete(("profile", "u1"), "city")
    assert store.get(U1, "tram").value["status"] == "invalidated"  # type: ignore[union-attr]
    with pytest.raises(InvalidInputError, match="no memory 'nope'"):
        store.put(U1, "x", {"text": "x", "kind": "belief", "because": ["nope"]})
    with pytest.raises(InvalidInputError, match="action_status"):
        store.put(U1, "x", {"text": "x", "status": "done"})
    with pytest.raises(InvalidKindError, match="wish"):
        store.put(U1, "x", {"text": "x", "kind": "wish"})
    with pytest.raises(InvalidInputError, match="simple name"):
        store.put(U1, "x", {"text": "x", "kind": "a kind"})
    with pytest.raises(InvalidInputError, match="lone surrogate"):
        store.put(U1, "x", {"text": "x\udc00"})
    assert store.get(U1, "x") is None


def test_keys_with_separators_and_any_text_round_trip(tmp_path: Path) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db"))
    keys = ["a/b", "x#2", "50%", " spaced ", "宽带", "cafe\u0301", "café", ""]
    for i, key in enumerate(keys):
        store.put(("k", "n/1"), key, {"text": f"memory number {i}", "i": i})
    for i, key in enumerate(keys):
        got = store.get(("k", "n/1"), key)
        assert got is not None and got.key == key and got.value["i"] == i
    assert sorted(i.key for i in store.search(("k",), limit=20)) == sorted(keys)
    assert store.list_namespaces() == [("k", "n/1")]


def test_search_filters_offset_and_limit(tmp_path: Path) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db"))
    for i in range(6):
        kind = "fact" if i % 2 else "plan"
        store.put(
            U1,
            f"k{i}",
            {"text": f"green tea number {i}", "kind": kind, "n": i, "tags": {"color": "green"}},
        )
    assert [i.key for i in store.search(U1, filter={"kind": "fact"})] == ["k1", "k3", "k5"]
    assert [i.key for i in store.search(U1, filter={"n": {"$gte": 4}})] == ["k4", "k5"]
    assert [
        i.key for i in store.search(U1, filter={"tags": {"color": "green"}}, limit=2, offset=1)
    ] == ["k1", "k2"]
    hits = store.search(U1, query="green tea", filter={"kind": "plan"}, limit=2)
    assert len(hits) == 2 and all(h.value["kind"] == "plan" for h in hits)
    assert all(h.score is not None for h in hits)
    assert len(store.search(U1, query="green tea", limit=3, offset=2)) == 3
    with pytest.raises(InvalidInputError, match="unsupported operator"):
        store.search(U1, filter={"n": {"$in": [1, 2]}})
    with pytest.raises(InvalidInputError, match=r"\$or"):
        store.search(U1, filter={"$or": [{"n": 1}]})
    with pytest.raises(InvalidInputError, match=r"filter\.status"):
        store.search(U1, filter={"status": "stale"})


def test_list_namespaces_follows_the_base_store_contract(tmp_path: Path) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db"))
    for ns in [
        ("a", "b", "c"),
        ("a", "b", "d", "e"),
        ("a", "b", "d", "i"),
        ("a", "b", "f"),
        ("a", "c", "f"),
    ]:
        store.put(ns, "k", {"text": "x"})
    # the example in BaseStore.list_namespaces's own documentation
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "c")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d", "e"), ("a", "b", "d", "i")]
    store.delete(("a", "c", "f"), "k")
    assert store.list_namespaces(prefix=("a", "c")) == []


def test_namespaces_are_validated_ttl_refused_and_a_failing_batch_writes_nothing(
    tmp_path: Path,
) -> None:
    store = StategraphStore(Memory(tmp_path / "m.db"))
    with pytest.raises(InvalidNamespaceError):
        store.put(("a.b",), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("a.b",), "k")])  # checked inside batch too
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph",), "k", {"text": "x"})
    with pytest.raises(NotImplementedError, match="TTL"):
        store.put(U1, "k", {"text": "x"}, ttl=5)
    seq = store.memory.head()[0]
    with pytest.raises(InvalidKindError):
        store.batch(
            [PutOp(U1, "ok", {"text": "fine"}), PutOp(U1, "bad", {"text": "x", "kind": "wish"})]
        )
    assert store.get(U1, "ok") is None and store.memory.head()[0] == seq
    got = store.batch(
        [PutOp(U1, "k", {"text": "tea"}), GetOp(U1, "k"), SearchOp(U1, None, 10, 0, "tea")]
    )
    assert got[0] is None and got[1].value["text"] == "tea"  # type: ignore[union-attr]
    assert [i.key for i in got[2]] == ["k"]  # type: ignore[union-attr]


def test_an_async_graph_runs_the_store_from_worker_threads(place: Place) -> None:
    with StategraphStore.from_url(place.url) as store:
        app = graph(store)

        async def run() -> list[Any]:
            cfg = {"configurable": {"thread_id": "t", "user_id": "u1"}}
            await app.ainvoke({"said": "move"}, cfg)
            await app.ainvoke({"said": "stay"}, cfg)
            out = await app.ainvoke({"said": "ask:宽带"}, cfg)
            await store.aput(U1, "extra", {"text": "Buy green tea"})
            found = await store.asearch(U1, query="green tea")
            return [out["seen"][-1], [i.key for i in found], await store.aget(U1, "extra")]

        seen, found, extra = asyncio.run(run())
        assert seen == [] and found == ["extra"] and extra is not None


def test_a_memory_kept_in_memory_serves_one_thread_and_from_url_refuses_it() -> None:
    store = StategraphStore(Memory())
    app = graph(store)
    say(app, "move")
    assert say(app, "ask:粤菜")["seen"][-1] == [("food", "holds", None)]
    with pytest.raises(InvalidInputError, match="cannot be shared between threads"):
        StategraphStore.from_url(":memory:")
    # from another thread: a clear error naming the way out, not SQLite's own
    with pytest.raises(ThreadError, match="from_url"):
        asyncio.run(asyncio.to_thread(store.get, U1, "food"))


def test_recall_ranks_within_an_id_prefix_not_a_store_wide_ranking(place: Place) -> None:
    mem = place.memory()
    for i in range(5):  # better matches, all of another user
        mem.fact(f"memories/u2/t{i}", "green tea green tea green tea")
    mem.fact("memories/u1/t", "the user likes green tea and coffee and cake")
    assert [r.id for r in recall(mem, "green tea", 1, id_prefix="memories/u1/")] == [
        "memories/u1/t"
    ]
    assert recall(mem, "green tea", 10, id_prefix="memories/u3/") == []
    assert len(recall(mem, "green tea", 10)) == 6


def test_candidates_stay_in_their_namespace_so_one_user_is_never_asked_about_another(
    tmp_path: Path,
) -> None:
    def write(store: StategraphStore, plan_ns: tuple[str, ...] = U1) -> Any:
        store.put(("memories", "u2"), "move", {"text": "The user moves to Shenzhen in December"})
        store.put(plan_ns, "gym", {"text": "Find a gym in Shenzhen for December", "kind": "plan"})
        store.put(("memories", "u2"), "move", {"text": "The user stays in Shanghai"})
        return store.get(plan_ns, "gym")

    scoped = write(StategraphStore(Memory(tmp_path / "a.db")))
    assert scoped.value["status"] == "holds" and "ask_first" not in scoped.value

    shared = write(StategraphStore(Memory(tmp_path / "b.db"), candidates_across_namespaces=True))
    assert shared.value["status"] == "needs_confirmation"
    # the question never quotes another namespace's memory (issue 42, finding 2)
    assert "moves to Shenzhen" not in shared.value["ask_first"]
    assert "outside this namespace changed" in shared.value["ask_first"]

    # one user's namespaces share a scope of depth 1: ("u2", ...) and ("u2", "plans")
    store = StategraphStore(Memory(tmp_path / "c.db"), scope_depth=1)
    store.put(("u2", "facts"), "move", {"text": "The user moves to Shenzhen in December"})
    store.put(
        ("u2", "plans"), "gym", {"text": "Find a gym in Shenzhen for December", "kind": "plan"}
    )
    store.put(
        ("u3", "plans"), "gym", {"text": "Find a gym in Shenzhen for December", "kind": "plan"}
    )
    store.put(("u2", "facts"), "move", {"text": "The user stays in Shanghai"})
    assert store.get(("u2", "plans"), "gym").value["status"] == "needs_confirmation"  # type: ignore[union-attr]
    assert store.get(("u3", "plans"), "gym").value["status"] == "holds"  # type: ignore[union-attr]


def test_a_store_written_through_langgraph_replays_from_its_export(
    place: Place, tmp_path: Path
) -> None:
    from stategraph.audit import export, verify_export

    with StategraphStore.from_url(place.url) as store:
        app = graph(store)
        for said in ("move", "stay", "yes"):
            say(app, said)
        export(store.memory.store, tmp_path / "log.jsonl")
        head = store.memory.head()
    done = verify_export(tmp_path / "log.jsonl", expect_head=head)
    assert done.replayed == done.count and done.not_replayed == ""


def test_parallel_nodes_write_from_their_own_threads(place: Place) -> None:
    class Notes(TypedDict):
        done: Annotated[list[str], operator.add]

    def writer(name: str) -> Any:
        def node(state: Notes, *, store: BaseStore) -> dict[str, Any]:
            for i in range(3):
                store.put(U1, f"{name}{i}", {"text": f"{name} wrote note {i}"})
            return {"done": [name]}

        return node

    with StategraphStore.from_url(place.url) as store:
        builder = StateGraph(Notes)
        for name in ("left", "right"):  # one superstep: LangGraph runs them in threads
            builder.add_node(name, writer(name))
            builder.add_edge(START, name)
            builder.add_edge(name, END)
        app = builder.compile(checkpointer=InMemorySaver(), store=store)
        out = app.invoke({"done": []}, {"configurable": {"thread_id": "p"}})
        assert sorted(out["done"]) == ["left", "right"]
        keys = sorted(i.key for i in store.search(U1, limit=10))
        assert keys == ["left0", "left1", "left2", "right0", "right1", "right2"]
        assert store.memory.verify_log() == 6
        assert len({thread for _, thread in store._opened}) >= 2  # the nodes ran in threads
