"""The question to ask a person before relying on a memory in doubt, and the questions of the
review queue grouped by what changed.

A memory in doubt rests on something that changed: a fact replaced or withdrawn, a memory it
was derived from that no longer holds or is itself in doubt. Its question names only that:
what this memory rests on (:func:`basis_in_doubt`), each as it is now in the store, and asks
whether the memory still holds. It names a few of them, each cut to a bounded length, and
reads a few rows of the store, never the log: a revision that retracted a thousand facts
makes a thousand bounded questions, not a thousand copies of itself (issue 42). A memory of
another namespace than the reader's is never quoted.

A person answering the queue wants the questions by cause: "Since the Tokyo trip was
cancelled, do these still hold?" (:func:`review_groups`), one question per memory, in the
group of the first change it names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from stategraph.engine.graph import SupportGraph
from stategraph.model import Entry, Reason, State, Truth
from stategraph.review.waiting import flag_of
from stategraph.store.asof import PastStore
from stategraph.store.sqlite import Store
from stategraph.text.reversals import question

__all__ = [
    "MAX_NAMED",
    "MAX_QUOTED",
    "ReviewGroup",
    "ask_first",
    "ask_first_waiting",
    "basis_in_doubt",
    "review_groups",
]


class _Reads(Protocol):
    """What a question reads: a memory's store (or the past's, as of a revision)."""

    @property
    def store(self) -> Store | PastStore: ...


def _zh(text: str) -> bool:
    from stategraph.grounding import detect_language

    return detect_language(text) == "zh"


MAX_NAMED = 3
"""The most memories of its basis a question names (the others are counted)."""

MAX_QUOTED = 160
"""The most characters of one memory a question quotes (a longer text is cut, and marked)."""


def _replaced(entry: Entry | None) -> bool:
    """True for a fact a new fact may replace (:mod:`stategraph.reversal`: flagged at depth 0,
    the new fact undecided; what rests on it is flagged deeper)."""
    return (
        entry is not None
        and entry.reason.cause == "possibly_replaced"
        and entry.depth == 0
        and bool(entry.reason.undecided)
    )


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 1] + "…"


def basis_in_doubt(mem: _Reads, st: State, reason: Reason | None) -> list[str]:
    """What a memory in doubt rests on that no longer holds for sure, in order: what the
    revision that flagged it says it lost or waits on, else (undefined, never graded) what
    its justifications wait on now. Never the memory itself."""
    basis: list[str] = []
    if reason is not None:
        for lost in reason.lost:
            basis += [*lost.failed, *lost.blocked_by]
        basis += list(reason.undecided) + list(reason.cycle)
    if not basis:
        for j in mem.store.justifications(st.id):
            for p in (*j.premises, *j.unless):
                found = mem.store.state(p)
                if found is not None and found[2] is not Truth.true:
                    basis.append(p)
    return [b for b in dict.fromkeys(basis) if b != st.id]


def ask_first(
    mem: _Reads,
    st: State,
    entry: Entry | None,
    seq: int | None = None,
    *,
    prefix: str | None = None,
) -> str:
    """The question to ask before relying on a memory in doubt, in its language: what of its
    own basis changed, and whether it still holds.

    It names only what this memory rests on (:func:`basis_in_doubt`), each as it is now in
    the store (replaced, withdrawn, no longer holding, itself in doubt), at most
    :data:`MAX_NAMED` of them and each cut to :data:`MAX_QUOTED` characters: one bounded
    question per memory, which reads a few rows of the store and never the log, however large
    the revision that flagged it. A memory whose id does not start with ``prefix`` (another
    namespace than the reader's) is never quoted: the question says that something outside
    changed.

    Args:
        mem: the memory (its store; a past one for a recall as of a revision).
        st: the memory in doubt.
        entry: the flagging revision's entry for it (None: undefined, never graded).
        seq: the flagging revision (kept for callers; the question does not read the log).
        prefix: the reader's namespace: only memories whose id starts with it are quoted.
    """
    if _replaced(entry):  # a fact a new fact may replace: the reversal's own question
        assert entry is not None
        new = entry.reason.undecided[0]
        found = mem.store.state(new)
        if found is not None and not (prefix and not new.startswith(prefix)):
            return question(_quote(found[0].text or new), _quote(st.text))
    zh = _zh(st.text)
    basis = basis_in_doubt(mem, st, entry.reason if entry else None)[: 4 * MAX_NAMED]
    graph = mem.store.subgraph(basis, full=True) if basis else None
    if graph is not None and (direct := [b for b in basis if b in graph.inactive]):
        basis = direct  # what a change acted on itself, not what fell with it
    named, more = basis[:MAX_NAMED], len(basis) - MAX_NAMED
    earlier: list[str] = []
    since: list[str] = []
    hidden = 0
    for b in named:
        if graph is None or b not in graph.states or (prefix and not b.startswith(prefix)):
            hidden += 1
            continue
        old = _quote(graph.states[b].text or b)
        earlier.append(old)
        since.append(_what_became(mem, graph, b, old, prefix, zh))
    if hidden:
        since.append(
            f"本命名空间之外的{hidden}条记忆有变"
            if zh
            else f"{hidden} memory outside this namespace changed"
            if hidden == 1
            else f"{hidden} memories outside this namespace changed"
        )
    if more > 0:
        since.append(f"另有{more}条所依据的记忆有变" if zh else f"{more} more it rests on changed")
    text = _quote(st.text)
    before = " / ".join(earlier) or text
    if zh:
        return f"之前：“{before}”。此后：{'；'.join(since) or '情况有变'}。“{text}”还成立吗？"
    changes = "; ".join(since) or "something it rests on changed"
    return f'Earlier: "{before}". Since then {changes}. Does "{text}" still hold?'


def ask_first_waiting(
    mem: _Reads, st: State, waits: list[str], *, prefix: str | None = None
) -> str:
    """The question to ask before relying on a memory that holds but rests on memories in
    doubt (:meth:`stategraph.review.waiting.Doubts.waits_on`): the question about the nearest of
    them, which settles both. Rejecting that memory puts this one in question; confirming it
    leaves this one holding, with nothing more to ask.

    Args:
        mem: the memory (its store; a past one for a recall as of a revision).
        st: the memory that rests on doubt.
        waits: what it waits on, nearest first (never empty).
        prefix: the reader's namespace: only memories whose id starts with it are quoted.
    """
    first = waits[0]
    found = mem.store.state(first)
    zh = _zh(st.text)
    text = _quote(st.text)
    if found is None or (prefix and not first.startswith(prefix)):
        if zh:
            return f"“{text}”所依据的一条本命名空间之外的记忆尚待确认；请先确认它。"
        return (
            f'"{text}" rests on a memory outside this namespace that is in doubt; '
            "settle that one first."
        )
    flag = flag_of(mem.store, first)
    inner = ask_first(mem, found[0], flag[2] if flag is not None else None, prefix=prefix)
    basis = _quote(found[0].text or first)
    if zh:
        return f"“{text}”所依据的“{basis}”尚待确认。先问：{inner}"
    return f'"{text}" rests on "{basis}", which is in doubt. First: {inner}'


def _what_became(
    mem: _Reads, graph: SupportGraph, sid: str, old: str, prefix: str | None, zh: bool
) -> str:
    """What became of one memory of a basis, in words, from the store as it is."""
    if sid in graph.inactive:
        by = graph.inactive[sid]
        if by:
            found = mem.store.state(by)
            if found is not None and not (prefix and not by.startswith(prefix)):
                new = _quote(found[0].text or by)
                return f"“{old}”改为“{new}”" if zh else f'"{old}" was replaced by "{new}"'
            return f"“{old}”已被替换" if zh else f'"{old}" was replaced'
        return f"“{old}”已撤回" if zh else f'"{old}" was withdrawn'
    value = graph.value(sid)
    if value is Truth.undefined:
        return f"“{old}”未定" if zh else f'"{old}" became uncertain'
    if value is Truth.false:
        return f"“{old}”不再成立" if zh else f'"{old}" no longer holds'
    return f"“{old}”的依据有变" if zh else f'what "{old}" rests on changed'


@dataclass(frozen=True)
class ReviewGroup:
    """The memories waiting for review because of one change, asked together.

    Attributes:
        cause: the memory the change acted on (or that stopped holding), or None for those
            whose basis names nothing that changed (a cycle, the depth bound).
        since: what became of it, in words ("the Tokyo trip" was replaced by ...).
        ids: the memories waiting because of it, in queue order.
        question: one question for a person about all of them.
    """

    cause: str | None
    since: str
    ids: tuple[str, ...]
    question: str


def review_groups(
    mem: _Reads, flagged: Iterable[tuple[State, Reason | None]], prefix: str | None = None
) -> list[ReviewGroup]:
    """The memories waiting for review, grouped by the first change each names: each memory
    is asked about once, in one group ("Since ..., do these still hold? 1. ... 2. ...").

    Args:
        mem: the memory.
        flagged: each memory waiting, with the reason it waits (None: never graded).
        prefix: the reader's namespace: only memories whose id starts with it are quoted.
    """
    groups: dict[str | None, list[State]] = {}
    for st, reason in flagged:
        basis = basis_in_doubt(mem, st, reason)[: 4 * MAX_NAMED]
        graph = mem.store.subgraph(basis) if basis else None
        direct = [b for b in basis if graph is not None and b in graph.inactive]
        named = direct or basis
        cause = named[0] if named else None
        groups.setdefault(cause, []).append(st)
    out = []
    for cause, states in groups.items():
        zh = _zh(states[0].text)
        since = _since(mem, cause, prefix, zh)
        items = "".join(
            f" {i}. “{_quote(s.text)}”" if zh else f' {i}. "{_quote(s.text)}"'
            for i, s in enumerate(states, 1)
        )
        question = (
            f"{since}，这些还成立吗？{items}"
            if zh
            else f"Since {since}, do these still hold?{items}"
        )
        out.append(ReviewGroup(cause, since, tuple(s.id for s in states), question))
    return out


def _since(mem: _Reads, cause: str | None, prefix: str | None, zh: bool) -> str:
    if cause is None:
        return "情况有变" if zh else "something they rest on changed"
    if prefix and not cause.startswith(prefix):
        return "本命名空间之外的一条记忆有变" if zh else "a memory outside this namespace changed"
    graph = mem.store.subgraph([cause], full=True)
    old = _quote(graph.states[cause].text or cause) if cause in graph.states else cause
    return _what_became(mem, graph, cause, old, prefix, zh)
