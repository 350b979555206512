"""The Python API: a :class:`Memory` over a store, revised one change at a time.

Example:
    >>> from stategraph import Memory
    >>> mem = Memory()
    >>> _ = mem.fact("m1", "The user moves from Shanghai to Shenzhen in 2026-12")
    >>> _ = mem.belief("m2", "Commute time computed for Shenzhen", because=["m1"])
    >>> _ = mem.fact("m4", "The user prefers Cantonese food")
    >>> mem.supersede("m1", {"id": "m1b", "text": "The user stays in Shanghai"}).invalidated
    ['m2']
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from stategraph.asof import MemoryAsOf
from stategraph.engine.explain import Proof, WhyNot, why, why_not
from stategraph.engine.graph import SupportGraph
from stategraph.engine.policy import Policy
from stategraph.engine.revise import LinkWrites, Revision
from stategraph.engine.revise import solve as solve_change
from stategraph.errors import ConcurrentChangeError, InvalidInputError, UnknownStateError
from stategraph.judge.base import PROMPT_VERSION, Judge, JudgeCall, Question, question_key
from stategraph.judge.reversals import judge_reversals
from stategraph.judge.settle import JudgeBudget, flag_blockers, settle
from stategraph.model import (
    Change,
    Decision,
    Justification,
    Origin,
    Report,
    Reversal,
    State,
    Supersession,
    Truth,
    id_list,
    normalise_id,
)
from stategraph.nodes import is_internal
from stategraph.prepare import (
    DEFAULT_REVERSALS,
    REVERSAL_POLICIES,
    REVERSALS_SETTING,
    Preparer,
)
from stategraph.reversal import note_reversals
from stategraph.review.confirm import PendingReview, pending_review, review_change
from stategraph.review.provenance import check_change, check_justification
from stategraph.review.questions import ReviewGroup, review_groups
from stategraph.shapes import AllOf, read_because, validated
from stategraph.store.asof import AsOf, PastStore, resolve
from stategraph.store.open import open_store
from stategraph.store.sqlite import LogEntry, Since, Store
from stategraph.text.candidates import Proposer
from stategraph.text.evidence import EvidenceProposer

if TYPE_CHECKING:
    from stategraph.embedder import Embedder
    from stategraph.recall import Recalled

__all__ = ["Alternative", "Memory", "check_limits", "justifications_for", "written"]

Alternative = str | Sequence[str] | Mapping[str, Sequence[str]] | AllOf | Justification
"""One way a state can be supported: a premise id, a list of ids that must all hold, or
``{"all": [...], "unless": [...]}`` (:func:`~stategraph.shapes.read_because`)."""


def _id(state_id: str) -> str:
    """An id a caller asks about, spelt as the store keeps ids (NFC, no surrounding spaces),
    so that a query finds the state whichever way its name was typed.

    Raises:
        InvalidInputError: for an id no state can have (a control character, empty).
    """
    try:
        return normalise_id(state_id)
    except ValueError as exc:
        raise InvalidInputError("id", [("id", str(exc))]) from None


_DEFAULT_PROPOSER = EvidenceProposer()

_ATOM_STEPS = 12
"""How many atom steps ``why_not`` follows below a memory (the packs' rules chain a few)."""

LINKS = "atom_nodes"
"""How rule links are made, as the configuration logs it (``links``): through atom nodes
(:mod:`stategraph.nodes`). A log entry with rule packs and without it was linked memory to
memory, and is replayed with the links it carries (``linker="logged"``)."""

_OPTIMISTIC = 3
"""Times a revision is computed without the write lock (and committed only if no other writer
committed meanwhile) before it is computed holding the lock, which makes other writers wait."""


class _Remembering:
    """A judge that answers a question it already answered in this revision from memory, so
    a revision recomputed after another writer's commit does not ask the model again."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.name = judge.name
        self.model = judge.model
        self.prompt_version = getattr(judge, "prompt_version", PROMPT_VERSION)
        self._seen: dict[str, JudgeCall] = {}

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        # by position, not by the call's key: a judge may key under another prompt version
        keys = [question_key(q, self.model) for q in questions]
        new = [i for i, key in enumerate(keys) if key not in self._seen]
        made = self.judge.ask([questions[i] for i in new]) if new else []
        for i, call in zip(new, made, strict=True):
            self._seen[keys[i]] = call
        return [self._seen[key] for key in keys]


_PROMOTE_AFTER = 100_000
"""Allocations during a pause above which they are promoted unscanned (a small revision's
few thousand cost the collector well under a millisecond: they are left to it)."""


@contextmanager
def _paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a revision builds its working set.

    A large cone allocates hundreds of thousands of small objects and no reference cycles
    that need collecting mid-way; left on, the collector rescans every live object again and
    again, which made a 10^5-state cone 25% slower and grows faster than the cone.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] > _PROMOTE_AFTER and gc.get_freeze_count() == 0:
                # Every object allocated during the pause is still in the young generation, so
                # the first collection after it would scan them all (0.7 s after a 10^6-state
                # hub revision) to find no cycles. Freezing and unfreezing moves them, and the
                # few young objects of the caller's, to the oldest generation without a scan.
                # Skipped when the caller froze objects of its own, so as not to thaw them.
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _ids(value: Any, field: str) -> list[str]:
    """The ids one argument gives: one id or a list of them, strings only."""
    try:
        return list(id_list(value))
    except ValueError as exc:
        raise InvalidInputError("memory", [(field, str(exc))]) from None


def justifications_for(
    head: str,
    because: Iterable[Alternative] | Alternative | None = None,
    unless: Iterable[str] | str = (),
    context: Iterable[str] | str = (),
) -> list[Justification]:
    """Turn the ``because=`` / ``unless=`` / ``context=`` shorthand into justifications.

    Args:
        head: the state being justified.
        because: alternative justifications, as :func:`~stategraph.shapes.read_because`
            reads them: each a premise id, a list of ids that must all hold, or a mapping
            ``{"all": [...], "unless": [...]}``. ``["a", "b"]`` means "a, or else b";
            ``[["a", "b"]]`` means "a and b"; a single alternative may be given bare (``"a"``,
            or one mapping). A :class:`~stategraph.model.Justification` is taken as it is,
            under ``head``.
        unless: states whose holding blocks every alternative (a default that holds until
            one of them is asserted). With no ``because``, the state holds by default.
        context: memories that were in context when the state was written: one candidate
            (``recovered``) justification, each premise to be checked before it counts.

    Ids are strings: a number, a boolean or None where an id belongs is refused
    (``InvalidInputError``), never turned into text; a bare string is one id, never read as
    a list of its characters.
    """
    extra = _ids(unless, "unless")
    given: Any = because
    if isinstance(given, Justification):
        given = [given]
    elif isinstance(given, Iterable) and not isinstance(given, (str, bytes, Mapping, BaseModel)):
        given = list(given)
    out: list[Justification] = []
    if isinstance(given, list):  # a Justification among them is the caller's, kept whole
        out = [j.model_copy(update={"head": head}) for j in given if isinstance(j, Justification)]
        given = [alt for alt in given if not isinstance(alt, Justification)]
        if out and not given:
            given = None
    alternatives = [(a.all_, a.unless) for a in read_because(given)]
    if not alternatives and not out and extra:
        alternatives = [((), ())]
    for premises, blocks in alternatives:
        out.append(
            validated(
                Justification,
                {"head": head, "premises": premises, "unless": [*blocks, *extra]},
                "memory",
            )
        )
    ctx = _ids(context, "context")
    if ctx:
        out.append(
            validated(
                Justification,
                {"head": head, "premises": ctx, "origin": Origin.recovered},
                "memory",
            )
        )
    return out


def written(
    policy: Policy,
    state: State | Mapping[str, Any],
    because: Iterable[Alternative] | Alternative | None = None,
    unless: Iterable[str] | str = (),
    context: Iterable[str] | str = (),
) -> tuple[State, list[Justification]]:
    """A memory as :meth:`Memory.add` writes it: the state, and its justifications
    (:func:`justifications_for`). A fact's ``context`` is provenance, never a reason to doubt
    the fact: it is kept in the fact's ``metadata["context"]``, not as a candidate
    justification. Every surface that writes a memory writes it through here.

    Raises:
        InvalidInputError: the state or its basis does not validate.
    """
    st = validated(State, state, "memory")
    ids = _ids(context, "context")
    if ids and policy.is_exogenous(st):
        st, ids = st.model_copy(update={"metadata": {**st.metadata, "context": ids}}), []
    return st, justifications_for(st.id, because, unless, ids)


def check_limits(max_depth: int | None = None, max_cone: int | None = None) -> None:
    """Refuse a memory's limits before anything is opened or made (see :class:`Memory`).

    Raises:
        InvalidInputError: naming each limit out of range.
    """
    errors: list[tuple[str, str]] = []
    if max_depth is not None and max_depth < 0:
        errors.append(("max_depth", "must be None or >= 0"))
    if max_cone is not None and max_cone < 1:
        errors.append(("max_cone", "must be None or >= 1"))
    if errors:
        raise InvalidInputError("config", errors)


class Memory:
    """An agent's memory with dependency-aware revision.

    Every change goes through :meth:`revise`, which computes the well-founded model of the
    affected cone, writes the new state and a log entry in one transaction, and returns the
    :class:`~stategraph.model.Report`. Adding a state is a change too (it can block or restore
    others through ``unless``).

    Args:
        path: a SQLite file to open or create, or a store URL (``sqlite:///PATH``, or
            ``postgresql://...?tenant=NAME``: :mod:`stategraph.stores`); None keeps the store
            in memory.
        policy: the kinds this memory accepts and how they are graded.
        max_depth: how many hops one revision may cascade: it walks and solves no further,
            and the states one hop past it whose value it may change are marked
            ``needs_confirmation`` (cause ``depth_limit``) instead. None: no bound.
        max_cone: the most states one revision may walk and solve, level by level from the
            change (the states it names always are); past it, as past ``max_depth``, with
            cause ``cone_limit``. None: no cap. See ``docs/revision.md``, "A bounded revision".
        rules: rule packs (``rules/packs/<name>.lp`` by name, ``"all"``, or the path of a
            ``.lp`` file of your own) that link states through their atoms (see
            :mod:`stategraph.text.linking`). Persisted in the store.
        grounder: a registered grounder (``"stategraph.rule_grounder.v1"``) that fills the
            atoms of states added with text and no atoms. Persisted in the store.
        candidates: proposes candidate premises for a derived state added without a basis
            (:mod:`stategraph.text.candidates`); None proposes nothing beyond its ``context``.
        assume: a derived state added with no basis, no rule link and no candidate holds as
            an assumption of its source (an ``assumed`` justification, which ``why`` names).
            False leaves such a state without support, so it does not hold: for memories
            that must rest on declared or rule-derived support only.
        judge: asked about the candidate edges logic leaves undecided
            (:mod:`stategraph.judge.settle`); None: those states go to confirmation.
        judge_budget: what one revision may spend on the judge.
        busy_timeout: seconds to wait for another process's write lock (then
            :class:`~stategraph.errors.StoreBusyError`).
        create: create the store file if it is missing (False: a missing path is an error).
        linker: ``"incremental"`` (link only what new atoms can affect), ``"scratch"``
            (link every memory afresh at every change: the reference, for comparisons), or
            ``"logged"`` (link nothing: each change carries its rule links, as a replay of a
            log written before rule links went through atom nodes does).
        reversals: what to do with a new fact that reads as reversing or replacing a holding
            one ("Actually the Tokyo trip is cancelled" beside "The user flies to Tokyo on
            2027-04-10"; :mod:`stategraph.text.reversals`): ``"supersede"`` (the default)
            supersedes the old fact when the reading is clean (what the new fact negates or
            gives a new value is the old fact's atom, and no other fact's) and asks
            otherwise; ``"ask"`` always asks: the old fact and what rests on it go to
            confirmation, values kept, until a person answers. Either way the report lists it
            (:attr:`~stategraph.model.Report.reversals`), and both are never kept silently.
            Needs a grounder. None: the store's (a new store's is ``"supersede"``).
            Persisted in the store.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        policy: Policy | None = None,
        max_depth: int | None = None,
        max_cone: int | None = None,
        rules: Sequence[str] | str | None = None,
        grounder: str | None = None,
        store: Store | None = None,
        candidates: Proposer | None = _DEFAULT_PROPOSER,
        assume: bool = True,
        judge: Judge | None = None,
        judge_budget: JudgeBudget | None = None,
        busy_timeout: float = 30.0,
        create: bool = True,
        linker: str = "incremental",
        reversals: str | None = None,
    ) -> None:
        check_limits(max_depth, max_cone)
        if reversals is not None and reversals not in REVERSAL_POLICIES:
            why = f"one of {', '.join(REVERSAL_POLICIES)}, not {reversals!r:.40}"
            raise InvalidInputError("config", [("reversals", why)])
        self.max_cone = max_cone
        self.policy = policy or Policy()
        self.max_depth = max_depth
        self.store: Store = store or open_store(
            path if path is not None else ":memory:", busy_timeout=busy_timeout, create=create
        )
        self.rules, self.grounder = self._settings(rules, grounder)
        self.reversals = self._reversal_policy(reversals)
        self.candidates = candidates
        self.assume = assume
        self.judge = judge
        self.judge_budget = judge_budget or JudgeBudget()
        if linker not in ("incremental", "scratch", "logged"):
            raise InvalidInputError("config", [("linker", "'incremental', 'scratch' or 'logged'")])
        self.linker = linker
        self._prepared: Preparer | None = None
        if rules is not None:  # packs the caller names are read now: a bad one fails here
            self._preparer  # noqa: B018

    @property
    def _preparer(self) -> Preparer:
        """What prepares a change (grounding, rule links, candidates), made at the first
        revision: reading the rule packs takes a third of a second, which a memory opened to
        recall, show or explain never needs (packs the store keeps were read when stored)."""
        if self._prepared is None:
            self._prepared = Preparer(
                self.store, self.policy, self.rules, self.grounder, self.candidates, self.assume
            )
            if self.linker == "scratch":
                self._prepared.incremental = None
            elif self.linker == "logged":
                self._prepared.linking = False
        return self._prepared

    def _settings(
        self, rules: Sequence[str] | str | None, grounder: str | None
    ) -> tuple[tuple[str, ...], str | None]:
        if rules == "all":
            from stategraph.grounding.packs import list_packs

            rules = list_packs()
        if rules is None:
            rules = self.store.get_setting("rules") or ()
        elif tuple(rules) != tuple(self.store.get_setting("rules") or ()):
            self.store.set_setting("rules", list(rules))
        if grounder is None:
            grounder = self.store.get_setting("grounder")
        elif grounder != self.store.get_setting("grounder"):
            from stategraph.grounding import get_grounder

            get_grounder(grounder)  # fail early on an unknown name
            self.store.set_setting("grounder", grounder)
        return tuple(rules), grounder

    def _reversal_policy(self, given: str | None) -> str:
        """The store's ``reversals`` policy, set to ``given`` when that differs (a store that
        never set one has :data:`~stategraph.prepare.DEFAULT_REVERSALS`)."""
        stored = self.store.get_setting(REVERSALS_SETTING)
        now = stored if stored in REVERSAL_POLICIES else DEFAULT_REVERSALS
        if given is not None and given != now:
            self.store.set_setting(REVERSALS_SETTING, given)
            return given
        return str(now)

    @classmethod
    def open(cls, path: str | Path, **options: Any) -> Memory:
        """Open (or create) a memory stored in a SQLite file."""
        return cls(path, **options)

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ---- changes ------------------------------------------------------------------------

    @property
    def config(self) -> dict[str, Any]:
        """The configuration that decides verdicts; logged with every revision."""
        config: dict[str, Any] = {"max_depth": self.max_depth, "kinds": sorted(self.policy.kinds)}
        if self.max_cone is not None:  # absent when off: configs logged before it read the same
            config["max_cone"] = self.max_cone
        if self.rules:
            config["rules"] = list(self.rules)
        if self.grounder:
            config["grounder"] = self.grounder
        if self.candidates is not None:
            config["candidates"] = self.candidates.config()
        if not self.assume:
            config["assume"] = False
        if self.rules and self.linker != "logged":  # absent: linked memory to memory
            config["links"] = LINKS
        if self.grounder and self.reversals != DEFAULT_REVERSALS:  # absent: as before
            config["reversals"] = self.reversals
        if self.judge is not None:
            b = self.judge_budget
            budget: dict[str, Any] = {"calls": b.calls, "tokens": b.tokens, "rounds": b.rounds}
            if b.seconds is not None:  # absent when off: configs logged before it read the same
                budget["seconds"] = b.seconds
            config["judge"] = {"name": self.judge.name, "model": self.judge.model, "budget": budget}
        return config

    def revise(self, change: Change | Mapping[str, Any]) -> Report:
        """Apply a change and return the report; the store is untouched if anything fails.

        With a grounder, asserted states without atoms are grounded from their text first;
        with rule packs, the rule justifications the new atoms make possible are added to the
        change, and candidate (``context``) premises are checked against the rules.

        The change is the caller's: its justifications are ``declared`` or ``recovered``, and
        it carries no review (:mod:`stategraph.review.provenance`); a person's decision is made by
        :meth:`confirm` or :meth:`reject`, a judge's and the rules' by the revision itself.

        Raises:
            InvalidInputError: the change does not validate, or carries what only the engine
                writes.
        """
        return self._apply(check_change(validated(Change, change, "change")))

    def _apply(self, change: Change) -> Report:
        """Revise with a validated change, whoever may have made it: the engine's own path,
        for a review's change, and for copying stored justifications as they are (a rebuild
        from a memory's contents, a replay of applied changes). Never a caller's change:
        that goes through :meth:`revise`."""
        judge = _Remembering(self.judge) if self.judge is not None else None
        for _ in range(_OPTIMISTIC):
            try:
                return self._revise(change, judge, self.store.head())
            except ConcurrentChangeError:
                continue  # another writer committed meanwhile: recompute from what it wrote
        with self.store.transaction():  # still losing the race: compute holding the lock
            return self._revise(change, judge, self.store.head())

    def _apply_logged(self, change: Change, compatible: frozenset[str]) -> Report:
        """Revise with a change as a log entry completed it, without preparing it again: the
        replay of an entry linked before atom nodes (``linker="logged"``), whose rule links no
        linker of today makes (:mod:`stategraph.audit`). ``compatible``: the superseded ids
        its report graded as compatible updates."""
        judge = _Remembering(self.judge) if self.judge is not None else None
        with self.store.transaction():
            return self._revise(change, judge, self.store.head(), compatible)

    def _revise(
        self,
        change: Change,
        judge: _Remembering | None,
        head: tuple[int, str],
        logged: frozenset[str] | None = None,
    ) -> Report:
        """One attempt: compute from what the store holds now, commit if nobody else did
        (``logged``: the change is completed already, with these compatible updates)."""
        with _paused_gc():
            asked = change  # logged as given, for replay (stategraph.audit)
            calls: list[JudgeCall] = []
            budget = self.judge_budget
            if logged is None:
                # under ``ask`` a person answers every reversal; else a judge answers first
                judging = judge if self.reversals != "ask" else None
                change, reversals, possible = self._preparer.reversals(
                    change, self.reversals, judged=judging is not None
                )
                if judging is not None:
                    change, reversals, asked_judge, budget = self._judged_reversals(
                        judging, change, reversals, possible
                    )
                    calls += asked_judge
                change, compatible, link = self._preparer.prepare(change, judged=judge is not None)
            else:  # a replayed entry linked before atom nodes: completed as it was logged
                reversals = ()
                compatible, link = logged, LinkWrites()

            solve = functools.partial(
                solve_change,
                self.store,
                self.policy,
                max_depth=self.max_depth,
                max_cone=self.max_cone,
                compatible=compatible,
            )
            first = solve(change)
            rev = first[0]
            # a new fact told as a change stays a fact the change asserts, whether it was
            # asked about or made a supersession: it may defeat what rests on stand-ins
            told = {r.new for r in reversals if r.outcome == "superseded"}
            facts = [s for s in change.assert_ if self.policy.is_exogenous(s)] + [
                s.with_ for s in change.supersede if s.with_.id in told
            ]
            if judge is not None and (rev.report.needs_confirmation or facts):
                settled = settle(
                    judge,
                    budget,
                    self.store,
                    self.candidates,
                    change,
                    first,
                    solve,
                    facts,
                )
                rev = settled.revision
                calls += settled.calls
            elif facts and self.candidates is not None:
                rev = flag_blockers(rev, first[1], self.store, self.candidates, change, facts)
            if reversals:
                rev = self._noted(rev, reversals, solve)
            rev.writes.link = link
            self.store.commit(rev, self.config, calls, expect_head=head, asked=asked)
        return rev.report

    def _judged_reversals(
        self,
        judge: Judge,
        change: Change,
        reversals: tuple[Reversal, ...],
        possible: tuple[Reversal, ...],
    ) -> tuple[Change, tuple[Reversal, ...], tuple[JudgeCall, ...], JudgeBudget]:
        """The change and reversals once the judge has answered the asked ones and the
        possible ones (:mod:`stategraph.judge.reversals`), its calls, and what is left of the
        revision's judge budget (its deadline too: the reversals' time is the revision's). A
        possible reversal is reported only when the judge found it one."""
        budget = self.judge_budget
        if not possible and all(r.outcome != "asked" for r in reversals):
            return change, reversals, (), budget
        started = time.monotonic()
        judged = judge_reversals(
            judge,
            self.store,
            change,
            (*reversals, *possible),
            budget.calls,
            budget.tokens,
            budget.seconds,
        )
        found = judged.reversals[: len(reversals)] + tuple(
            r for r in judged.reversals[len(reversals) :] if r.outcome == "superseded"
        )
        seconds = budget.seconds
        if seconds is not None:
            seconds = max(0.0, seconds - (time.monotonic() - started))
        left = dataclasses.replace(
            budget,
            calls=max(0, budget.calls - judged.attempts),
            tokens=max(0, budget.tokens - judged.tokens),
            seconds=seconds,
        )
        return judged.change, found, judged.calls, left

    def _noted(
        self,
        rev: Revision,
        reversals: tuple[Reversal, ...],
        solve: Callable[[Change], tuple[Revision, SupportGraph]],
    ) -> Revision:
        """The revision with its reversals reported and what the asked ones put in question
        flagged (:mod:`stategraph.reversal`)."""
        kinds = {}
        for r in reversals:
            found = self.store.state(r.old)
            if found is not None:
                kinds[r.old] = found[0].kind
        actions = frozenset(k for k, kp in self.policy.kinds.items() if kp.action)
        return note_reversals(rev, reversals, solve, kinds, actions, self.store.heads_citing)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Revise many times in one transaction: all the revisions are written, or none.

        Each revision inside is logged as usual and sees the ones before it; if the block
        raises, the store is as it was before the block. Other writers wait for the block to
        end (up to their busy timeout); readers do not.
        """
        with self.store.transaction():
            yield

    def add(
        self,
        state: State | Mapping[str, Any],
        because: Iterable[Alternative] | None = None,
        unless: Iterable[str] = (),
        context: Iterable[str] = (),
    ) -> Report:
        """Add one state with its justifications (see :func:`justifications_for`).

        A fact's ``context`` is provenance, never a reason to doubt the fact: it is kept in the
        fact's ``metadata["context"]``, not as a candidate justification.
        """
        st, justs = written(self.policy, state, because, unless, context)
        return self.revise(Change(assert_=(st,), add_justifications=tuple(justs)))

    def fact(self, id: str, text: str = "", context: Iterable[str] = (), **fields: Any) -> Report:
        """Add a fact: it holds until retracted or superseded. Its ``context`` is provenance
        (kept in ``metadata["context"]``), never a reason to doubt it."""
        return self.add({"id": id, "kind": "fact", "text": text, **fields}, context=context)

    def belief(
        self,
        id: str,
        text: str = "",
        because: Iterable[Alternative] | None = None,
        unless: Iterable[str] = (),
        context: Iterable[str] = (),
        **fields: Any,
    ) -> Report:
        """Add a belief derived from other states."""
        st = {"id": id, "kind": "belief", "text": text, **fields}
        return self.add(st, because, unless, context)

    def plan(
        self,
        id: str,
        text: str = "",
        because: Iterable[Alternative] | None = None,
        unless: Iterable[str] = (),
        context: Iterable[str] = (),
        **fields: Any,
    ) -> Report:
        """Add a plan derived from other states."""
        st = {"id": id, "kind": "plan", "text": text, **fields}
        return self.add(st, because, unless, context)

    def action(
        self,
        id: str,
        text: str = "",
        because: Iterable[Alternative] | None = None,
        unless: Iterable[str] = (),
        context: Iterable[str] = (),
        status: str = "pending",
        **fields: Any,
    ) -> Report:
        """Add an action; a pending one is cancelled when it loses support."""
        st = {"id": id, "kind": "action", "text": text, "status": status, **fields}
        return self.add(st, because, unless, context)

    def bulk_load(
        self,
        states: Iterable[State | Mapping[str, Any]],
        justifications: Iterable[Justification | Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        """Load many new states at once: one transaction, one summary log entry.

        Much faster than adding states one by one (no per-state report), for imports and
        large stores. Both arguments may be generators: they are read once, states first, and
        the load keeps only a few integers per justification, so importing a million states
        from a file needs no million objects in memory. See :mod:`stategraph.store.bulk` for what it
        accepts.

        The justifications are the caller's, as in :meth:`revise`: ``declared`` or
        ``recovered``, without the fields only the engine fills in.

        Returns:
            The summary logged: counts, how many hold, and a digest of what was loaded.

        Raises:
            InvalidInputError: a state or justification does not validate, or a
                justification is one only the engine writes.
        """
        justs = (
            check_justification(validated(Justification, j, "justification"), f"justifications.{i}")
            for i, j in enumerate(justifications)
        )
        return self._bulk_load(states, justs)

    def _bulk_load(
        self,
        states: Iterable[State | Mapping[str, Any]],
        justifications: Iterable[Justification | Mapping[str, Any]],
    ) -> dict[str, Any]:
        """:meth:`bulk_load` without the check of who may write each justification: the
        engine's own path (see :meth:`_apply`)."""
        from stategraph.store.bulk import bulk_load
        from stategraph.store.sqlite import SQLiteStore

        if not isinstance(self.store, SQLiteStore):
            raise InvalidInputError("config", [("store", "bulk_load needs the SQLite store")])
        with _paused_gc():
            return bulk_load(
                self.store,
                self.policy,
                (validated(State, s, "state") for s in states),
                (validated(Justification, j, "justification") for j in justifications),
                self.config,
            )

    def retract(self, *ids: str) -> Report:
        """Retract states (they stay in the history, and never hold again)."""
        return self.revise(validated(Change, {"retract": ids}, "change"))

    def supersede(self, old: str, new: State | Mapping[str, Any]) -> Report:
        """Replace ``old`` by ``new`` (a fact unless ``new`` says otherwise)."""
        st = validated(State, new, "state")
        replace = validated(Supersession, {"id": old, "with": st}, "supersede")
        return self.revise(Change(supersede=(replace,)))

    def confirm(
        self, state_id: str, *, by: str, note: str = "", at: datetime | str | None = None
    ) -> Report:
        """Settle a state waiting for review: it holds, on ``by``'s word (a ``review``
        justification without premises; see :mod:`stategraph.review`), and what rests on it
        is restored. ``at``: when, if it is to be recorded (never read from the clock)."""
        return self._review(state_id, Decision.confirmed, by, note, at)

    def reject(
        self, state_id: str, *, by: str, note: str = "", at: datetime | str | None = None
    ) -> Report:
        """Settle a state waiting for review: it is retracted, and what rests on it alone
        goes; the log records who decided, and why."""
        return self._review(state_id, Decision.rejected, by, note, at)

    def _review(
        self, state_id: str, decision: Decision, by: str, note: str, at: datetime | str | None
    ) -> Report:
        state_id = _id(state_id)
        with self.atomic():  # checked and settled under one write lock
            return self._apply(review_change(self.store, state_id, decision, by, note, at))

    # ---- queries ------------------------------------------------------------------------

    def review_groups(self, prefix: str | None = None) -> list[ReviewGroup]:
        """What waits for review, grouped by the change each memory's basis names: one
        question a group for a person ("Since ..., do these still hold? ..."), each memory in
        one group (:mod:`stategraph.review.questions`). ``prefix``: quote only memories of
        this namespace."""
        pending = self.pending_review()
        states = {p.id: self.state(p.id) for p in pending}
        return review_groups(self, [(states[p.id], p.reason) for p in pending], prefix)

    def pending_review(self) -> list[PendingReview]:
        """The states waiting for a person (``needs_confirmation`` still standing), oldest
        flag first, each with why; settle them with :meth:`confirm` or :meth:`reject`."""
        return pending_review(self.store, self.policy)

    def recall(
        self,
        query: str,
        k: int = 10,
        *,
        kinds: Sequence[str] | None = None,
        include_doubtful: bool = True,
        include_invalidated: bool = False,
        as_of: AsOf | None = None,
        embedder: Embedder | None = None,
    ) -> list[Recalled]:
        """The ``k`` memories that best match ``query`` (full-text ranking over words and
        grounded atoms), each with its status: what does not hold is left out unless
        ``include_invalidated`` (then with its why-not), and what is in doubt comes with
        ``ask_first``, the question to put to the user before relying on it
        (:mod:`stategraph.recall`).

        With ``as_of`` (a revision or a time, as :meth:`as_of` takes), the statuses are the
        ones then and only memories that existed then are returned; the ranking is the present
        index's (see :meth:`MemoryAsOf.recall <stategraph.asof.MemoryAsOf.recall>`).

        With an ``embedder`` (e.g. :class:`~stategraph.embedder.OpenAIEmbedder`), the lexical
        best :data:`~stategraph.recall.RERANK_DEPTH` are reordered by embedding similarity to
        the query (:mod:`stategraph.rerank`); each memory's vector is cached in the store. If
        the embedder fails, the lexical order stands and each result's reason says why.

        Raises:
            InvalidInputError: an empty query, one over
                :data:`~stategraph.recall.MAX_QUERY_CHARS`, or ``k`` outside 1..1000.
            AsOfRangeError: ``as_of`` names no revision the memory can show.
        """
        from stategraph.recall import recall

        if as_of is not None:
            return self.as_of(as_of).recall(
                query,
                k,
                kinds=kinds,
                include_doubtful=include_doubtful,
                include_invalidated=include_invalidated,
            )

        return recall(
            self,
            query,
            k,
            kinds=kinds,
            include_doubtful=include_doubtful,
            include_invalidated=include_invalidated,
            embedder=embedder,
        )

    def as_of(self, when: AsOf) -> MemoryAsOf:
        """The memory as it was right after a revision: a read-only view with ``truth``,
        ``holding``, ``states``, ``why``, ``why_not``, ``recall`` and ``pending_review``
        answering exactly as they did then (:mod:`stategraph.asof`).

        Args:
            when: a revision's sequence number (``history`` lists them), or a time (a
                ``datetime`` or an ISO 8601 text; without a zone, UTC), meaning the last
                revision committed at or before it.

        Raises:
            AsOfRangeError: ``when`` is before the first revision (or, in a store migrated
                from a stategraph that kept no past, before the migration), after the last
                one, or a time in the future; the message gives the range that can be read.
        """
        from stategraph.store.sqlite import SQLiteStore

        if not isinstance(self.store, SQLiteStore):
            raise InvalidInputError(
                "as_of", [("store", "as_of needs the SQLite or PostgreSQL store")]
            )
        past = PastStore(self.store, resolve(self.store, when))
        return MemoryAsOf(past, self.policy, self.grounder)

    def _row(self, state_id: str) -> tuple[State, bool, Truth]:
        state_id = _id(state_id)
        found = self.store.state(state_id)
        if found is None:
            raise UnknownStateError(state_id)
        return found

    def truth(self, state_id: str) -> Truth:
        """A state's value in the current well-founded model."""
        return self._row(state_id)[2]

    def holding(self) -> frozenset[str]:
        """Ids of every memory that holds (atom nodes, :mod:`stategraph.nodes`, are no
        memories: ``truth`` and ``why`` read them by id)."""
        return frozenset(s for s in self.store.ids_with_truth(Truth.true) if not is_internal(s))

    def undefined(self) -> frozenset[str]:
        """Ids of every memory whose value is undecided."""
        ids = self.store.ids_with_truth(Truth.undefined)
        return frozenset(s for s in ids if not is_internal(s))

    def state(self, state_id: str) -> State:
        """One state (active or not)."""
        return self._row(state_id)[0]

    def states(self) -> list[State]:
        """Every memory, active or not, sorted by id (atom nodes left out)."""
        return [s for s in self.store.states() if not is_internal(s.id)]

    def is_active(self, state_id: str) -> bool:
        """True unless the state was retracted or superseded."""
        return self._row(state_id)[1]

    def justifications(self, head: str | None = None) -> list[Justification]:
        """Every justification of a memory (or those of one head, an atom node's too),
        sorted."""
        if head is not None:
            return self.store.justifications(self._row(head)[0].id)
        return [j for j in self.store.justifications() if not is_internal(j.head)]

    def why(self, state_id: str) -> Proof:
        """A minimal-height, non-circular proof of a holding state."""
        state_id = _id(state_id)
        return why(self.store.ancestors(state_id), self.policy, state_id)

    def why_not(self, state_id: str) -> WhyNot:
        """For each justification, the first premise that fails or the ``unless`` that blocks,
        and the same for each atom node those are (down to the memories that decide them)."""
        state_id = _id(state_id)
        return self._why_not(state_id, set())

    def _why_not(self, state_id: str, seen: set[str], depth: int = 0) -> WhyNot:
        found = why_not(self.store.subgraph([state_id]), self.policy, state_id)
        seen.add(state_id)
        if depth >= _ATOM_STEPS:
            return found
        named = [x for it in found.items for x in (it.first_failed, it.blocked_by) if x]
        if is_internal(state_id) and found.truth is Truth.true:
            # an atom that holds (a blocker): down its first holding justification to the
            # memory that carries it
            held = [it for it in found.items if it.value is Truth.true][:1]
            named += [p for it in held for p in it.justification.premises]
        below = [
            self._why_not(x, seen, depth + 1)
            for x in dict.fromkeys(named)
            if is_internal(x) and x not in seen
        ]
        return found.model_copy(update={"below": tuple(below)}) if below else found

    def history(self, limit: int | None = None, since: Since = None) -> list[LogEntry]:
        """The revision log (or its last ``limit`` entries after ``since``, a sequence number
        or a time), oldest first; :meth:`SQLiteStore.iter_history
        <stategraph.store.SQLiteStore.iter_history>` streams it."""
        return self.store.history(limit, since)

    def verify_log(self, expect_head: tuple[int, str] | None = None, deep: bool = False) -> int:
        """Check the log's hash chain (and that it still reaches ``expect_head``, a head
        recorded earlier); with ``deep``, also that the stored tables hold what the log's
        revisions wrote (reads every row: :mod:`stategraph.store.tables`). Returns the number of
        entries; raises :class:`~stategraph.errors.LogIntegrityError` (or its
        :class:`~stategraph.errors.HeadMismatchError` for a head the log does not reach), and
        :class:`~stategraph.errors.InvalidInputError` for a head no log can have (a negative
        sequence number, a hash that is not 64 lower-case hex digits)."""
        return self.store.verify(expect_head, deep)

    def head(self) -> tuple[int, str]:
        """The log's head (sequence number and hash): keep it elsewhere to check later that no
        entry was removed from the end (:meth:`verify_log`)."""
        return self.store.head()
