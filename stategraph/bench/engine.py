"""stategraph itself as a benchmark system: a case's history loaded into a fresh ``Memory``.

Memories are added in an order where every premise exists before the state citing it; an
alternative whose premises are not there yet (a cycle, or a forward reference) is added once
they are, as a justification of its own. ``unless`` may name states that never exist.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from stategraph import Change, Justification, Memory, Report, State, StategraphError
from stategraph.bench.cases import Case, CaseMemory, CaseStep, Support
from stategraph.bench.gold_judge import GoldJudge
from stategraph.bench.systems import Prediction
from stategraph.judge.base import Judge
from stategraph.review.waiting import Doubts
from stategraph.text.candidates import Proposer

__all__ = [
    "JUDGE_ENV",
    "JudgeSystem",
    "OracleCheckSystem",
    "OracleSystem",
    "StategraphSystem",
    "SystemUnavailable",
    "judge_configured",
    "load_memory",
    "memory_options",
    "prediction_from",
]

JUDGE_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "STATEGRAPH_JUDGE_MODEL")
"""The environment variables that configure the judge; all must be set."""


class SystemUnavailable(StategraphError):
    """A system cannot run here (e.g. no judge configured); the harness skips it."""


def _ready(m: CaseMemory, present: set[str]) -> tuple[list[Support], list[Support]]:
    now = [a for a in m.because if set(a.all) <= present]
    later = [a for a in m.because if not set(a.all) <= present]
    return now, later


def load_memory(case: Case, memory: Memory | None = None) -> Memory:
    """Load a case's history into a memory (a fresh in-memory one by default)."""
    mem = memory if memory is not None else Memory()
    present: set[str] = set()
    pending = list(case.memories)
    deferred: list[Justification] = []
    while pending:
        pick = next(
            (
                m
                for m in pending
                if set(m.context) <= present and (not m.because or _ready(m, present)[0])
            ),
            pending[0],
        )
        pending.remove(pick)
        now, later = _ready(pick, present)
        state = State(
            id=pick.id, kind=pick.kind, text=pick.text, status=pick.status, session=pick.session
        )
        mem.add(
            state,
            because=[a.to_engine() for a in now],
            context=[c for c in pick.context if c in present],
        )
        present.add(pick.id)
        deferred += [Justification(head=pick.id, premises=a.all, unless=a.unless) for a in later]
    if deferred:
        mem.revise(Change(add_justifications=tuple(deferred)))
    return mem


def prediction_from(
    report: Report, memory: Memory | None = None, given: Iterable[str] = ()
) -> Prediction:
    """Read a revision report as a prediction; with the memory, also what it cost.

    A fact the revision superseded or retracted that the change as given (``given``: the ids
    it acts on) did not name, a reversal the engine read, is predicted gone with what it
    invalidated."""
    stats: dict[str, int] = {}
    if memory is not None:
        counts = report.edge_counts
        calls = memory.history()[-1].calls
        derived = [s for s in memory.states() if not memory.policy.is_exogenous(s)]
        sizes = [
            sum(
                len(j.premises)
                for j in memory.justifications(s.id)
                if j.origin.value == "recovered"
            )
            for s in derived
        ]
        made = [c for c in calls if not c.cached]
        stats = {
            "judge_calls": sum(c.attempts for c in made),
            "judge_tokens": sum(c.tokens for c in made),
            "edges": counts["considered"],
            "edges_logic": counts["logic"],
            "edges_judge": counts["judge"],
            "edges_flagged": counts["flagged"],
            "derived": len(derived),
            "candidates": sum(sizes),
            "max_candidates": max(sizes, default=0),
        }
    acted = set(given)
    removed = {
        c.id
        for c in report.changed
        if c.action in ("superseded", "retracted") and c.id not in acted
    }
    flagged = frozenset(report.needs_confirmation)
    return Prediction(
        invalidated=frozenset(report.invalidated) | removed,
        flagged=flagged,
        consequences=dict(report.consequences),
        restored=frozenset(report.restored),
        waiting=frozenset() if memory is None else _waiting(memory, flagged | acted),
        stats=stats,
    )


def _waiting(memory: Memory, skip: frozenset[str] | set[str]) -> frozenset[str]:
    """The memories that hold but rest on doubt after the change, as recall grades them."""
    doubts = Doubts(memory.store)
    return frozenset(
        sid
        for sid in memory.holding()
        if sid not in skip and not doubts(sid) and doubts.waits_on(sid)
    )


def memory_options(case: Case) -> dict[str, Any]:
    """How the engine is configured for a case's track.

    ``declared``: the edges are given, nothing else is used. ``recovered`` and ``text``: every
    shipped rule pack, and the default grounder for memories' text, so that the engine finds
    support (text) or checks candidate edges (recovered) itself.
    """
    if case.track == "declared":
        return {}
    return {"rules": "all", "grounder": "stategraph.rule_grounder.v1"}


class StategraphSystem:
    """The engine with logic only (no judge): undecided candidate edges are flagged.

    Args:
        factory: builds the memory a case is loaded into (an in-memory one by default).
        candidates: the candidate proposer for the recovered and text tracks (default: the
            memory's own default), for comparing settings (:mod:`stategraph.bench.tradeoff`).
    """

    name = "stategraph"
    reversals: str | None = None
    """The memory's reversals policy (None: the default), on the recovered and text tracks."""

    def __init__(
        self, factory: Callable[..., Memory] = Memory, candidates: Proposer | None = None
    ) -> None:
        self._factory = factory
        self._candidates = candidates

    def judge_for(self, case: Case) -> Judge | None:
        """The judge that settles what logic leaves undecided in this case (None: none)."""
        return None

    def run(self, case: Case) -> Prediction:
        """Load the history, apply the change (with the judge, if any), read the report.

        A trace's step first applies the trace's changes before it, each with the judge this
        system gives that step (the gold oracle answers from the step's own gold), unscored.
        """
        options = memory_options(case)
        if self._candidates is not None and case.track != "declared":
            options["candidates"] = self._candidates
        if self.reversals is not None and case.track != "declared":
            options["reversals"] = self.reversals
        mem = load_memory(case, self._factory(**options))
        try:
            for k, step in enumerate(case.history, 1):
                mem.judge = self.judge_for(_earlier(case, k, step))
                mem.revise(Change.model_validate(step.change.to_engine()))
            mem.judge = self.judge_for(case)  # asked about the change only, not the history
            report = mem.revise(Change.model_validate(case.change.to_engine()))
            return prediction_from(report, mem, case.change.changed_ids())
        finally:
            mem.close()


def _earlier(case: Case, k: int, step: CaseStep) -> Case:
    """The ``k``-th step of the trace ``case`` is a step of, as a case of its own."""
    update = {"change": step.change, "expect": step.expect, "history": case.history[: k - 1]}
    return case.model_copy(update={**update, "id": f"{case.trace}.{k}"})


class OracleSystem(StategraphSystem):
    """The engine with the gold oracle as its judge: the pipeline's ceiling, not a result
    (:mod:`stategraph.bench.gold_judge`)."""

    name = "stategraph+oracle"

    def judge_for(self, case: Case) -> Judge | None:
        """A judge that answers from this case's gold."""
        return GoldJudge(case)


class OracleCheckSystem(OracleSystem):
    """The gold oracle under the ``check`` reversals policy: every new fact is put to the judge
    beside the holding facts it shares the most with, turn or not (a request for most new
    facts, which the figures count for the scored change only)."""

    name = "stategraph+oracle+check"
    reversals = "check"


def judge_configured() -> bool:
    """True when every variable in :data:`JUDGE_ENV` is set and non-empty."""
    return all(os.environ.get(v) for v in JUDGE_ENV)


class JudgeSystem(StategraphSystem):
    """The engine with the LLM judge (:class:`~stategraph.judge.OpenAIJudge`) configured by
    the environment for what logic cannot decide.

    Raises:
        SystemUnavailable: when no judge is configured.
    """

    name = "stategraph+judge"

    def __init__(self, factory: Callable[..., Memory] = Memory) -> None:
        if not judge_configured():
            raise SystemUnavailable("no judge configured (set " + ", ".join(JUDGE_ENV) + ")")
        from stategraph.judge import OpenAIJudge

        self._judge = OpenAIJudge.from_env()
        super().__init__(factory)

    def judge_for(self, case: Case) -> Judge | None:
        """The configured judge (the same for every case; its answers are cached per store)."""
        return self._judge
