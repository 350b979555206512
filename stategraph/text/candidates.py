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

Everything is found through the store's term index (:mod:`stategraph.grounding.terms`),
newest postings first, never by a scan: terms carried by more than ``max_df_share`` of the
store (``user``,
``the``) say nothing and are skipped, and each term reads at most ``postings`` memories, so a
proposal costs the same at 10^3 and 10^6 memories. The choice is deterministic: the same
store contents and indexing order give the same candidates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from stategraph.grounding.terms import memory_terms
from stategraph.model import Justification, State, Truth
from stategraph.values import TRUE, UNDEFINED

__all__ = [
    "UNRELATED_METHODS",
    "Candidate",
    "CandidateProposer",
    "CandidateProposerV1",
    "Proposer",
    "TermIndex",
    "holding_prefix",
    "proposer_from_config",
]


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

    def kinds(self, ids: Iterable[str]) -> dict[str, str]:
        """Kinds of stored states."""
        ...

    def recent(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds, newest first."""
        ...

    def holding(self, limit: int, kinds: Iterable[str]) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds that hold now,
        newest first."""
        ...

    def latest(self, limit: int) -> list[tuple[int, str, int, str]]:
        """The ``limit`` most recently indexed memories: ``(seq, id, lexical size, kind)``,
        newest first."""
        ...

    def in_session(
        self, session: str, limit: int, kinds: Iterable[str]
    ) -> list[tuple[int, str, int]]:
        """The ``limit`` most recently indexed memories of these kinds written in a session
        that hold now, newest first."""
        ...

    def justifications_for(self, heads: Iterable[str]) -> list[Justification]:
        """The stored justifications of these heads."""
        ...


UNRELATED_METHODS = frozenset({"recent", "few_facts", "session", "turn"})
"""The methods that propose a memory for no relation found to the new one (it was written
last, in the same session or turn, or it is one of few facts): a candidate, so that it is
asked about, but never offered to a judge as a basis, where being a contemporary says nothing
and an injected "cite it" would be obeyed (SECURITY.md)."""


class Proposer(Protocol):
    """What proposes candidate premises (:class:`CandidateProposer`, or a logged older one)."""

    name: ClassVar[str]

    @property
    def k(self) -> int:
        """At most this many candidates found per memory."""
        ...

    def config(self) -> dict[str, object]:
        """What the log records, enough to build the same proposer for a replay."""
        ...

    def propose(
        self, index: TermIndex, state: State, exclude: Iterable[str] = (), limit: int | None = None
    ) -> list[Candidate]:
        """The candidates for ``state`` (see :meth:`CandidateProposer.propose`)."""
        ...

    def blockers(self, index: TermIndex, fact: State) -> list[Candidate]:
        """The memories a new fact may defeat."""
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
class CandidateProposerV1:
    """The first proposer (``candidates.v1``): kept so that logs written with it replay.

    It cut at a lexical floor and gave two slots to the newest facts, which left the only
    fact on a subject out whenever it was worded differently and not among the last two
    written; :class:`CandidateProposer` ranks instead.

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

    name: ClassVar[str] = "stategraph.candidates.v1"

    def config(self) -> dict[str, object]:
        """What the log records of this proposer."""
        return {"name": self.name, "k": self.k, "lexical_floor": self.lexical_floor}

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


@dataclass(frozen=True)
class CandidateProposer:
    """Proposes candidate premises, recall first (``candidates.v2``).

    A premise left out of a memory's candidates is a silent keep waiting to happen: when it
    goes, nothing asks about the memory. A wrong candidate costs one question. So:

    - **Few facts: all of them.** While the store holds at most ``k`` facts (the exogenous
      kinds), every one that holds is a candidate, whatever its wording: the fact a
      conversation is about is often the one that shares no word with what the agent derived
      from it ("works from Lisbon until August" and "becomes a Portuguese tax resident").
    - **Beyond that, a ranking, never a floor.** Every holding memory met through the term
      index is scored by the share of the new memory's grounded arguments it names, plus an
      idf-weighted cosine of the two memories' grams (common grams weigh little, rare ones a
      lot, and none is dropped: in a store of five memories nothing is "common"), plus its
      nearness in the history for the facts written last. The best ``k`` are the candidates.

    Everything is read through indexes: the newest holding facts (``k + 1`` of them, to know
    whether there are more than ``k``), and at most ``postings`` memories for each of the
    ``max_terms`` rarest terms of the new memory. The cost of a proposal does not grow with
    the store. The choice is deterministic: the same store contents and indexing order give
    the same candidates.

    Args:
        k: at most this many candidates found per memory (the caller's ``context`` comes on
            top). Also the number of holding facts up to which every fact is a candidate.
        max_terms: the rarest lexical terms of the new memory that are looked up.
        postings: memories read per term (newest first).
        near: this many of the facts written last earn a nearness score, the newest most: an
            agent writes a conclusion while the fact that led to it is fresh.
        near_weight: the nearness score of the newest fact (it falls linearly to 0 over
            ``near`` facts); 1.0 is what a memory naming all the same arguments scores. Set
            between what one rare shared word scores in two long sentences (about 0.03) and
            what a word most memories carry does (under 0.005): wording that says something
            comes first, the nearest facts fill the slots it leaves.
        exogenous: the kinds counted as facts (the exogenous kinds of the memory's policy).
    """

    k: int = 8
    max_terms: int = 48
    postings: int = 64
    near: int = 8
    near_weight: float = 0.02
    exogenous: frozenset[str] = frozenset({"fact"})

    name: ClassVar[str] = "stategraph.candidates.v2"

    def config(self) -> dict[str, object]:
        """What the log records of this proposer, enough to build it again for a replay."""
        return {
            "name": self.name,
            "k": self.k,
            "max_terms": self.max_terms,
            "postings": self.postings,
            "near": self.near,
            "near_weight": self.near_weight,
            "exogenous": sorted(self.exogenous),
        }

    def blockers(self, index: TermIndex, fact: State) -> list[Candidate]:
        """The memories a new fact may defeat: the ``2 k`` that hold and share the most with
        it, arguments and wording (or are undefined: a memory already in doubt is reported
        again with the new cause). Ranked, with only the least bar of relation: a rare word
        in common (``near_weight``, what one rare shared word scores in two long
        sentences). "Hoa will look after Biscuit at home" shares one name with "Biscuit goes
        to the kennels", and defeats it; "the user's sister plays the cello" shares only
        common grams with a plan for Tokyo, and is never asked about it. The caller keeps
        those whose support is only a stand-in."""
        similar = _Similarity.of(self, index, fact, {fact.id})
        related = similar.ranked(least=self.near_weight)
        chosen = holding_prefix(index, related, 2 * self.k, in_doubt=True)
        return [Candidate(s, similar.method(s), similar.score(s)) for s in chosen]

    def propose(
        self,
        index: TermIndex,
        state: State,
        exclude: Iterable[str] = (),
        limit: int | None = None,
    ) -> list[Candidate]:
        """The candidates for ``state`` among the indexed memories that hold now.

        Args:
            index: the store.
            state: the new memory (its text and grounded atoms).
            exclude: ids never to propose (the state itself, candidates already chosen).
            limit: at most this many beyond the recall of every fact (default ``k``).
        """
        limit = self.k if limit is None else limit
        skip = set(exclude) | {state.id}
        # newest first; k + 1 beyond the skipped ones tells whether there are more than k
        facts = index.holding(self.k + len(skip) + 1, self.exogenous)
        few = len({f[1] for f in facts} - skip) <= self.k
        facts = [f for f in facts if f[1] not in skip]
        similar = _Similarity.of(self, index, state, skip)
        for i, (seq, sid, _size) in enumerate(facts[: self.near]):
            similar.seq.setdefault(sid, seq)
            similar.near[sid] = round(self.near_weight * (1 - i / self.near), 6)
        if few:
            fact_ids = {f[1] for f in facts}
            others = [s for s in similar.ranked() if s not in fact_ids]
            chosen = [f[1] for f in facts]
            chosen += holding_prefix(index, others, max(0, limit - len(chosen)))
        else:
            chosen = holding_prefix(index, similar.ranked(), limit)
        chosen.sort(key=similar.order)
        return [Candidate(s, similar.method(s, recalled=few), similar.score(s)) for s in chosen]


@dataclass
class _Similarity:
    """The scores of the memories met through the term index, for one new memory."""

    entity: dict[str, float]
    lexical: dict[str, float]
    seq: dict[str, int]
    near: dict[str, float]

    @classmethod
    def of(
        cls, proposer: CandidateProposer, index: TermIndex, state: State, skip: set[str]
    ) -> _Similarity:
        """Score every memory that shares an argument or a gram with ``state``.

        The argument share is the idf weight of the shared arguments over all of the new
        memory's; the lexical score is the idf-weighted cosine of the two gram sets. An idf
        of ``log((1 + n) / (1 + df)) + 1`` shrinks a gram most memories carry towards 1 and
        never to 0, so in a small store every shared word still counts.
        """
        out = cls({}, {}, {}, {})
        terms = memory_terms(state.text, tuple(state.atoms))
        if not terms:
            return out
        n = index.doc_count()
        df = index.term_df(terms)
        idf = {t: math.log((1 + n) / (1 + d)) + 1.0 for t, d in df.items()}
        sizes: dict[str, int] = {}
        args = sorted(t for t in idf if t.startswith("a:"))
        arg_weight = sum(idf[t] for t in args) or 1.0
        for t in args:
            share = idf[t] / arg_weight
            for seq, sid, size in index.postings(t, proposer.postings):
                if sid not in skip:
                    out.entity[sid] = out.entity.get(sid, 0.0) + share
                    out.seq[sid], sizes[sid] = seq, size
        grams = [t for t in terms if t.startswith("g:")]
        top = math.log(1 + n) + 1.0  # an unseen gram is as rare as a gram can be
        norm = math.sqrt(sum(idf.get(t, top) ** 2 for t in grams)) if grams else 0.0
        looked = sorted((t for t in grams if t in idf), key=lambda t: (df[t], t))
        dots: dict[str, float] = {}
        for t in looked[: proposer.max_terms]:
            w = idf[t] ** 2
            for seq, sid, size in index.postings(t, proposer.postings):
                if sid not in skip:
                    dots[sid] = dots.get(sid, 0.0) + w
                    out.seq[sid], sizes[sid] = seq, size
        if norm:
            scale = norm * (norm / math.sqrt(len(grams)))  # the norm times its rms
            out.lexical = {
                sid: dot / (scale * math.sqrt(max(sizes[sid], 1))) for sid, dot in dots.items()
            }
        return out

    def score(self, sid: str) -> float:
        """Arguments shared, plus wording, plus nearness (higher first)."""
        return round(
            self.entity.get(sid, 0.0) + self.lexical.get(sid, 0.0) + self.near.get(sid, 0.0), 6
        )

    def order(self, sid: str) -> tuple[float, int, str]:
        """Best score first, then the newest, then by id: a total order."""
        return (-self.score(sid), -self.seq.get(sid, 0), sid)

    def ranked(self, least: float = 0.0) -> list[str]:
        """Every memory met with a score above 0, and at least ``least``, best first."""
        met = {*self.entity, *self.lexical, *self.near}
        # the order's key, each score computed once (a fact meets a thousand memories)
        keyed = [
            (-sc, -self.seq.get(s, 0), s) for s in met if (sc := self.score(s)) > 0 and sc >= least
        ]
        keyed.sort()
        return [s for _, _, s in keyed]

    def method(self, sid: str, recalled: bool = False) -> str:
        """How a candidate was found: ``entity``, ``lexical``, ``recent`` (nearness alone),
        or ``few_facts`` (recalled as one of at most ``k`` facts, with nothing else)."""
        if sid in self.entity:
            return "entity"
        if self.lexical.get(sid, 0.0) > 0:
            return "lexical"
        return "few_facts" if recalled else "recent"


def holding_prefix(
    index: TermIndex, ranked: list[str], limit: int, in_doubt: bool = False
) -> list[str]:
    """The first ``limit`` of ``ranked`` that hold (``in_doubt``: or are undefined), reading
    truth values a batch at a time down the ranking, so only what can be picked is read."""
    wanted = (TRUE, UNDEFINED) if in_doubt else (TRUE,)
    out: list[str] = []
    step = max(2 * limit, 1)
    for i in range(0, len(ranked), step):
        if len(out) >= limit:
            break
        batch = ranked[i : i + step]
        truths = index.truths(batch)
        out += [s for s in batch if truths.get(s) in wanted][: limit - len(out)]
    return out


def proposer_from_config(config: dict[str, object]) -> Proposer:
    """The proposer a log entry's configuration names, for a replay.

    Raises:
        ValueError: for a proposer name this stategraph does not know.
    """
    name = config.get("name")
    fields: dict[str, Any] = {k: v for k, v in config.items() if k != "name"}
    if name == CandidateProposer.name:
        if "exogenous" in fields:
            fields["exogenous"] = frozenset(fields["exogenous"])
        return CandidateProposer(**fields)
    if name == CandidateProposerV1.name:
        return CandidateProposerV1(k=fields["k"], lexical_floor=fields["lexical_floor"])
    if name == "stategraph.candidates.v3":  # stategraph.text.evidence, which imports this module
        from stategraph.text.evidence import EvidenceProposer

        if "exogenous" in fields:
            fields["exogenous"] = frozenset(fields["exogenous"])
        # a log written before a fact-less session fell back on its derived memories
        fields["derived"] = tuple(sorted(fields.get("derived", ())))
        fields.setdefault("cover", None)  # a log written before facts were kept for coverage
        fields.setdefault("cover_facts", False)  # before only facts' units counted as covered
        return EvidenceProposer(**fields)
    if name == "scoped":  # stategraph.text.scoped, which imports this module
        from stategraph.text.scoped import ScopedProposer

        inner = proposer_from_config(fields["inner"])
        return ScopedProposer(inner, separator=fields["separator"], depth=fields["depth"])
    raise ValueError(f"unknown candidate proposer {name!r}")
