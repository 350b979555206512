"""Candidate premises by evidence (``candidates.v3``): what a derived memory shares with the
memories it may rest on, never a count of slots to fill.

Two failures are in tension (``docs/revision.md``): a premise left out of a memory's
candidates is a silent keep waiting to happen, and a memory wrongly among them is a question
to the user on every change of it. Filling ``k`` slots whatever the evidence made the second
the rule: an agent's rent to-do rested on its coffee, its dentist, its dog and its Tokyo trip,
and every change of any of them asked about the rent. So a stored memory is a candidate only
for what it shares with the new one:

- **its grounded arguments**: the same place, person, drug, date or amount, in any language,
  read from the new memory's atoms and from those its reading withheld as unclean
  (:mod:`stategraph.grounding.reading`: evidence, never a rule link's premise);
- **its rare words**: a word (Latin script) or a two-character gram (Chinese) that is not a
  stop word (``grounding/<lang>/stopwords.txt``: function words, the agent's own words, the
  calendar's) and that few memories carry;
- the caller's ``context`` (taken by :mod:`stategraph.prepare` before any of this).

Each thing shared weighs its specificity, ``log((1 + n) / (1 + df)) / log(1 + n)`` for a term
``df`` of the ``n`` indexed memories carry: near 1 for a name only the two of them share,
towards 0 for what most memories say. A term carried by more than ``max_df_share`` of the store
(and more than ``min_df`` memories) is no evidence at all: in an agent's memory of one user in
one city, the city says nothing about which fact a plan rests on. A memory's evidence is the
sum; the candidates are the memories that hold and whose evidence is at least ``floor`` and at
least ``relative`` times the best one's, the best ``k`` of them, and the facts under that bar
that each share a rare unit no candidate before them shares (``cover``): a memory resting on
two facts says a part of each, and the weaker part alone falls under the bar.

**The interaction is evidence too**: the facts written in the same session (``State.session``:
the MCP session, a LangGraph thread, what the caller names) that hold, newest first, at most
``k``; a memory written without a session takes the facts among the ``turn`` memories written
just before it. They are candidates beside those with evidence (``contemporaries``; without
it, only when nothing has evidence). Never every fact in the store.

**Through a derived candidate**, with ``inherit``: a candidate that is itself derived from
candidates brings its own open candidates along. A doubt does not travel through a candidate
that is only in doubt (``docs/revision.md``): without inheritance, a plan whose only evidence
is the belief it was derived from keeps its value when the fact under that belief goes, and
waits for the belief to be settled (recall grades it ``rests_on_doubt``:
:mod:`stategraph.review.waiting`); inherited, it is asked about beside the belief. Most of
those questions are not needed, but without them more memories that must go stay silent.

Everything is read through the store's indexes: the term index's postings (at most
``postings`` a term, for the ``max_terms`` rarest terms), the session index, the latest
memories. A proposal costs the same at 10^3 and 10^6 memories, and the choice is deterministic.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import ClassVar

from stategraph.grounding.reading import evidence_atoms, named_values
from stategraph.grounding.terms import argument_terms, value_terms
from stategraph.model import Origin, State
from stategraph.resources import read_text
from stategraph.text.candidates import UNRELATED_METHODS, Candidate, TermIndex, holding_prefix
from stategraph.values import TRUE

__all__ = ["EvidenceProposer", "evidence_units", "stop_words"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_YEAR = re.compile(r"(19|20)\d\d")
"""A year: a date is evidence as a grounded date (to the day), never as the year alone."""
_EVERYONE = "a:user"
"""The agent's principal: every memory names the user, so sharing it says nothing."""


@functools.cache
def stop_words() -> frozenset[str]:
    """The words (and, for Chinese, the single characters) that are never evidence, from
    ``grounding/en/stopwords.txt`` and ``grounding/zh/stopwords.txt``."""
    out: set[str] = set()
    for lang in ("en", "zh"):
        for line in read_text("grounding", f"{lang}/stopwords.txt").splitlines():
            out.update(line.split("#", 1)[0].split())
    return frozenset(out)


def _grams(word: str) -> list[str]:
    """A Latin-script word's index grams (:func:`stategraph.grounding.terms.lexical_terms`)."""
    if len(word) < 3:
        return ["g:" + word]
    return ["g:" + word[i : i + 3] for i in range(len(word) - 2)]


def evidence_units(state: State) -> dict[str, tuple[str, ...]]:
    """What a memory may share with another, each unit with the index terms that find it.

    A grounded argument (``a:tokyo``), or a thing the text names outside any atom (a date, a
    place: :data:`stategraph.grounding.reading.NAMED`, indexed alike), is its own term; a
    Latin-script word is found through its grams (a memory carrying every gram of ``sapphire``
    says ``sapphire``, give or take a rare coincidence); a Chinese two-character gram is its
    own term. Stop words, words under three characters and grams holding a stop character are
    left out, and so is the user.
    """
    stop = stop_words()
    units: dict[str, tuple[str, ...]] = {}
    named = value_terms(named_values(state.metadata))
    for term in sorted(argument_terms(evidence_atoms(state.atoms, state.metadata)) | named):
        if term != _EVERYONE:
            units[term] = (term,)
    text = unicodedata.normalize("NFKC", state.text).lower()
    for run in _CJK.findall(text):
        for i in range(len(run) - 1):
            gram = run[i : i + 2]
            if gram not in stop and not (set(gram) & stop):
                units["g:" + gram] = ("g:" + gram,)
    for word in _WORD.findall(_CJK.sub(" ", text)):
        if len(word) >= 3 and word not in stop and not _YEAR.fullmatch(word):
            units["w:" + word] = tuple(_grams(word))
    return units


@dataclass
class _Evidence:
    """What each memory met through the index shares with one new memory."""

    shared: dict[str, dict[str, float]]
    """Per memory met, each unit it shares and that unit's specificity."""
    seq: dict[str, int]

    def total(self, sid: str) -> float:
        return round(sum(self.shared.get(sid, {}).values()), 6)

    def ranked(self) -> list[str]:
        """Every memory met, the most evidence first, then the newest, then by id."""
        return sorted(self.shared, key=lambda s: (-self.total(s), -self.seq.get(s, 0), s))

    def method(self, sid: str) -> str:
        """``entity`` when it shares a grounded argument, else ``lexical``."""
        return "entity" if any(u.startswith("a:") for u in self.shared.get(sid, {})) else "lexical"


@dataclass(frozen=True)
class EvidenceProposer:
    """Proposes the memories a new one shares evidence with (``candidates.v3``; see the
    module docstring).

    Args:
        k: at most this many candidates found per memory (the caller's ``context`` comes on
            top).
        floor: the least evidence a candidate needs: about what one word that a tenth of
            the store carries weighs; one name only the two memories share weighs about 1.
        relative: the least evidence a candidate needs, as a share of the best candidate's.
        max_df_share: a term carried by more than this share of the store, and by more than
            ``min_df`` memories, is no evidence.
        min_df: a store of a few memories never treats a term as common below this.
        turn: with no evidence and no session, the facts among this many memories written
            last are the candidates.
        inherit: a derived candidate brings its own open candidates along. Without it, what
            rests on a derived memory in doubt is not asked about but waits
            (:mod:`stategraph.review.waiting`; recall grades it ``rests_on_doubt`` and asks
            about the memory in doubt first). On, by default: on the blind traces of batches
            b to e, 109 of the 148 questions it asked were not needed, but turned off, more
            memories that must go stayed silent (seven more of 94 on batch l, first sight;
            ``stategraph bench --tradeoff``), and a silent keep is the worse failure.
        contemporaries: the facts of the session or turn are candidates beside those with
            evidence, not only when none has any. The default, chosen from ``stategraph bench
            --tradeoff``: without them, a fact that shares no word with what was derived
            from it ("works from Lisbon" and "becomes a tax resident") is kept silently
            whenever anything else shares a word, and on the blind cases that was 16% of the
            gold invalidations against 0.2%.
        cover: a fact under the ``relative`` bar is a candidate too when it shares a unit at
            least this specific that no candidate above it shares (None: off). A memory
            resting on two facts says a part of each: "send Dev the draft board slides by
            7 March" shares Dev, the draft, the slides and the date with Dev's deadline and
            only "board" with the board meeting, which the bar alone drops. Chosen from
            ``stategraph bench --tradeoff``: on every batch of traces it left fewer gold
            invalidations silent, at a few more questions.
        cover_facts: only the units a fact candidate shares count as covered: a derived
            candidate passes on at most its own open candidates (``inherit``), and none
            when not inherited, so a fact sharing the unit is a candidate too ("book
            settling-in sessions at Little Acorns" shares the nursery with the to-do about
            its sessions and with the nursery's start).
        max_terms: the rarest terms of the new memory that are looked up.
        postings: memories read per term (newest first).
        exogenous: the kinds counted as facts (the exogenous kinds of the memory's policy).
        derived: the kinds whose own candidates stand in for a session's facts when the
            session wrote none and nothing has evidence (inherited or not): "apply for the
            visa", written in a session of trip preparations and sharing no word with the
            trip, rests on what they rest on.
    """

    k: int = 8
    floor: float = 0.0
    relative: float = 0.5
    max_df_share: float = 0.05
    min_df: int = 50
    turn: int = 8
    inherit: bool = True
    contemporaries: bool = True
    cover: float | None = 0.5
    cover_facts: bool = True
    max_terms: int = 48
    postings: int = 64
    exogenous: frozenset[str] = frozenset({"fact"})
    derived: tuple[str, ...] = ("action", "belief", "plan")

    name: ClassVar[str] = "stategraph.candidates.v3"

    def config(self) -> dict[str, object]:
        """What the log records of this proposer: every setting, enough to build it again
        for a replay."""
        return dict(self._config)

    @functools.cached_property
    def _config(self) -> dict[str, object]:
        # made once: every revision logs it, and asdict copies each field deeply
        return {
            "name": self.name,
            **asdict(self),
            "exogenous": sorted(self.exogenous),
            "derived": sorted(self.derived),
        }

    def evidence(self, index: TermIndex, state: State, skip: set[str]) -> _Evidence:
        """What every memory met through the index shares with ``state``."""
        out = _Evidence({}, {})
        units = evidence_units(state)
        if not units:
            return out
        n = index.doc_count()
        df = index.term_df({t for terms in units.values() for t in terms})
        cap = max(self.min_df, self.max_df_share * n)
        scale = math.log(1 + n) or 1.0
        weighed: list[tuple[float, str, tuple[str, ...]]] = []
        for unit, terms in units.items():
            found = [t for t in terms if t in df]
            if len(found) < len(terms):
                continue  # some term of it nobody carries: nobody carries the unit
            rarest = sorted(found, key=lambda t: (df[t], t))[:2]
            least = df[rarest[0]]
            if least > cap:
                continue
            weighed.append((math.log((1 + n) / (1 + least)) / scale, unit, tuple(rarest)))
        weighed.sort(key=lambda w: (-w[0], w[1]))
        for spec, unit, terms in weighed[: self.max_terms]:
            lists = [index.postings(t, self.postings) for t in terms]
            having = set.intersection(*({p[1] for p in found} for found in lists))
            for seq, sid, _size in lists[0]:
                if sid in having and sid not in skip:
                    out.shared.setdefault(sid, {})[unit] = spec
                    out.seq[sid] = seq
        return out

    def propose(
        self,
        index: TermIndex,
        state: State,
        exclude: Iterable[str] = (),
        limit: int | None = None,
    ) -> list[Candidate]:
        """The candidates for ``state``: the memories that hold and share evidence with it,
        and the facts of its session or turn (see ``contemporaries``), and what the derived
        ones among them and among those given rest on as candidates (``inherit``).

        Args:
            index: the store.
            state: the new memory (its text, atoms, metadata and session).
            exclude: ids never to propose (the state itself, candidates already chosen, such
                as its ``context``: then no session or turn is taken, as the context is
                evidence, and what the given ones rest on is inherited).
            limit: at most this many found (default ``k``), inherited ones beside.
        """
        limit = self.k if limit is None else limit
        skip = set(exclude) | {state.id}
        out: list[Candidate] = []
        if limit > 0:
            out = self._found(index, state, skip, limit, given=bool(set(exclude)))
        if self.inherit:  # from the candidates found and from those given (its context)
            sources = [c.id for c in out] + sorted(set(exclude))
            if sources:
                out += self._inherited(index, sources, skip | {c.id for c in out})
        return out

    def _found(
        self, index: TermIndex, state: State, skip: set[str], limit: int, given: bool
    ) -> list[Candidate]:
        """The memories with evidence, and those of the session or turn (not when the
        caller gave candidates: its context is evidence)."""
        found = self.evidence(index, state, skip)
        ranked = [s for s in found.ranked() if found.shared[s]]
        best = found.total(ranked[0]) if ranked else 0.0
        least = max(self.floor, self.relative * best)
        chosen = holding_prefix(index, [s for s in ranked if found.total(s) >= least], limit)
        if self.cover is not None:
            chosen += self._covering(index, found, ranked, chosen, limit, self.cover)
        out = [Candidate(s, found.method(s), found.total(s)) for s in chosen]
        if (self.contemporaries or not out) and not given:
            out += self._interaction(index, state, skip | {c.id for c in out}, limit, not out)
        return out

    def _covering(
        self,
        index: TermIndex,
        found: _Evidence,
        ranked: list[str],
        chosen: list[str],
        limit: int,
        floor: float,
    ) -> list[str]:
        """The facts under the bar, most evidence first, that each share a unit at least
        ``floor`` specific which no fact before them shares (see ``cover``). With
        ``cover_facts``, a unit only a derived candidate shares is not covered (see
        ``cover_facts``). At most ``limit`` memories under the bar are read, so the cost
        stays that of the ranking."""
        covering = chosen
        if self.cover_facts and chosen:
            chosen_kinds = index.kinds(chosen)
            covering = [s for s in chosen if chosen_kinds.get(s) in self.exogenous]
        covered = {u for s in covering for u in found.shared[s]}
        fresh: list[tuple[str, set[str]]] = []
        for s in ranked:
            units = {u for u, spec in found.shared[s].items() if spec >= floor}
            if s not in chosen and units - covered:
                fresh.append((s, units))
                if len(fresh) == limit:
                    break
        if not fresh:
            return []
        ids = [s for s, _ in fresh]
        kinds, truths = index.kinds(ids), index.truths(ids)
        out: list[str] = []
        for s, units in fresh:
            if len(chosen) + len(out) >= limit:
                break
            new = units - covered
            if new and kinds.get(s) in self.exogenous and truths.get(s) is TRUE:
                out.append(s)
                covered |= new
        return out

    def _interaction(
        self, index: TermIndex, state: State, skip: set[str], limit: int, alone: bool
    ) -> list[Candidate]:
        """The facts of the new memory's session, or of its turn, that hold; for a memory
        ``alone`` (nothing has evidence) in a session that wrote no fact, what the session's
        derived memories rest on by evidence."""
        if state.session is not None:
            rows = index.in_session(state.session, limit + len(skip), self.exogenous)
            ids = [sid for _seq, sid, _size in rows if sid not in skip]
            if ids or not alone:
                return [Candidate(s, "session", 0.0) for s in ids[:limit]]
            # a session that wrote no fact: it was about what its derived memories rest on
            rows = index.in_session(state.session, limit + len(skip), self.derived)
            peers = [sid for _seq, sid, _size in rows if sid not in skip]
            return [
                Candidate(c.id, "session", 0.0) for c in self._inherited(index, peers, skip)[:limit]
            ]
        latest = index.latest(self.turn)
        facts = [sid for _s, sid, _z, kind in latest if kind in self.exogenous and sid not in skip]
        return [Candidate(s, "turn", 0.0) for s in holding_prefix(index, facts, limit)]

    def _inherited(self, index: TermIndex, chosen: list[str], skip: set[str]) -> list[Candidate]:
        """The open candidates of the derived candidates chosen (each once, holding), but
        those proposed for their session or turn alone: a guess is not passed on. At most
        ``k`` of them: the candidates of the best candidate first, and what a candidate found
        by evidence before what it inherited itself. Unbounded, an agent that wrote the same
        plan every week gave its 500th copy the candidates of all 499 before it (40 a memory
        at the median on the dense workload, asked about whenever any of them changed)."""
        order = {sid: n for n, sid in enumerate(chosen)}
        ranked: dict[str, tuple[int, int, int]] = {}
        for j in index.justifications_for(chosen):
            if j.origin is not Origin.recovered:
                continue
            for i, p in enumerate(j.candidates()):
                how = j.proposed.get(p)
                if how in UNRELATED_METHODS or p in skip:
                    continue  # what it shares, never a contemporary guessed for sharing nothing
                rank = (order.get(j.head, len(order)), how == "inherited", i)
                if rank < ranked.get(p, (len(order) + 1, True, 0)):
                    ranked[p] = rank
        ids = holding_prefix(index, sorted(ranked, key=lambda p: (ranked[p], p)), self.k)
        return [Candidate(s, "inherited", 0.0) for s in ids]

    def blockers(self, index: TermIndex, fact: State) -> list[Candidate]:
        """The memories a new fact may defeat: the ``2 k`` that hold, or are undefined (already
        in doubt: reported again, with the new cause), and share the most evidence with it,
        with no bar relative to the best (a fact that cancels a trip defeats everything planned
        for it, each sharing a different part of it); never its session's or turn's facts: a
        contemporary shares nothing by being one."""
        found = self.evidence(index, fact, {fact.id})
        ranked = [s for s in found.ranked() if found.total(s) >= self.floor and found.shared[s]]
        chosen = holding_prefix(index, ranked, 2 * self.k, in_doubt=True)
        return [Candidate(s, found.method(s), found.total(s)) for s in chosen]
