"""stategraph as a LangGraph store: an agent's long-term memory that revises itself.

:class:`StategraphStore` is a LangGraph :class:`~langgraph.store.base.BaseStore`. Give it to
``graph.compile(store=...)`` and the agent's nodes read and write memories as they would with
LangGraph's own stores, with what only stategraph does:

- ``put(namespace, key, value)`` writes a memory. The value carries ``text``, ``kind``
  (``fact``, ``belief``, ``plan``, ``action``: the memory's policy's kinds; ``fact`` when
  left out) and, optionally, ``because``, ``unless`` and ``context``: the keys of other
  memories it rests on (in the same namespace, or ``{"namespace": [...], "key": ...}``), in
  the shape :meth:`Memory.add <stategraph.memory.Memory.add>` takes. Any other field is kept
  and returned as given. A ``put`` of a key that holds a memory *supersedes* it: what rested
  on the old memory is revised (invalidated, or flagged for confirmation) as
  :meth:`Memory.supersede <stategraph.memory.Memory.supersede>` does.
- ``delete`` (or ``put`` of None) retracts the memory, and what rests on it alone goes too.
- ``search(namespace, query=...)`` is :meth:`Memory.recall <stategraph.memory.Memory.recall>`
  inside the namespace: what no longer holds is never returned as if it did, and an item in
  doubt carries ``ask_first`` in its value, the question to put to the user before relying
  on it. Every returned value carries ``status`` (``holds``, ``needs_confirmation``,
  ``undefined``, or, only when a filter asks for it, ``invalidated``).
- ``get`` returns the key's current memory whatever its status (a to-do whose reason went
  away comes back with ``status: invalidated``); a deleted key returns None.
- :meth:`StategraphStore.confirm` and :meth:`StategraphStore.reject` record the user's
  answer to an ``ask_first``; :func:`~stategraph.integrations.ask_first.ask_user_first` asks
  the user inside a graph node, through ``interrupt()``, and records the answers.
- The agent's chat model can be the judge of what logic leaves undecided:
  ``from_url(..., judge=ChatModelJudge(model))``
  (:class:`~stategraph.integrations.chat_model.ChatModelJudge`).

Namespaces are id prefixes in one memory (:mod:`stategraph.integrations.ids`): the key
``"move"`` in ``("memories", "u1")`` is the state ``memories/u1/move``, and its replacement
``memories/u1/move#2``. A search sees only its namespace and those below it. Memories of
different namespaces rest on each other only when a ``because`` says so: the candidate
premises stategraph proposes for a memory written without a basis are looked for in its own
namespace (:class:`~stategraph.text.scoped.ScopedProposer`; ``scope_depth`` widens it to the
namespaces sharing leading labels). Rule packs, when a memory has them, link by atoms across
the whole store: where users must never be linked, give each user their own store (a
PostgreSQL tenant each: ``postgresql://...?tenant=u1``).

What a LangGraph user may expect and does not get: TTLs (``supports_ttl`` is False, and a
``ttl`` is refused); embedding indexes (``index=`` is accepted and ignored, as LangGraph's
stores do without an index configuration: every memory's text is in the full-text index).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from stategraph.errors import StategraphError
from stategraph.integrations.filters import STATUSES, Filter, invalid, namespace_matches
from stategraph.integrations.ids import namespace_prefix, parse_id, state_id
from stategraph.memory import Memory, written
from stategraph.model import Change, Justification, Origin, Report, State, Supersession, Truth
from stategraph.nodes import is_internal
from stategraph.recall import MAX_K, Recalled, grade, recall
from stategraph.review.waiting import Doubts
from stategraph.shapes import AllOf, read_because, validated
from stategraph.text.scoped import ScopedProposer

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
    from langgraph.store.base import validate_op_namespace as _validate_op_namespace
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'stategraph.integrations.langgraph needs LangGraph: pip install "stategraph[langgraph]"'
    ) from exc

__all__ = ["STATUSES", "StategraphStore", "ThreadError"]


_META = "langgraph"
"""The key of a state's metadata that keeps what the store needs to give the item back."""

_PAGE = 500


class ThreadError(StategraphError, RuntimeError):
    """A store made from a SQLite :class:`~stategraph.memory.Memory` was used from another
    thread than the one that made it (a graph's worker thread, or an async run)."""

    def __init__(self) -> None:
        super().__init__(
            "this StategraphStore was made from a SQLite Memory, which only the thread that "
            "made it may use; for a graph that runs nodes in threads or with ainvoke, open the "
            "store with StategraphStore.from_url(PATH or URL), which opens a memory per thread"
        )


class StategraphStore(BaseStore):
    """A LangGraph store over a stategraph memory (see the module's doc).

    Args:
        memory: the memory to read and write. A SQLite memory may only be used from the
            thread that opened it; for a graph that runs nodes in threads or with
            ``ainvoke``, open the store with :meth:`from_url`, which opens one memory per
            thread.
        scope_depth: the candidate premises stategraph proposes for a memory written
            without a basis, and the memories a new fact may defeat, are looked for only
            among the memories of its namespace (None), or of the namespaces that share its
            first ``scope_depth`` labels (1 for namespaces such as ``(user_id, "notes")``).
            The memory's proposer is wrapped in place
            (:class:`~stategraph.text.scoped.ScopedProposer`).
        candidates_across_namespaces: propose candidates from the whole store, every
            namespace alike (for a store of one user's memories only).

    Example:
        >>> from stategraph import Memory
        >>> store = StategraphStore(Memory())
        >>> store.put(("memories", "u1"), "food", {"text": "The user prefers Cantonese food"})
        >>> [i.value["status"] for i in store.search(("memories", "u1"), query="food")]
        ['holds']
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Memory,
        *,
        scope_depth: int | None = None,
        candidates_across_namespaces: bool = False,
    ) -> None:
        self._setup(memory, None, {}, scope_depth, candidates_across_namespaces)

    def _setup(
        self,
        memory: Memory | None,
        url: str | None,
        options: dict[str, Any],
        scope_depth: int | None,
        across: bool,
    ) -> None:
        if scope_depth is not None and (isinstance(scope_depth, bool) or scope_depth < 1):
            raise invalid("scope_depth", "None (a namespace is a scope) or a whole number >= 1")
        self._scope = None if across else scope_depth or 0
        if memory is not None:
            self._scoped(memory)
        self._memory = memory
        self._owner = threading.get_ident()
        self._url = url
        self._options = options
        self._lock = threading.RLock()
        self._local = threading.local()
        self._opened: list[tuple[Memory, int]] = []

    def _scoped(self, mem: Memory) -> None:
        """Keep the memory's candidate proposal inside each memory's namespace (its first
        ``scope_depth`` labels), unless candidates may cross namespaces."""
        if self._scope is None or mem.candidates is None:
            return
        if isinstance(mem.candidates, ScopedProposer):
            return
        depth = self._scope or None
        mem.candidates = ScopedProposer(mem.candidates, separator="/", depth=depth)
        mem._preparer.proposer = mem.candidates  # the proposer the memory's revisions use

    @classmethod
    def from_url(
        cls,
        url: str | Path,
        *,
        scope_depth: int | None = None,
        candidates_across_namespaces: bool = False,
        **options: Any,
    ) -> StategraphStore:
        """A store over the memory at a store URL (``sqlite:///PATH``, a path, or
        ``postgresql://...?tenant=NAME``: :func:`stategraph.stores.open_store`).

        Each thread that uses the store opens its own :class:`~stategraph.memory.Memory`
        there with ``options`` (``policy``, ``rules``, ``grounder``, ``reversals``,
        ``judge``...), so the store may be shared by a graph's threads and its async runs.
        Close it with :meth:`close` (or use it as a context manager).

        Raises:
            InvalidInputError: a memory kept in memory (``:memory:``): each thread would open
                its own; pass ``StategraphStore(Memory())`` instead.
        """
        text = str(url)
        if text in (":memory:", "", "sqlite://", "sqlite:///:memory:"):
            raise invalid(
                "url",
                "a memory kept in memory cannot be shared between threads: give a file or a "
                "PostgreSQL URL, or StategraphStore(Memory()) for one thread",
            )
        store = cls.__new__(cls)
        store._setup(None, text, options, scope_depth, candidates_across_namespaces)
        store._mem()  # open now in this thread: a bad URL fails here, not in a node
        return store

    def close(self) -> None:
        """Close the memories :meth:`from_url` opened (a memory given to the constructor is
        the caller's to close). A SQLite memory another thread opened can only be closed
        there: it is dropped, and its connection closes when it is collected."""
        with self._lock:
            for mem, thread in self._opened:
                conn = getattr(mem.store, "conn", None)
                if thread == threading.get_ident() or not isinstance(conn, sqlite3.Connection):
                    mem.close()
            self._opened.clear()
            self._local = threading.local()

    def __enter__(self) -> StategraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def memory(self) -> Memory:
        """The memory this thread reads and writes."""
        return self._mem()

    def _mem(self) -> Memory:
        if self._memory is not None:
            if self._owner != threading.get_ident() and isinstance(
                getattr(self._memory.store, "conn", None), sqlite3.Connection
            ):
                raise ThreadError()
            return self._memory
        mem: Memory | None = getattr(self._local, "memory", None)
        if mem is None:
            assert self._url is not None
            mem = Memory(self._url, **self._options)
            self._scoped(mem)
            self._local.memory = mem
            with self._lock:
                self._opened.append((mem, threading.get_ident()))
        return mem

    def _guard(self) -> AbstractContextManager[Any]:
        """One batch at a time on a memory given to the constructor (shared by threads, for
        PostgreSQL); nothing to wait for on a memory of this thread's own."""
        return self._lock if self._memory is not None else nullcontext()

    # ---- the BaseStore contract -----------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order, each seeing the ones before it. A batch with a write
        is one transaction: if one operation fails, none of its writes is kept."""
        ops = list(ops)
        for op in ops:
            _validate_op_namespace(op)
        mem = self._mem()
        with self._guard():
            if any(isinstance(op, PutOp) for op in ops):
                with mem.atomic():
                    return [self._run(mem, op) for op in ops]
            return [self._run(mem, op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread (a store from :meth:`from_url`), or on the
        calling thread for a memory given to the constructor (a SQLite connection belongs to
        the thread that opened it)."""
        ops = list(ops)
        if self._memory is not None:
            return self.batch(ops)
        return await asyncio.to_thread(self.batch, ops)

    def _run(self, mem: Memory, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(mem, op.namespace, op.key)
        if isinstance(op, SearchOp):
            return self._search(mem, op)
        if isinstance(op, PutOp):
            if op.ttl is not None:
                raise NotImplementedError(
                    "TTL is not supported by StategraphStore: a memory goes when it is "
                    "deleted or what it rests on changes; put it with ttl=None"
                )
            if not op.namespace:
                raise InvalidNamespaceError("Namespace cannot be empty.")
            if op.value is None:
                self._delete(mem, op.namespace, op.key)
            else:
                self._put(mem, op.namespace, op.key, op.value)
            return None
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(mem, op)
        raise invalid("op", f"unknown operation {type(op).__name__}")

    # ---- stategraph's own -----------------------------------------------------------------

    def state_id(self, namespace: Sequence[str], key: str) -> str | None:
        """The id of a key's current memory (None: no such key, or deleted), for using the
        memory directly (``why``, ``why_not``, ``history``)."""
        with self._guard():
            found = self._current(self._mem(), tuple(namespace), key)
        return found[1] if found is not None and found[3] else None

    def confirm(self, namespace: Sequence[str], key: str, *, by: str, note: str = "") -> Report:
        """The user confirmed a memory in doubt: it holds, and what rests on it is restored
        (:meth:`Memory.confirm <stategraph.memory.Memory.confirm>`)."""
        mem = self._mem()
        with self._guard():
            return mem.confirm(self._must(mem, tuple(namespace), key), by=by, note=note)

    def reject(self, namespace: Sequence[str], key: str, *, by: str, note: str = "") -> Report:
        """The user rejected a memory in doubt: it is retracted, and what rests on it alone
        goes (:meth:`Memory.reject <stategraph.memory.Memory.reject>`)."""
        mem = self._mem()
        with self._guard():
            return mem.reject(self._must(mem, tuple(namespace), key), by=by, note=note)

    # ---- reading --------------------------------------------------------------------------

    def _current(
        self, mem: Memory, namespace: tuple[str, ...], key: str
    ) -> tuple[int, str, State, bool, Truth] | None:
        """The key's latest version: (version, id, state, active, truth), or None if the key
        was never written. Found in one query, whatever the number of versions (the versions
        of a key are numbered from 1 without a gap: :meth:`SQLiteStore.last_numbered
        <stategraph.store.SQLiteStore.last_numbered>`), then read."""
        first = state_id(namespace, key)
        version: int = mem.store.last_numbered(first + "#")  # type: ignore[attr-defined]
        sid = first if version == 1 else state_id(namespace, key, version)
        row = mem.store.state(sid)
        return None if row is None else (version, sid, *row)

    def _must(self, mem: Memory, namespace: tuple[str, ...], key: str) -> str:
        found = self._current(mem, namespace, key)
        if found is None or not found[3]:
            raise invalid("key", f"no memory {key!r} in namespace {namespace}")
        return found[1]

    def _get(self, mem: Memory, namespace: tuple[str, ...], key: str) -> Item | None:
        found = self._current(mem, namespace, key)
        if found is None or not found[3]:
            return None
        _, _, st, active, truth = found
        status, ask, about = _grade(mem, st, active, truth, self._scope)
        found_item = _item(namespace, key, st, status, ask, about=about)
        return Item(
            value=found_item.value,
            key=key,
            namespace=namespace,
            created_at=found_item.created_at,
            updated_at=found_item.updated_at,
        )

    def _search(self, mem: Memory, op: SearchOp) -> list[SearchItem]:
        if op.limit < 0 or op.offset < 0:
            raise invalid("limit", "limit and offset are whole numbers from 0")
        wanted = Filter(op.filter)
        prefix = namespace_prefix(op.namespace_prefix)
        stop = op.offset + op.limit
        out: list[SearchItem] = []
        if op.limit == 0:
            return out
        if isinstance(op.query, str) and op.query.strip():
            k = min(MAX_K, max(stop, 10))
            while True:
                hits = recall(
                    mem,
                    op.query,
                    k,
                    kinds=wanted.kinds,
                    include_doubtful=wanted.doubtful,
                    include_invalidated=wanted.invalidated,
                    id_prefix=prefix or None,
                )
                out = [i for r in hits if (i := self._hit(mem, r, wanted)) is not None]
                if len(out) >= stop or len(hits) < k or k == MAX_K:
                    break
                k = min(MAX_K, k * 4)
            return out[op.offset : stop]
        doubts = Doubts(mem.store)  # one reader for the whole listing
        for namespace, key, sid in _latest(mem, prefix):
            row = mem.store.state(sid)
            if row is None or not row[1]:
                continue  # deleted
            st, active, truth = row
            status, ask, about = _grade(mem, st, active, truth, self._scope, doubts)
            if status == "invalidated" and not wanted.invalidated:
                continue
            item = _item(namespace, key, st, status, ask, about=about)
            if wanted.match(item.value):
                out.append(item)
                if len(out) >= stop:
                    break
        return out[op.offset : stop]

    def _hit(self, mem: Memory, r: Recalled, wanted: Filter) -> SearchItem | None:
        parsed = parse_id(r.id)
        if parsed is None:
            return None  # a memory written into the store some other way
        namespace, key, _ = parsed
        row = mem.store.state(r.id)
        if row is None or not row[1]:
            return None  # an earlier version of a key (superseded), or a deleted one
        st = row[0]
        item = _item(namespace, key, st, r.status, r.ask_first, r.score, r.ask_about)
        if r.why_not is not None:
            item.value["why_not"] = r.why_not.model_dump(mode="json")
        return item if wanted.match(item.value) else None

    def _list_namespaces(self, mem: Memory, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions: tuple[MatchCondition, ...] = op.match_conditions or ()
        scan: list[str] = []
        for c in conditions:
            if c.match_type == "prefix":
                lead = []
                for label in c.path:
                    if label == "*":
                        break
                    lead.append(label)
                if len(lead) > len(scan):
                    scan = lead
        seen: set[tuple[str, ...]] = set()
        live: set[tuple[str, ...]] = set()
        for namespace, _, sid in _latest(mem, namespace_prefix(scan)):
            if namespace in live:
                continue
            seen.add(namespace)
            row = mem.store.state(sid)
            if row is not None and row[1]:
                live.add(namespace)
        found = [
            ns
            for ns in live
            if all(namespace_matches(c.match_type, c.path, ns) for c in conditions)
        ]
        if op.max_depth is not None:
            found = list({ns[: op.max_depth] for ns in found})
        found.sort()
        return found[op.offset : op.offset + op.limit]

    # ---- writing --------------------------------------------------------------------------

    def _put(
        self, mem: Memory, namespace: tuple[str, ...], key: str, value: Mapping[str, Any]
    ) -> None:
        if not isinstance(value, Mapping):
            raise invalid("value", f"a value is a mapping, not {type(value).__name__}")
        fields = dict(value)
        status = fields.pop("status", None)
        if status is not None and status not in STATUSES:
            raise invalid(
                "value.status",
                f"{status!r}: 'status' is stategraph's grade of a memory ({', '.join(STATUSES)}), "
                "given back by get and search; an action's progress is 'action_status' "
                "('pending' or 'executed')",
            )
        for given in ("ask_first", "ask_about", "why_not"):  # read back, never written
            fields.pop(given, None)
        text = fields.pop("text", "")
        kind = fields.pop("kind", "fact")
        if not isinstance(text, str):
            raise invalid("value.text", "is a string: the memory's text")
        if not isinstance(kind, str):
            raise invalid("value.kind", "is a string: fact, belief, plan, action...")
        refs: dict[str, Any] = {
            f: fields.pop(f) for f in ("because", "unless", "context") if f in fields
        }
        action_status = fields.pop("action_status", None)
        try:
            json.dumps(fields, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise invalid("value", f"must be JSON: {exc}") from None

        now = datetime.now(UTC)
        current = self._current(mem, namespace, key)
        version = 1 if current is None else current[0] + 1
        replaces = current[1] if current is not None and current[3] else None
        created = now.isoformat()
        if replaces is not None and current is not None:
            created = current[2].metadata.get(_META, {}).get("created_at", created)
        sid = state_id(namespace, key, version)
        meta: dict[str, Any] = {"value": fields, "created_at": created, **refs}
        state: dict[str, Any] = {
            "id": sid,
            "kind": kind,
            "text": text,
            "metadata": {_META: meta},
            "created_at": now,
            "session": _session(namespace),
        }
        st = validated(State, state, "memory")
        kind_policy = mem.policy.of(st)
        if action_status is not None:
            if not kind_policy.action:
                raise invalid("value.action_status", f"only an action has one, not a {kind}")
            st = validated(State, {**state, "status": action_status}, "memory")
        because = _alternatives(self, mem, namespace, refs.get("because"))
        unless = _refs(self, mem, namespace, refs.get("unless", ()), "unless")
        context = _refs(self, mem, namespace, refs.get("context", ()), "context")
        st, justs = written(mem.policy, st, because, unless, context)
        if current is not None and replaces is not None and _same(mem, current[2], st, justs):
            return  # the memory as it stands: superseding it would only unsettle its dependents
        if replaces is not None:
            supersede = validated(Supersession, {"id": replaces, "with": st}, "memory")
            change = Change(supersede=(supersede,), add_justifications=tuple(justs))
        else:
            change = Change(assert_=(st,), add_justifications=tuple(justs))
        mem.revise(change)

    def _delete(self, mem: Memory, namespace: tuple[str, ...], key: str) -> None:
        found = self._current(mem, namespace, key)
        if found is not None and found[3]:
            mem.retract(found[1])


def _session(namespace: tuple[str, ...]) -> str:
    """The session a memory is written in: the graph's thread when it is written inside a
    running graph (``configurable.thread_id``), else its namespace. A grouping hint for
    candidate proposal: a memory nothing relates to a fact rests on its session's facts."""
    try:
        from langgraph.config import get_config

        thread = get_config().get("configurable", {}).get("thread_id")
    except (ImportError, RuntimeError):
        thread = None
    if thread is not None:
        return "thread:" + "".join(c for c in str(thread) if c.isprintable())[:200]
    return "namespace:" + "/".join(namespace)[:200]


def _same(mem: Memory, old: State, new: State, justs: Sequence[Justification]) -> bool:
    """Whether ``new`` (with ``justs``) is what ``old`` already is: same text, kind, action
    status, fields and premises (the current versions of the keys it names)."""

    def content(st: State) -> tuple[Any, ...]:
        meta = {k: v for k, v in st.metadata.get(_META, {}).items() if k != "created_at"}
        rest = {k: v for k, v in st.metadata.items() if k != _META}
        return (st.text, st.kind, st.status, st.atoms, meta, rest)

    def basis(js: Iterable[Justification]) -> set[tuple[Any, ...]]:
        return {
            (j.premises, j.unless, j.origin)
            for j in js
            if j.origin in (Origin.declared, Origin.recovered)
        }

    return content(old) == content(new) and basis(justs) == basis(mem.store.justifications(old.id))


def _grade(
    mem: Memory,
    st: State,
    active: bool,
    truth: Truth,
    scope: int | None = 0,
    doubts: Doubts | None = None,
) -> tuple[str, str | None, str | None]:
    """A memory's status and, in doubt or resting on doubt, its ``ask_first`` and the
    memory its answer settles (:func:`stategraph.recall.grade`); the question quotes nothing
    outside the memory's scope: its namespace, or the first ``scope`` labels of it that the
    store declared one user's."""
    labels = st.id.split("/")[:-1]
    prefix = "".join(f"{label}/" for label in (labels[:scope] if scope else labels)) or None
    doubts = Doubts(mem.store) if doubts is None else doubts
    status, ask, _, about = grade(mem, st, active, truth, doubts, prefix=prefix)
    return status, ask, about


def _item(
    namespace: tuple[str, ...],
    key: str,
    st: State,
    status: str,
    ask: str | None,
    score: float | None = None,
    about: str | None = None,
) -> SearchItem:
    """The item LangGraph gets for a memory (``get`` answers it as a plain ``Item``). A
    memory resting on doubt names, in ``ask_about``, the memory in doubt its question
    settles (``{"namespace": [...], "key": ...}``, ``{"id": ...}`` for one written some
    other way, None for one outside the memory's scope)."""
    meta = st.metadata.get(_META, {})
    value: dict[str, Any] = {**meta.get("value", {}), "text": st.text, "kind": st.kind}
    for f in ("because", "unless", "context"):
        if f in meta:
            value[f] = meta[f]
    if st.status is not None:
        value["action_status"] = st.status.value
    value["status"] = status
    if ask is not None:
        value["ask_first"] = ask
    if status == "rests_on_doubt":
        value["ask_about"] = _named(about)
    updated = st.created_at or datetime.now(UTC)
    created = datetime.fromisoformat(meta["created_at"]) if "created_at" in meta else updated
    return SearchItem(namespace, key, value, created, updated, score)


def _named(sid: str | None) -> dict[str, Any] | None:
    """A memory as an item's value names it: its namespace and key, its id when this mapping
    did not make it, None when it is not to be named (outside the reader's scope)."""
    if sid is None:
        return None
    parsed = parse_id(sid)
    if parsed is None:
        return {"id": sid}
    return {"namespace": list(parsed[0]), "key": parsed[1]}


def _latest(mem: Memory, prefix: str) -> Iterator[tuple[tuple[str, ...], str, str]]:
    """(namespace, key, id of its latest version) for every key under ``prefix``, in the
    order of their ids."""
    best: dict[tuple[tuple[str, ...], str], tuple[int, str]] = {}
    for sid in _ids_under(mem, prefix):
        parsed = parse_id(sid)
        if parsed is None:
            continue
        namespace, key, version = parsed
        if version > best.get((namespace, key), (0, ""))[0]:
            best[(namespace, key)] = (version, sid)
    for (namespace, key), (_, sid) in sorted(best.items()):
        yield namespace, key, sid


def _ids_under(mem: Memory, prefix: str) -> Iterator[str]:
    """The stored ids that start with ``prefix``, in a range read of the primary key."""
    store = mem.store
    # every id that starts with "a/b/" sorts after "a/b." + the last code point
    after: str | None = prefix[:-1] + "." + "\U0010ffff" if prefix else None
    while True:
        page = store.ids(limit=_PAGE, after=after)
        for sid in page:
            if sid.startswith(prefix) and not is_internal(sid):
                yield sid
            elif sid > prefix:
                return
        if len(page) < _PAGE:
            return
        after = page[-1]


def _ref(
    store: StategraphStore, mem: Memory, namespace: tuple[str, ...], ref: Any, where: str
) -> str:
    """The id of the memory a premise names: a key of the same namespace, or
    ``{"namespace": [...], "key": ...}``."""
    if isinstance(ref, str):
        target, key = namespace, ref
    elif isinstance(ref, Mapping) and set(ref) == {"namespace", "key"}:
        names = ref["namespace"]
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise invalid(where, "a namespace is a list of strings")
        target, key = tuple(names), ref["key"]
        if not isinstance(key, str):
            raise invalid(where, "a key is a string")
    else:
        raise invalid(
            where, f'a premise is a key or {{"namespace": [...], "key": ...}}, not {ref!r:.40}'
        )
    found = store._current(mem, target, key)
    if found is None or not found[3]:
        raise invalid(where, f"no memory {key!r} in namespace {target}: put it first")
    return found[1]


def _refs(
    store: StategraphStore, mem: Memory, namespace: tuple[str, ...], refs: Any, where: str
) -> list[str]:
    if isinstance(refs, (str, Mapping)):
        refs = [refs]
    if not isinstance(refs, (list, tuple)):
        raise invalid(where, "a key or a list of keys")
    return [_ref(store, mem, namespace, r, f"{where}.{i}") for i, r in enumerate(refs)]


def _alternatives(
    store: StategraphStore, mem: Memory, namespace: tuple[str, ...], because: Any
) -> list[AllOf]:
    """``because`` with keys turned into ids: read as every surface reads it
    (:func:`~stategraph.shapes.read_because`: one alternative, or a list of them; each a
    premise, a list of premises that must all hold, or ``{"all": [...], "unless": [...]}``),
    each premise a key of this namespace or ``{"namespace": [...], "key": ...}``."""

    def ref(value: Any, where: str) -> str:
        return _ref(store, mem, namespace, value, where)

    return list(read_because(because, ref))
