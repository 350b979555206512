"""The adapter from the test-side vocabulary (:mod:`stategraph.testing.graphs`) to the real
stategraph API.

Kept thin on purpose: it translates, it never decides. Everything the properties check is
computed on the test side (oracle, mirror, hop distances), so a bug here shows up as a
disagreement instead of being hidden.

A user's memory may accept kinds of its own (``Policy.with_kind``): the scenarios speak of
``fact``, ``belief``, ``plan`` and ``action``, and :func:`kinds_for` maps each onto a kind the
memory's policy accepts with the same behaviour (exogenous, derived, graded as an action), so
the same generated graphs and the same oracle apply to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from stategraph import (
    Change,
    Justification,
    Memory,
    Policy,
    Report,
    State,
    Supersession,
    Verdict,
)
from stategraph.testing import reach
from stategraph.testing.graphs import DERIVED_KINDS, FACT, ChangeSpec, Just, Node

__all__ = [
    "MemoryFactory",
    "StategraphEngine",
    "kinds_for",
    "rebuild",
    "to_change",
    "to_justification",
    "to_state",
]

MemoryFactory = Callable[[], Memory]
"""Makes a fresh, empty memory configured as the user's is (policy, rules, grounder, ...)."""


def kinds_for(policy: Policy) -> dict[str, str]:
    """The policy's kind for each scenario kind: the kind itself where the policy has it with
    the same behaviour, else the first (by name) that behaves alike.

    ``fact`` needs an exogenous kind; ``action`` an action kind (else any derived kind: the
    states then hold and fall alike, only their grading differs); ``belief`` and ``plan``
    derived kinds that are not actions (else an action kind).

    Raises:
        ValueError: the policy has no exogenous kind, or no derived one.
    """
    kinds = policy.kinds
    facts = sorted(k for k, p in kinds.items() if p.exogenous)
    actions = sorted(k for k, p in kinds.items() if p.action and not p.exogenous)
    plain = sorted(k for k, p in kinds.items() if not p.action and not p.exogenous)
    if not facts or not actions + plain:
        raise ValueError("the policy needs an exogenous kind and a derived kind to be tested")
    derived = plain or actions
    out = {FACT: _pick(FACT, facts, 0), "action": _pick("action", actions or plain, 0)}
    for n, name in enumerate(k for k in DERIVED_KINDS if k != "action"):
        out[name] = _pick(name, derived, n)
    return out


def _pick(name: str, pool: list[str], n: int) -> str:
    """``name`` if the pool has it, else the pool's ``n``-th kind (its last, if shorter)."""
    return name if name in pool else pool[min(n, len(pool) - 1)]


def to_state(node: Node, kinds: Mapping[str, str] | None = None) -> State:
    """The engine's State for a test node (the text just names it), of the kind ``kinds``
    maps its kind to (by default its own)."""
    kind = kinds.get(node.kind, node.kind) if kinds else node.kind
    text = f"{node.kind} {node.id}"
    return State(id=node.id, kind=kind, text=text, status=node.status, atoms=node.atoms)


def to_justification(j: Just) -> Justification:
    """The engine's Justification for a test justification (origin: declared)."""
    return Justification(head=j.head, premises=j.premises, unless=j.unless)


def to_change(spec: ChangeSpec, kinds: Mapping[str, str] | None = None) -> Change:
    """The engine's Change for a test change."""
    return Change(
        retract=spec.retract,
        assert_=tuple(to_state(n, kinds) for n in spec.assert_),
        supersede=tuple(
            Supersession.model_validate({"id": old, "with": to_state(new, kinds)})
            for old, new in spec.supersede
        ),
        add_justifications=tuple(to_justification(j) for j in spec.add),
        remove_justifications=tuple(to_justification(j) for j in spec.remove),
    )


class StategraphEngine:
    """The real engine behind the :class:`~stategraph.testing.harness.Engine` protocol.

    Args:
        path: a SQLite file (the memory can then be closed and reopened); None keeps it in
            memory.
        memory: makes the memory to drive instead (a user's configuration); then ``path``
            must be None.
        kinds: the memory's kind for each scenario kind; by default :func:`kinds_for` its
            policy.
    """

    name = "stategraph"

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        memory: MemoryFactory | None = None,
        kinds: Mapping[str, str] | None = None,
    ) -> None:
        if path is not None and memory is not None:
            raise ValueError("give a path or a memory factory, not both")
        self.path = path
        # Candidate proposal is held to its own properties (tests/properties/test_candidates.py);
        # here a state written without a basis holds as an assumption, which the mirror models.
        self.memory = memory() if memory is not None else Memory(path, candidates=None)
        self.kinds = dict(kinds) if kinds is not None else kinds_for(self.memory.policy)
        self.reports: list[Report] = []
        self.reached: set[str] = set()
        """What this example's changes reached (:func:`~stategraph.testing.reach.note`)."""
        self.revised = False

    def add(self, node: Node, justs: Sequence[Just]) -> Report:
        """``Memory.add`` with each justification as one ``{"all", "unless"}`` alternative."""
        because = [{"all": list(j.premises), "unless": list(j.unless)} for j in justs]
        report = self.memory.add(to_state(node, self.kinds), because=because or None)
        self.reports.append(report)
        return report

    def revise(self, change: ChangeSpec) -> Report:
        """``Memory.revise`` of the translated change."""
        report = self.memory.revise(to_change(change, self.kinds))
        self.reports.append(report)
        self.revised = True
        self._note(report)
        return report

    def _note(self, report: Report) -> None:
        """Which of the cases the properties are about this change reached."""
        verdicts = {e.verdict for e in report.entries}
        for feature, reached in (
            ("a non-empty report", bool(report.entries)),
            ("an invalidated state", Verdict.invalidated in verdicts),
            ("a needs_confirmation entry", Verdict.needs_confirmation in verdicts),
            ("an undefined state", bool(self.memory.undefined())),
            ("an action's consequence", any(e.consequence for e in report.entries)),
            ("a candidate premise", any(j.candidates() for j in self.memory.justifications())),
        ):
            if reached:
                self.reached.add(feature)

    def holding(self) -> frozenset[str]:
        """Ids of the states that hold."""
        return self.memory.holding()

    def undefined(self) -> frozenset[str]:
        """Ids of the states that are undefined."""
        return self.memory.undefined()

    def reopen(self) -> None:
        """Close the SQLite store and open it again (a new process would see the same)."""
        if self.path is None:
            raise ValueError("reopen needs a file-backed memory")
        self.memory.close()
        self.memory = Memory(self.path, candidates=None)

    def close(self) -> None:
        """Close the memory's store, and count what the example reached
        (:func:`~stategraph.testing.reach.note`)."""
        if self.revised:
            reach.note(self.reached)
        self.memory.close()


def rebuild(memory: Memory, *, bulk: bool = False, path: str | Path | None = None) -> Memory:
    """A fresh Memory (in memory, or at ``path``) holding ``memory``'s final contents,
    computed from scratch.

    Every state (active or not) and every justification go in at once, then the inactive
    states are retracted: the result must agree with the incremental history that led to
    ``memory``. ``bulk=True`` loads through ``bulk_load`` (one whole-program solve) instead
    of one ``revise`` (one cone covering everything), a second independent path. The fresh
    memory has ``memory``'s policy and nothing that would add to the contents (no rule packs,
    no candidates, no assumptions): the justifications are copied as they are.
    """
    # every state and justification, the atom nodes of rule links among them
    states = memory.store.states()
    justifications = memory.store.justifications()
    fresh = Memory(path, policy=memory.policy, candidates=None, assume=False)
    # the engine's own path: the copies keep their origins (rule, judge, review, assumed),
    # which no caller may write (stategraph.review.provenance)
    if bulk:
        fresh._bulk_load(states, justifications)
    else:
        fresh._apply(Change(assert_=tuple(states), add_justifications=tuple(justifications)))
    inactive = tuple(s.id for s in states if not memory.is_active(s.id))
    if inactive:
        fresh.revise(Change(retract=inactive))
    return fresh
