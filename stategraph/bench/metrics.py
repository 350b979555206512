"""Impact-F1 and its companions, computed from cases and predictions.

Scored states are a case's memories minus the changed ones (retracted, superseded, asserted).
Positives are the gold ``invalidated``, with the fact a new fact told as a change reverses
(:meth:`~stategraph.bench.cases.Case.gold_invalidated`); a prediction's positives are what it
invalidates, and what it supersedes or retracts beyond the change it was given.
Counts are pooled over cases (micro average).

Depth buckets (``"1"``, ``"2"``, ``"3+"``): true positives and misses fall in the bucket of
their gold depth. A false positive has no gold depth, so it falls in the bucket of its shortest
hop distance from a changed state along the edges the case gives (premises, ``unless``,
``context``); a state no edge reaches (always so in the text track) falls in ``"3+"``.

``needs_confirmation`` predictions are *flagged*, counted apart and never as invalidated, so a
system cannot buy precision by deferring everything: a deferred gold positive is still a miss.
A flag is a question to a person (or a judge call): it is *needed* when the gold invalidates the
memory or leaves it to confirmation, and *unneeded* when the memory must stay. Two failures are
in tension and reported side by side, overall and per group (track and batch): silent misses
(gold positives neither invalidated nor flagged) and unneeded questions per change, with the
question precision (the share of flags that are needed).

A memory that still holds but rests only on what is in doubt (a prediction's ``waiting``:
recall grades it ``rests_on_doubt`` and asks about what it rests on first) is neither: it is
not kept silently, and no question is asked about it until what it rests on is settled. Such
memories are counted apart, those the gold invalidates (``waiting_needed``) and those that
must stay (``waiting_kept``), so that a reader sees what waits as well as what is asked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from stategraph.bench.casegraph import hop_distances
from stategraph.bench.cases import Case
from stategraph.bench.systems import Prediction

__all__ = [
    "DEPTH_BUCKETS",
    "Counts",
    "GroupScore",
    "SystemScore",
    "depth_bucket",
    "group_key",
    "score",
]

DEPTH_BUCKETS = ("1", "2", "3+")


def depth_bucket(depth: int | None) -> str:
    """The bucket of a hop distance; unknown or unreachable goes to ``"3+"``."""
    if depth is None or depth >= 3 or depth < 1:
        return "3+"
    return str(depth)


@dataclass
class Counts:
    """True positives, false positives and misses, with the derived ratios."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, tp: int = 0, fp: int = 0, fn: int = 0) -> None:
        """Pool more counts in."""
        self.tp += tp
        self.fp += fp
        self.fn += fn

    @property
    def precision(self) -> float:
        """TP / predicted; 1.0 when nothing was predicted (no false alarm was raised)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        """TP / gold; 1.0 when there was nothing to find."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        """Harmonic mean, as ``2TP / (2TP + FP + FN)``; 0 when TP is 0 and anything was wrong."""
        denom = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denom if denom else 1.0

    def to_dict(self) -> dict[str, float | int]:
        """Ratios rounded to 4 places, with the raw counts."""
        return {
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }


class _Questions:
    """The two figures of the questions a group of cases asked: how many were needed, how
    many not (a system's whole run, or one group of it)."""

    cases: int
    needed: int
    unneeded: int

    @property
    def unneeded_per_change(self) -> float:
        """Unneeded questions per change (each case is one change)."""
        return self.unneeded / self.cases if self.cases else 0.0

    @property
    def question_precision(self) -> float:
        """The share of flags that are needed (1.0 when nothing was flagged)."""
        flags = self.needed + self.unneeded
        return self.needed / flags if flags else 1.0


@dataclass
class GroupScore(_Questions):
    """The figures of one group of cases (a track and batch): both failures side by side."""

    counts: Counts = field(default_factory=Counts)
    cases: int = 0
    gold: int = 0
    """Gold invalidations."""
    silent: int = 0
    collateral: int = 0
    needed: int = 0
    """Flags on memories the gold invalidates or leaves to confirmation."""
    unneeded: int = 0
    """Flags on memories that must stay: questions nobody needed."""
    waiting_needed: int = 0
    """Gold invalidations that rest on doubt: asked about once what they rest on is settled."""
    waiting_kept: int = 0
    """Memories that must stay and rest on doubt (a reader asks about their basis first)."""
    judge_calls: int = 0

    def add(self, case: Case, pred: Prediction) -> None:
        """Pool one case's prediction in."""
        unscored = case.unscored()
        gold = case.gold_invalidated() - unscored
        got = set(pred.invalidated) - unscored
        flagged = set(pred.flagged) - unscored
        needed = flagged & (gold | set(case.expect.needs_confirmation))
        waiting = set(pred.waiting) - unscored - got - flagged
        self.counts.add(len(gold & got), len(got - gold), len(gold - got))
        self.cases += 1
        self.gold += len(gold)
        self.silent += len(gold - got - flagged - waiting)
        self.waiting_needed += len(waiting & gold)
        self.waiting_kept += len(waiting - gold - set(case.expect.needs_confirmation))
        self.collateral += len(got & set(case.expect.kept))
        self.needed += len(needed)
        self.unneeded += len(flagged - needed)
        self.judge_calls += pred.stats.get("judge_calls", 0)

    @property
    def silent_share(self) -> float:
        """Silent misses over gold invalidations (0 when there are none)."""
        return self.silent / self.gold if self.gold else 0.0

    @property
    def judge_calls_per_change(self) -> float:
        """Questions a judge answered per change."""
        return self.judge_calls / self.cases if self.cases else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of a group in ``bench --json``."""
        return {
            **self.counts.to_dict(),
            "cases": self.cases,
            "gold": self.gold,
            "silent_misses": self.silent,
            "silent_share": round(self.silent_share, 4),
            "collateral": self.collateral,
            "flags_needed": self.needed,
            "flags_unneeded": self.unneeded,
            "unneeded_per_change": round(self.unneeded_per_change, 4),
            "question_precision": round(self.question_precision, 4),
            "waiting_needed": self.waiting_needed,
            "waiting_kept": self.waiting_kept,
            "judge_calls_per_change": round(self.judge_calls_per_change, 4),
        }


def group_key(case: Case) -> str:
    """The group a case is reported in: its track, its batch (``-`` for the first cases;
    ``trace`` before it for a trace's steps), ``blind`` for the cases nobody developed
    against and ``seen`` for those written blind and later looked at (``text/g``,
    ``text/g/blind``, ``text/g/seen``, ``text/trace-t``)."""
    batch = case.batch or "-"
    if case.trace is not None:
        batch = f"trace-{case.batch}" if case.batch else "trace"
    mark = "/blind" if "blind" in case.tags else "/seen" if "seen" in case.tags else ""
    return f"{case.track}/{batch}{mark}"


@dataclass
class SystemScore(_Questions):
    """Everything reported for one system over a set of cases."""

    overall: Counts = field(default_factory=Counts)
    by_depth: dict[str, Counts] = field(
        default_factory=lambda: {b: Counts() for b in DEPTH_BUCKETS}
    )
    by_track: dict[str, Counts] = field(default_factory=dict)
    by_lang: dict[str, Counts] = field(default_factory=dict)
    collateral: int = 0
    """Gold-kept states (hard negatives, alternatively supported states) invalidated."""
    residue: int = 0
    """Gold positives left standing (neither invalidated nor flagged... nor anything)."""
    flagged: int = 0
    """States flagged ``needs_confirmation``."""
    flagged_correct: int = 0
    """Flagged states the gold also leaves to confirmation."""
    silent: int = 0
    """Gold positives neither invalidated, flagged nor waiting: left standing with no word
    said."""
    silent_by_track: dict[str, int] = field(default_factory=dict)
    waiting_needed: int = 0
    """Gold positives that rest on doubt (asked about once what they rest on is settled)."""
    waiting_kept: int = 0
    """States that must stay and rest on doubt."""
    flagged_kept: int = 0
    """Gold-kept states flagged for confirmation (a hard negative a person must look at)."""
    needed: int = 0
    """Flags on states the gold invalidates or leaves to confirmation."""
    unneeded: int = 0
    """Flags on states that must stay (every scored state the gold neither invalidates nor
    leaves to confirmation): a question nobody needed."""
    by_group: dict[str, GroupScore] = field(default_factory=dict)
    """The same figures per group (:func:`group_key`)."""
    cost: dict[str, int] = field(default_factory=dict)
    """The systems' ``Prediction.stats`` summed over cases (``max_candidates``: the max)."""
    consequences_correct: int = 0
    consequences_total: int = 0
    restored_correct: int = 0
    restored_total: int = 0
    cases: int = 0
    errors: int = 0

    @property
    def judge_calls_per_case(self) -> float:
        """Requests sent to the judge per case, retries included (0 for systems without a
        judge)."""
        return self.cost.get("judge_calls", 0) / self.cases if self.cases else 0.0

    @property
    def judge_tokens_per_case(self) -> float:
        """Tokens the judge's requests cost per case (the gold oracle's are estimated)."""
        return self.cost.get("judge_tokens", 0) / self.cases if self.cases else 0.0

    @property
    def candidates_per_derived(self) -> float:
        """Candidate premises per derived memory."""
        derived = self.cost.get("derived", 0)
        return self.cost.get("candidates", 0) / derived if derived else 0.0

    @property
    def logic_share(self) -> float | None:
        """Share of the candidate edges in question that logic settled (None: none were)."""
        edges = self.cost.get("edges", 0)
        return self.cost.get("edges_logic", 0) / edges if edges else None

    @property
    def consequence_accuracy(self) -> float:
        """Correct action consequences over every action either side gives one (1.0 if none)."""
        return (
            self.consequences_correct / self.consequences_total if self.consequences_total else 1.0
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``bench --json``."""
        return {
            "overall": self.overall.to_dict(),
            "by_depth": {b: c.to_dict() for b, c in self.by_depth.items()},
            "by_track": {k: self.by_track[k].to_dict() for k in sorted(self.by_track)},
            "by_lang": {k: self.by_lang[k].to_dict() for k in sorted(self.by_lang)},
            "collateral": self.collateral,
            "residue": self.residue,
            "flagged": self.flagged,
            "flagged_correct": self.flagged_correct,
            "silent_misses": self.silent,
            "silent_by_track": dict(sorted(self.silent_by_track.items())),
            "waiting_needed": self.waiting_needed,
            "waiting_kept": self.waiting_kept,
            "flagged_hard_negatives": self.flagged_kept,
            "flags_needed": self.needed,
            "flags_unneeded": self.unneeded,
            "unneeded_per_change": round(self.unneeded_per_change, 4),
            "question_precision": round(self.question_precision, 4),
            "by_group": {k: self.by_group[k].to_dict() for k in sorted(self.by_group)},
            "cost": dict(sorted(self.cost.items())),
            "judge_calls_per_case": round(self.judge_calls_per_case, 4),
            "judge_tokens_per_case": round(self.judge_tokens_per_case, 1),
            "candidates_per_derived": round(self.candidates_per_derived, 4),
            "logic_share": None if self.logic_share is None else round(self.logic_share, 4),
            "consequence_accuracy": round(self.consequence_accuracy, 4),
            "restored": {"correct": self.restored_correct, "gold": self.restored_total},
            "cases": self.cases,
            "errors": self.errors,
        }


def _add_case(s: SystemScore, case: Case, pred: Prediction) -> None:
    changed = case.unscored()
    gold = case.gold_invalidated() - changed
    got = set(pred.invalidated) - changed
    tp, fp, fn = gold & got, got - gold, gold - got
    s.cases += 1
    s.errors += pred.error is not None
    s.overall.add(len(tp), len(fp), len(fn))
    s.by_track.setdefault(case.track, Counts()).add(len(tp), len(fp), len(fn))
    s.by_lang.setdefault(case.lang, Counts()).add(len(tp), len(fp), len(fn))
    hops = hop_distances(case) if fp else {}
    for sid in tp:
        s.by_depth[depth_bucket(case.expect.depth.get(sid))].add(tp=1)
    for sid in fn:
        s.by_depth[depth_bucket(case.expect.depth.get(sid))].add(fn=1)
    for sid in fp:
        s.by_depth[depth_bucket(hops.get(sid))].add(fp=1)
    s.collateral += len(got & set(case.expect.kept))
    s.residue += len(fn)
    flagged = set(pred.flagged) - changed
    s.flagged += len(flagged)
    s.flagged_correct += len(flagged & set(case.expect.needs_confirmation))
    waiting = set(pred.waiting) - changed - got - flagged
    silent = len(fn - flagged - waiting)
    s.silent += silent
    s.silent_by_track[case.track] = s.silent_by_track.get(case.track, 0) + silent
    s.waiting_needed += len(waiting & gold)
    s.waiting_kept += len(waiting - gold - set(case.expect.needs_confirmation))
    s.flagged_kept += len(flagged & set(case.expect.kept))
    needed = flagged & (gold | set(case.expect.needs_confirmation))
    s.needed += len(needed)
    s.unneeded += len(flagged - needed)
    s.by_group.setdefault(group_key(case), GroupScore()).add(case, pred)
    for k, v in pred.stats.items():
        s.cost[k] = max(s.cost.get(k, 0), v) if k == "max_candidates" else s.cost.get(k, 0) + v
    want = dict(case.expect.consequences)
    keys = set(want) | (set(pred.consequences) - changed)
    s.consequences_total += len(keys)
    s.consequences_correct += sum(want.get(k) == pred.consequences.get(k) for k in keys)
    s.restored_total += len(case.expect.restored)
    s.restored_correct += len(set(case.expect.restored) & set(pred.restored))


def score(results: Iterable[tuple[Case, Prediction]]) -> SystemScore:
    """Pool one system's predictions over cases into its scores."""
    s = SystemScore()
    for case, pred in results:
        _add_case(s, case, pred)
    return s
