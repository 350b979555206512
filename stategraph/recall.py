"""Recall: the memories that answer a question, each with whether it can be relied on.

Ranking is the full-text index's (:mod:`stategraph.text.fulltext`: BM25 on SQLite, ``ts_rank_cd``
on PostgreSQL), over the query's words and the arguments of the atoms it grounds to. What is
returned is graded by the truth maintenance, never by the ranking:

- ``holds``: the memory holds now;
- ``rests_on_doubt``: it holds, but every support it has passes through a memory in doubt
  (:mod:`stategraph.review.waiting`): a plan derived from a belief a change put in question
  waits for the belief to be settled, and is asked about then;
- ``needs_confirmation``: a revision flagged it and no person has settled it yet
  (:mod:`stategraph.store.review_queue`);
- ``undefined``: its value is undecided;
- ``invalidated``: it does not hold (retracted, superseded, or its support is gone); only
  returned when asked for, with its :meth:`why_not <stategraph.memory.Memory.why_not>`.

A memory in doubt or resting on one (the middle three) always carries ``ask_first``: the
question to put to the user before relying on it, in the memory's language, naming what
changed since it was written; for one that rests on doubt, the question about the memory in
doubt it rests on, which settles both. Settle the answer with
:meth:`Memory.confirm <stategraph.memory.Memory.confirm>` or
:meth:`Memory.reject <stategraph.memory.Memory.reject>`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from stategraph.engine.explain import WhyNot
from stategraph.errors import InvalidInputError, StategraphError
from stategraph.grounding.terms import argument_terms
from stategraph.model import Entry, State, Truth, check_text
from stategraph.review.questions import ask_first, ask_first_waiting, basis_in_doubt
from stategraph.review.waiting import Doubts, flag_of
from stategraph.store.asof import PastStore
from stategraph.store.sqlite import Store
from stategraph.text import fulltext

if TYPE_CHECKING:
    from stategraph.embedder import Embedder


class Memory(Protocol):
    """What recall reads of a :class:`~stategraph.memory.Memory` (which calls down into this
    module: recall never imports it back)."""

    @property
    def store(self) -> Store | PastStore:
        """The store (or the past's reads, for a recall as of a revision)."""
        ...

    @property
    def grounder(self) -> str | None:
        """The grounder queries are grounded with."""
        ...

    def why_not(self, state_id: str) -> WhyNot:
        """What stops each justification of a state."""
        ...


__all__ = [
    "MAX_K",
    "MAX_QUERY_CHARS",
    "RERANK_DEPTH",
    "Recalled",
    "Status",
    "ask_first",
    "basis_in_doubt",
    "grade",
    "recall",
]

RERANK_DEPTH = 50
"""How many of the lexical best an embedding rerank reorders (at least ``k``):
:mod:`stategraph.rerank`."""

MAX_K = 1000
"""The most memories one recall returns."""

MAX_QUERY_CHARS = 4000
"""The longest query (characters); a longer one is refused, never cut."""

Status = Literal["holds", "rests_on_doubt", "needs_confirmation", "undefined", "invalidated"]


class Recalled(BaseModel):
    """One recalled memory.

    Attributes:
        id: the memory.
        kind: its kind.
        text: its text.
        status: ``holds``, ``rests_on_doubt``, ``needs_confirmation``, ``undefined`` or
            ``invalidated``.
        score: the full-text rank (higher is a better match; comparable within one recall);
            with an embedding rerank, the cosine similarity of the memory to the query.
        reason: why it was returned and what its status rests on, in a sentence.
        ask_first: for a memory in doubt or resting on one, the question to ask the user before
            relying on it.
        ask_about: the memory whose answer settles ``ask_first``, to confirm or reject: the
            memory itself when it is in doubt, the memory in doubt it rests on when it rests
            on doubt (None when there is no question, or when that memory is outside the
            reader's namespace: it is never named there).
        why_not: for an invalidated memory, why it does not hold.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    kind: str
    text: str
    status: Status
    score: float
    reason: str
    ask_first: str | None = None
    ask_about: str | None = None
    why_not: WhyNot | None = None


def _check(query: object, k: object, kinds: object) -> tuple[str, list[str] | None]:
    """The query and the kinds asked for (a text is one kind), or InvalidInputError naming
    each argument that is wrong: a text that is no Unicode (a lone surrogate) is refused
    here, as where data enters (:func:`~stategraph.model.check_text`)."""
    errors: list[tuple[str, str]] = []
    if not isinstance(query, str) or not query.strip():
        errors.append(("query", "must be a non-empty text"))
    elif len(query) > MAX_QUERY_CHARS:
        errors.append(
            ("query", f"is {len(query)} characters; at most {MAX_QUERY_CHARS}: ask a shorter one")
        )
    else:
        errors += _unicode("query", query)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        errors.append(("k", f"must be a whole number from 1 to {MAX_K}"))
    wanted: list[str] | None = None
    if kinds is not None:
        listed = isinstance(kinds, Iterable) and not isinstance(kinds, str)
        given = list(kinds) if listed else [kinds]  # type: ignore[call-overload]
        for kind in given:
            if not isinstance(kind, str) or not kind:
                errors.append(("kinds", f"are names of kinds (fact, belief...), not {kind!r:.40}"))
            else:
                errors += _unicode("kinds", kind)
        wanted = [kind for kind in given if isinstance(kind, str)]
    if errors:
        raise InvalidInputError("recall", errors)
    assert isinstance(query, str)
    return query, wanted


def _unicode(where: str, text: str) -> list[tuple[str, str]]:
    try:
        check_text(text, where)
    except ValueError as exc:
        return [(where, str(exc))]
    return []


_NOT_WIDENED = frozenset({"user"})
"""Constants a query is not widened by: the speaker (``I``, ``my``, 我, 用户), whom nearly
every memory is about, tells a search nothing."""


def query_tokens(mem: Memory, query: str) -> list[str]:
    """The query's tokens: its words; the things it names (places, people, foods...) and its
    dates and amounts, as grounding normalises them (``深圳`` and "Shenzhen" both name
    ``shenzhen``); and the other names, in either language, of each thing it names, from the
    grounding lexicons (:func:`stategraph.grounding.named.forms`): "dog" also looks for 狗.

    With the built-in grounder, what the query names is read from its lexicons and value
    patterns alone (:func:`stategraph.grounding.named.named`), without building the spaCy
    pipeline, and a Chinese query's words are looked for as every short part of its runs
    (:func:`stategraph.text.fulltext.query_words`), without loading jieba: recall starts in a
    fraction of a second in either language.
    Another grounder grounds the query, and its atoms' arguments count as named."""
    from stategraph.grounding import DEFAULT_GROUNDER, get_grounder
    from stategraph.grounding.grounder import is_builtin
    from stategraph.grounding.named import forms, named

    grounder = mem.grounder or DEFAULT_GROUNDER
    if is_builtin(grounder):
        said = named(query)
        constants, values = said.constants, said.values
    else:
        constants, values = (), ()
        try:
            grounding = get_grounder(grounder).ground(query)
            atoms = [str(a.symbol) for a in grounding.atoms if not a.hedged]
            constants = (*(t[2:] for t in sorted(argument_terms(atoms))), *grounding.unread_values)
        except StategraphError:  # a query the grounder cannot read is still searched by words
            pass
    toks = fulltext.query_words(query) + fulltext.query_words(" ".join((*constants, *values)))
    other = [f for c in dict.fromkeys(constants) if c not in _NOT_WIDENED for f in forms(c)]
    return toks + fulltext.name_tokens(other)


def recall(
    mem: Memory,
    query: str,
    k: int = 10,
    *,
    kinds: Sequence[str] | None = None,
    include_doubtful: bool = True,
    include_invalidated: bool = False,
    id_prefix: str | None = None,
    embedder: Embedder | None = None,
) -> list[Recalled]:
    """See :meth:`Memory.recall <stategraph.memory.Memory.recall>`. ``id_prefix``: only
    memories whose id starts with it (a LangGraph namespace,
    :mod:`stategraph.integrations.langgraph`), ranked among themselves."""
    query, kinds = _check(query, k, kinds)
    if kinds == []:
        return []
    store = mem.store
    then = store if isinstance(store, PastStore) else None  # Memory.as_of(...).recall
    fulltext.backfill(store if then is None else then.present)
    toks = query_tokens(mem, query)
    depth = k if embedder is None else min(max(k, RERANK_DEPTH), MAX_K)
    if not include_doubtful:  # what rests on doubt is known only once graded: read more
        depth = min(2 * depth, MAX_K)
    if then is None:
        hits = fulltext.search(
            store,
            toks,
            depth,
            kinds=kinds,
            doubtful=include_doubtful,
            invalidated=include_invalidated,
            prefix=id_prefix,
        )
    else:
        hits = _past_hits(
            then, toks, depth, kinds, include_doubtful, include_invalidated, id_prefix
        )
    states = {sid: store.state(sid) for sid, _ in hits}
    hits = [(sid, score) for sid, score in hits if states[sid] is not None]
    warning: str | None = None
    reranked = ""
    if embedder is not None:
        from stategraph.rerank import rerank

        texts = {sid: found[0].text for sid, found in states.items() if found is not None}
        hits, warning = rerank(store, embedder, query, hits, texts)
        reranked = "" if warning else f"; reranked by embedding similarity ({embedder.model})"
    out: list[Recalled] = []
    doubts = Doubts(store)
    for sid, score in hits:
        if len(out) == k:
            break
        found = states[sid]
        assert found is not None
        st, active, truth = found
        status, ask, said, about = grade(mem, st, active, truth, doubts, prefix=id_prefix)
        if status == "rests_on_doubt" and not include_doubtful:
            continue
        matched = fulltext.matched(toks, st.text, st.atoms)
        on = f"matched {', '.join(matched[:8])}" if matched else "matched the query"
        on += reranked if warning is None else f"; {warning}"
        out.append(
            Recalled(
                id=sid,
                kind=st.kind,
                text=st.text,
                status=status,
                score=score,
                reason=f"{on}; {said}",
                ask_first=ask,
                ask_about=about,
                why_not=mem.why_not(sid) if status == "invalidated" else None,
            )
        )
    return out


def grade(
    mem: Memory,
    st: State,
    active: bool,
    truth: Truth,
    doubts: Doubts,
    *,
    prefix: str | None = None,
) -> tuple[Status, str | None, str, str | None]:
    """A memory's status, the question to ask before relying on it (None when it holds or
    is gone), what the status rests on, in words, and the memory whose answer settles the
    question (``Recalled.ask_about``): one grading for every surface that returns memories
    (recall, the LangGraph store).

    Args:
        mem: the memory (a past one for a recall as of a revision).
        st: the memory graded.
        active: whether it is active (not retracted or superseded).
        truth: its value.
        doubts: what is in doubt in the memory's store, read once for a whole recall
            (:class:`~stategraph.review.waiting.Doubts`).
        prefix: the reader's namespace: only memories whose id starts with it are quoted.
    """
    flag = flag_of(mem.store, st.id)
    if flag is not None or (active and truth is Truth.undefined):
        status: Status = "needs_confirmation" if flag is not None else "undefined"
        entry = flag[2] if flag is not None else None
        said = f"in doubt ({_cause(entry, status)}): ask before relying on it"
        return status, ask_first(mem, st, entry, prefix=prefix), said, st.id
    if active and truth is Truth.true:
        waits = doubts.waits_on(st.id)
        if not waits:
            return "holds", None, "holds", None
        ask = ask_first_waiting(mem, st, waits, prefix=prefix)
        if prefix and not waits[0].startswith(prefix):  # never named to another namespace
            return "rests_on_doubt", ask, "holds, but rests on a memory in doubt elsewhere", None
        said = f"holds, but rests on {waits[0]}, which is in doubt: ask about it first"
        return "rests_on_doubt", ask, said, waits[0]
    gone = "retracted or superseded" if not active else "its support is gone"
    return "invalidated", None, f"does not hold ({gone})", None


def _past_hits(
    then: PastStore,
    toks: list[str],
    k: int,
    kinds: Sequence[str] | None,
    doubtful: bool,
    invalidated: bool,
    prefix: str | None = None,
) -> list[tuple[str, float]]:
    """The best ``k`` matches whose status *then* is one asked for: the present index ranks
    every status, and the past's values filter (widening the search until ``k`` pass or
    every match was seen)."""
    queued = {f[0] for f in then.flags()}
    limit = max(4 * k, 50)
    while True:
        hits = fulltext.search(
            then.present, toks, limit, kinds=kinds, doubtful=True, invalidated=True, prefix=prefix
        )
        rows = {r[0]: r for r in then._rows([h[0] for h in hits], full=False)}
        kept = []
        for sid, score in hits:
            row = rows.get(sid)
            if row is None:  # written later
                continue
            active, truth = bool(row[3]), row[5]
            if not invalidated and not ((active and truth != "false") or sid in queued):
                continue
            if not doubtful and (truth == "undefined" or sid in queued):
                continue
            kept.append((sid, score))
        if len(kept) >= k or len(hits) < limit:
            return kept[:k]
        limit *= 4


def _cause(entry: Entry | None, status: str) -> str:
    return entry.reason.cause if entry is not None else status
