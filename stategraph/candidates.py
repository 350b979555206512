"""Candidate premises for a derived memory written without a basis.

An agent that writes "book a hotel near the Tokyo office" rarely says what the plan rests on.
Leaving it with no support would make it false from the start; trusting it forever would keep
it after the trip is called off. So at write time the engine proposes *candidate* premises
among the memories already stored that hold: the caller's ``context``, the premises of the
rule justifications the packs found, memories that share a grounded argument with it (the
same city, person, drug, date, amount), and its closest lexical neighbours. They become one
``recovered`` justification: the memory holds while they all hold, and when one of them stops
holding, logic settles the edge where it can, then the judge, else the memory goes to
confirmation (``docs/revision.md``). A wrong candidate costs a question, never a deletion; a
missing one can cost a silent miss, which is why recall comes first here.

Everything is found through the store's term index (:mod:`stategraph.terms`), newest postings
first, never by a scan: terms carried by more than ``max_df_share`` of the store (``user``,
``the``) say nothing and are skipped, and each term reads at most ``postings`` memories, so a
proposal costs the same at 10^3 and 10^6 memories. The choice is deterministic: the same
store contents and indexing order give the same candidates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from stategraph.model import TRUE, State, Truth
from stategraph.terms import memory_terms

__all__ = ["Candidate", "CandidateProposer", "TermIndex"]


class TermIndex(Protocol):
    """What proposal reads from a store."""

    def doc_count(self) -> int:
        """How many memories are indexed."""
        ...

    def term_df(self, terms: Iterable[str]) -> dict[str, int]:
        """Document frequency of each term."""
        ...

    def postings(self, term: str, limit: int) -> list[tuple[int, str, int]]:
        """The newest ``limit`` memories with a term: ``(seq, id, lexical size)``."""
        ...

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        """Truth values of stored states."""
        ...

    def recent(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds, newest first."""
        ...


@dataclass(frozen=True, slots=True)
class Candidate:
    """One proposed premise.

    Attributes:
        id: the stored memory proposed.
        method: ``entity`` (shares a grounded argument), ``lexical`` (close wording) or
            ``recent`` (among the last memories written before it).
        score: the ranking score (higher first): the share of the new memory's argument
            weight it shares, plus its lexical similarity.
    """

    id: str
    method: str
    score: float


@dataclass(frozen=True)
class CandidateProposer:
    """Proposes candidate premises through a store's term index (``candidates.v1``).

    Args:
        k: at most this many candidates per memory, all methods together.
        lexical_floor: the least lexical similarity (an idf-weighted cosine of the two
            memories' gram sets, 0 to 1) for a lexical neighbour with no shared argument.
        max_df_share: terms carried by more than this share of the store (and by more than
            ``min_df_cap`` memories) are stop terms and skipped.
        min_df_cap: a store of a few memories never treats a term as a stop term below this.
        max_terms: the rarest lexical terms of the new memory that are looked up.
        postings: memories read per term (newest first).
        recent: this many of the facts written last that hold are candidates whatever their
            wording: an agent writes a conclusion while the fact that led to it is fresh,
            often in words that share nothing with it. Facts only: a derived memory taken as
            a candidate by recency alone would chain every memory to the one before it.
        recent_kinds: the kinds taken by recency (the exogenous kinds of the memory's policy).
        blocker_floor: the least score for a memory to get a new fact as a candidate
            blocker (:meth:`blockers`): a new fact puts in question only what it is close to.
    """

    k: int = 8
    lexical_floor: float = 0.1
    max_df_share: float = 0.05
    min_df_cap: int = 50
    max_terms: int = 48
    postings: int = 64
    recent: int = 2
    recent_kinds: frozenset[str] = frozenset({"fact"})
    blocker_floor: float = 0.15

    name = "stategraph.candidates.v1"

    def blockers(self, index: TermIndex, fact: State) -> list[Candidate]:
        """The memories a new fact may defeat: its close neighbours, never its mere
        contemporaries (``blocker_floor`` on the score, no ``recent`` slots)."""
        found = self.propose(index, fact, recent=0)
        return [c for c in found if c.score >= self.blocker_floor]

    def propose(
        self,
        index: TermIndex,
        state: State,
        exclude: Iterable[str] = (),
        limit: int | None = None,
        recent: int | None = None,
    ) -> list[Candidate]:
        """The best candidates for ``state`` among the indexed memories that hold now.

        Args:
            index: the store.
            state: the new memory (its text and grounded atoms).
            exclude: ids never to propose (the state itself, candidates already chosen).
            limit: at most this many (default ``k``).
            recent: recent memories to include whatever their score (default ``recent``).
        """
        limit = self.k if limit is None else limit
        recent = self.recent if recent is None else recent
        terms = memory_terms(state.text, tuple(state.atoms))
        if limit <= 0 or not terms:
            return []
        n = index.doc_count()
        df = index.term_df(terms)
        cap = max(self.min_df_cap, self.max_df_share * n)
        idf = {t: math.log((1 + n) / (1 + d)) + 1.0 for t, d in df.items() if d <= cap}
        skip = set(exclude) | {state.id}
        doc: dict[str, tuple[int, str, int]] = {}  # per memory met, its posting
        entity: dict[str, float] = {}
        lexical: dict[str, float] = {}

        # The loops below run over every posting read (up to 64 per term, ~50 terms): they
        # stay plain (local lookups, one store per posting) as they are most of the cost.
        args = sorted(t for t in idf if t.startswith("a:"))
        arg_weight = sum(idf[t] for t in terms if t.startswith("a:") and t in idf) or 1.0
        for t in args:
            share = idf[t] / arg_weight
            for posting in index.postings(t, self.postings):
                sid = posting[1]
                if sid not in skip:
                    entity[sid] = entity.get(sid, 0.0) + share
                    doc[sid] = posting

        grams = [t for t in terms if t.startswith("g:")]
        # Unseen grams are as rare as a gram can be: they weigh in the new memory's norm.
        top = math.log(1 + n) + 1.0
        norm = math.sqrt(sum(idf.get(t, top) ** 2 for t in grams)) if grams else 0.0
        looked = sorted((t for t in grams if t in idf), key=lambda t: (df[t], t))[: self.max_terms]
        get = lexical.get
        for t in looked:
            w = idf[t] ** 2
            for posting in index.postings(t, self.postings):
                sid = posting[1]
                if sid not in skip:
                    lexical[sid] = get(sid, 0.0) + w
                    doc[sid] = posting
        if norm:
            scale = norm * (norm / math.sqrt(len(grams)))  # the norm times its rms
            sqrt = math.sqrt
            lexical = {
                sid: dot / (scale * sqrt(max(doc[sid][2], 1))) for sid, dot in lexical.items()
            }
        seq = {sid: p[0] for sid, p in doc.items()}

        found = {s for s in entity} | {s for s, v in lexical.items() if v >= self.lexical_floor}
        latest = []
        if recent:
            # newest first; read a few more than needed, as some may not hold or be excluded
            for s, sid, _size in index.recent(recent + len(skip) + 4, self.recent_kinds):
                if sid not in skip:
                    seq.setdefault(sid, s)
                    latest.append(sid)

        scores: dict[str, float] = {}

        def score(s: str) -> float:
            found_ = scores.get(s)
            if found_ is None:
                found_ = scores[s] = round(entity.get(s, 0.0) + lexical.get(s, 0.0), 6)
            return found_

        # Only the best ``limit`` that hold can be picked: truth values are read down the
        # ranking, a batch at a time, until that many hold (the recent ones with the first).
        order = sorted(found, key=lambda s: (-score(s), -seq[s], s))
        holding: set[str] = set()
        ranked: list[str] = []
        asked = set(latest)
        step = 2 * limit
        for i in range(0, max(len(order), 1), step):
            batch = order[i : i + step]
            asked.update(batch)
            holding.update(s for s, v in index.truths(asked).items() if v is TRUE)
            asked = set()
            ranked += [s for s in batch if s in holding]
            if len(ranked) >= limit:
                break
        latest = [s for s in latest if s in holding][:recent]
        # the recent memories keep their slots: the best-scored fill the rest
        picked = set(ranked[: max(0, limit - len(set(latest) - set(ranked[:limit])))])
        picked.update(latest[:limit])
        chosen = sorted(picked, key=lambda s: (-score(s), -seq[s], s))[:limit]
        return [Candidate(s, _method(s, entity, found), score(s)) for s in chosen]


def _method(sid: str, entity: dict[str, float], found: set[str]) -> str:
    if sid in entity:
        return "entity"
    return "lexical" if sid in found else "recent"
