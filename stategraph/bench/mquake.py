"""Recall's retrieval quality on public data: a workload built from MQuAKE-hard.

MQuAKE (Zhong et al., EMNLP 2023) is a knowledge-editing set: each instance is a chain of
single-hop facts (``Hey Jude`` --performer--> ``The Beatles`` --director / manager--> ...), a
set of edits to some of those facts, and multi-hop questions whose answer follows the edited
chain. MQuAKE-hard is DeepEdit's 429-instance subset, where every instance edits all four hops.
It ships in ``stategraph/bench/data/`` (MIT license, see the NOTICE there).

The workload puts every instance's facts in one store, as text memories written from the
instance's own cloze sentences ("Hey Jude was performed by The Beatles."):

- the facts of every original chain (``orig.triples``), each once;
- for each edit (``requested_rewrite``), the fact it edits (subject, relation, ``target_true``),
  added when no chain already holds it: it is what was true before the edit;
- then every edit is applied as a supersession of that fact by the edited one (``target_new``).
  An edit shared by several instances is applied once.

The questions are each instance's multi-hop ``questions`` (supported by the instance's whole
edited chain, ``new_triples``) and the ``question`` of each ``new_single_hops`` entry (supported
by that hop's edited fact). For each question and system it records which supporting facts are
in the top 10 (recall@10) and how many of the top 10 are stale: facts an edit superseded.

The reference is BM25 (``rank_bm25.BM25Okapi``, the ``bench`` extra) over every memory ever
written, superseded or not, with the tokenisation recall uses
(:func:`stategraph.text.fulltext.tokens`): what a store that keeps no truth values would rank.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any, Literal

from stategraph.errors import StategraphError
from stategraph.memory import Memory
from stategraph.model import Change
from stategraph.text.fulltext import tokens

__all__ = [
    "DATA_FILE",
    "Fact",
    "K",
    "MQuAKEResult",
    "Question",
    "SystemRecall",
    "Workload",
    "bm25_reference",
    "build_workload",
    "load_instances",
    "run_mquake",
    "stategraph_recall",
]

DATA_FILE = "data/mquake_hard.json.gz"
"""The vendored MQuAKE-hard file, relative to the ``stategraph.bench`` package."""

K = 10
"""Recall is measured in the top ``K``."""

QuestionKind = Literal["multi_hop", "single_hop"]


@dataclass(frozen=True)
class Fact:
    """One single-hop fact as a memory: id from its Wikidata ids, text from its cloze."""

    id: str
    text: str


@dataclass(frozen=True)
class Question:
    """A question and the ids of the post-edit facts that support its answer."""

    case_id: int
    kind: QuestionKind
    text: str
    support: tuple[str, ...]


@dataclass(frozen=True)
class Workload:
    """Everything a system is given, in order.

    Attributes:
        facts: the pre-edit facts, loaded first.
        edits: ``(old fact id, new fact)`` supersessions, in instance order, each once.
        questions: what is asked once every edit is applied.
    """

    facts: tuple[Fact, ...]
    edits: tuple[tuple[str, Fact], ...]
    questions: tuple[Question, ...]

    @property
    def stale(self) -> frozenset[str]:
        """The facts an edit superseded: they no longer hold."""
        return frozenset(old for old, _ in self.edits)

    def every_fact(self) -> list[Fact]:
        """Every memory ever written, superseded ones included."""
        return [*self.facts, *(new for _, new in self.edits)]


class MQuAKEDataError(StategraphError, ValueError):
    """The MQuAKE file does not have the shape the workload reads (a changed upstream file)."""


def load_instances(limit: int | None = None) -> list[dict[str, Any]]:
    """The vendored MQuAKE-hard instances (the first ``limit`` of them, if given)."""
    raw = files("stategraph.bench").joinpath(DATA_FILE).read_bytes()
    data = json.loads(gzip.decompress(raw))
    if not isinstance(data, list):
        raise MQuAKEDataError(f"{DATA_FILE}: expected a list of instances")
    return data if limit is None else data[:limit]


def _fact_id(triple: Sequence[str]) -> str:
    return "-".join(triple)


def _sentence(cloze: str, answer: str) -> str:
    return f"{cloze.strip()} {answer.strip()}."


def build_workload(instances: Iterable[dict[str, Any]]) -> Workload:
    """Build the workload described in the module's doc.

    Raises:
        MQuAKEDataError: an edit whose subject and relation are not in the instance's edited
            chain, or two edits of one fact to different values.
    """
    facts: dict[str, Fact] = {}
    edits: dict[str, Fact] = {}
    questions: list[Question] = []
    pending_old: dict[str, Fact] = {}
    for inst in instances:
        orig = inst["orig"]
        for triple, hop in zip(orig["triples"], inst["single_hops"], strict=True):
            fid = _fact_id(triple)
            facts.setdefault(fid, Fact(fid, _sentence(hop["cloze"], hop["answer"])))
        new_ids = [_fact_id(t) for t in orig["new_triples"]]
        for rw in inst["requested_rewrite"]:
            match = [
                t
                for t in orig["new_triples"]
                if t[1] == rw["relation_id"] and t[2] == rw["target_new"]["id"]
            ]
            if not match:
                raise MQuAKEDataError(f"case {inst['case_id']}: an edit not in its chain")
            subject, relation, _ = match[0]
            old_id = _fact_id((subject, relation, rw["target_true"]["id"]))
            new = Fact(
                _fact_id(match[0]),
                _sentence(rw["prompt"].format(rw["subject"]), rw["target_new"]["str"]),
            )
            if old_id in edits and edits[old_id].id != new.id:
                raise MQuAKEDataError(f"case {inst['case_id']}: {old_id} edited twice")
            if old_id not in facts:
                pending_old.setdefault(
                    old_id,
                    Fact(
                        old_id,
                        _sentence(rw["prompt"].format(rw["subject"]), rw["target_true"]["str"]),
                    ),
                )
            edits.setdefault(old_id, new)
        support = tuple(dict.fromkeys(new_ids))
        for q in inst["questions"]:
            questions.append(Question(inst["case_id"], "multi_hop", q, support))
        for fid, hop in zip(new_ids, inst["new_single_hops"], strict=True):
            questions.append(Question(inst["case_id"], "single_hop", hop["question"], (fid,)))
    for old_id, fact in pending_old.items():
        facts.setdefault(old_id, fact)
    return Workload(tuple(facts.values()), tuple(edits.items()), tuple(questions))


Ranker = Callable[[str], list[str]]
"""Answers a question with the ids of its top :data:`K` memories, best first."""


@dataclass
class SystemRecall:
    """One system's figures over the workload's questions.

    Attributes:
        name: the system.
        by_kind: per question kind (``multi_hop``, ``single_hop``, ``all``): ``questions``,
            ``recall_at_10`` (mean over questions of the share of supporting facts in the top
            10), ``all_support_at_10`` (share of questions with every supporting fact in the
            top 10), ``returned`` (memories returned in all), ``stale`` (of which superseded),
            ``stale_share`` (stale / returned) and ``questions_with_stale``.
        seconds: wall time answering the questions (each distinct text once);
            ``cpu_seconds``: process CPU time.
    """

    name: str
    by_kind: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    per_question: list[tuple[Question, list[str]]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (without the per-question answers)."""
        return {
            "by_kind": self.by_kind,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }


def _score(name: str, answers: list[tuple[Question, list[str]]], stale: frozenset[str]) -> Any:
    out = SystemRecall(name, per_question=answers)
    for kind in ("multi_hop", "single_hop", "all"):
        rows = [(q, top) for q, top in answers if kind in ("all", q.kind)]
        if not rows:
            continue
        shares = [len(set(q.support) & set(top)) / len(q.support) for q, top in rows]
        returned = sum(len(top) for _, top in rows)
        n_stale = sum(1 for _, top in rows for i in top if i in stale)
        out.by_kind[kind] = {
            "questions": len(rows),
            "recall_at_10": round(sum(shares) / len(rows), 4),
            "all_support_at_10": round(sum(1 for s in shares if s == 1) / len(rows), 4),
            "returned": returned,
            "stale": n_stale,
            "stale_share": round(n_stale / returned, 4) if returned else 0.0,
            "questions_with_stale": sum(1 for _, top in rows if set(top) & stale),
        }
    return out


def _answer(name: str, ranker: Ranker, wl: Workload) -> SystemRecall:
    """Ask every question (each distinct text once: many instances share a hop)."""
    wall, cpu = time.perf_counter(), time.process_time()
    tops: dict[str, list[str]] = {}
    for q in wl.questions:
        if q.text not in tops:
            tops[q.text] = ranker(q.text)[:K]
    answers = [(q, tops[q.text]) for q in wl.questions]
    out: SystemRecall = _score(name, answers, wl.stale)
    out.seconds = time.perf_counter() - wall
    out.cpu_seconds = time.process_time() - cpu
    return out


def stategraph_recall(wl: Workload, memory: Memory | None = None) -> tuple[Memory, Ranker]:
    """Load the workload into a memory (a new in-memory one by default), apply the edits and
    return it with a ranker that is :meth:`Memory.recall <stategraph.memory.Memory.recall>`."""
    mem = memory if memory is not None else Memory()
    mem.bulk_load({"id": f.id, "kind": "fact", "text": f.text} for f in wl.facts)
    for old, new in wl.edits:
        replacement = {"id": new.id, "kind": "fact", "text": new.text}
        mem.revise(Change.model_validate({"supersede": [{"id": old, "with": replacement}]}))

    def rank(query: str) -> list[str]:
        return [r.id for r in mem.recall(query, K)]

    if wl.questions:  # load the grounder before anything is timed
        rank(wl.questions[0].text)

    return mem, rank


def bm25_reference(wl: Workload, *, holding_only: bool = False) -> Ranker:
    """BM25 (``rank_bm25.BM25Okapi``) over every memory ever written, truth values ignored
    (``holding_only``: over the memories that hold after the edits only), with recall's
    tokenisation; only memories sharing a token with the query are returned, as in recall.

    Raises:
        ImportError: without the ``bench`` extra (``pip install 'stategraph[bench]'``).
    """
    from rank_bm25 import BM25Okapi

    every = wl.every_fact()
    if holding_only:
        stale = wl.stale
        every = [f for f in every if f.id not in stale]
    ids = [f.id for f in every]
    docs = [tokens(f.text) for f in every]
    bm25 = BM25Okapi(docs)
    postings: dict[str, set[int]] = {}
    for i, doc in enumerate(docs):
        for t in doc:
            postings.setdefault(t, set()).add(i)

    def rank(query: str) -> list[str]:
        toks = tokens(query)
        hits = sorted(set().union(*(postings.get(t, set()) for t in toks)))
        if not hits:
            return []
        scores = bm25.get_batch_scores(toks, hits)
        order = sorted(range(len(hits)), key=lambda j: (-scores[j], ids[hits[j]]))
        return [ids[hits[j]] for j in order[:K]]

    return rank


@dataclass
class MQuAKEResult:
    """The outcome of one run: the workload's size, each system's figures, the load time."""

    instances: int
    memories: int
    edits: int
    systems: dict[str, SystemRecall]
    load_seconds: float
    distinct_questions: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document."""
        return {
            "dataset": "MQuAKE-hard (DeepEdit's 429-instance subset of MQuAKE; MIT)",
            "instances": self.instances,
            "memories": self.memories,
            "edits": self.edits,
            "distinct_questions": self.distinct_questions,
            "k": K,
            "load_seconds": round(self.load_seconds, 3),
            "systems": {n: s.to_dict() for n, s in self.systems.items()},
        }


def run_mquake(limit: int | None = None, memory: Memory | None = None) -> MQuAKEResult:
    """Build the workload from the first ``limit`` instances (all by default), run stategraph's
    recall (on ``memory``, or a new in-memory one) and the BM25 reference, and score both."""
    instances = load_instances(limit)
    wl = build_workload(instances)
    t0 = time.perf_counter()
    mem, sg = stategraph_recall(wl, memory)
    load = time.perf_counter() - t0
    try:
        systems = {
            "stategraph": _answer("stategraph", sg, wl),
            "bm25": _answer("bm25", bm25_reference(wl), wl),
            "bm25-holding": _answer("bm25-holding", bm25_reference(wl, holding_only=True), wl),
        }
    finally:
        mem.close()
    return MQuAKEResult(
        len(instances),
        len(wl.every_fact()),
        len(wl.edits),
        systems,
        load,
        len({q.text for q in wl.questions}),
    )
