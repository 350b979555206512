"""The synthetic workload: a seeded random support graph shaped like an agent's memory.

States are numbered ``0..n-1`` (``s<i>`` in the store) and grouped in *topics* of ``block``
consecutive states; a derived state cites earlier states of its own topic, so a random premise's
cone stays around the size of a topic (tens of states), as it does for real memories. A few
premises reach back across topics (``cross``), a few justifications cite a *later* state of the
topic (``back``: support cycles), a few carry an ``unless`` on a fact of the topic, and one *hub*
fact (state 0) is cited by a share of all derived states, so its cone spans a large part of the
store.

``unless`` conditions only ever cite facts. Facts have no justification, so no cycle runs through
negation: the program is stratified, its well-founded model is its unique stable model, and a
single least fixpoint or a single clingo solve computes it exactly. That keeps every alternative
honest (one solve, no alternating fixpoint) while still exercising ``unless`` in the engine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["ACTION", "BELIEF", "FACT", "KIND_NAMES", "PLAN", "Just", "Workload", "generate"]

FACT, BELIEF, PLAN, ACTION = 0, 1, 2, 3
KIND_NAMES = ("fact", "belief", "plan", "action")

Just = tuple[int, tuple[int, ...], tuple[int, ...]]
"""One justification as ``(head, premises, unless)``, every id a state number."""


@dataclass
class Workload:
    """A generated support graph and the premises a benchmark retracts, in order.

    Attributes:
        n: number of states.
        seed: the seed it was generated from.
        kind: per state, ``FACT``, ``BELIEF``, ``PLAN`` or ``ACTION`` (a pending action).
        justs: every justification; heads are derived states.
        hub: the hub fact, cited by a share of all derived states.
        premises: random facts (not the hub) retracted one after another, before the hub.
    """

    n: int
    seed: int
    kind: bytearray
    justs: list[Just]
    hub: int
    premises: list[int] = field(default_factory=list)

    def is_fact(self, i: int) -> bool:
        """True for an exogenous state (it holds while it is not retracted)."""
        return self.kind[i] == FACT

    def facts(self) -> list[int]:
        """Every fact, in id order."""
        return [i for i in range(self.n) if self.kind[i] == FACT]

    @staticmethod
    def sid(i: int) -> str:
        """The store id of state ``i``."""
        return f"s{i}"

    @staticmethod
    def num(state_id: str) -> int:
        """The state number of a store id (inverse of :meth:`sid`)."""
        return int(state_id[1:])


def generate(
    n: int,
    seed: int = 0,
    premises: int = 50,
    *,
    block: int = 64,
    fact_rate: float = 0.2,
    cross: float = 0.005,
    back: float = 0.01,
    unless: float = 0.03,
    hub_share: float = 0.03,
) -> Workload:
    """Generate a workload; the same arguments always give the same graph.

    Args:
        n: number of states (at least 2).
        seed: random seed.
        premises: how many random facts the benchmark retracts (fewer if the store is small).
        block: topic size; premises are drawn from earlier states of the same topic.
        fact_rate: share of states that are facts (the first state of each topic is one).
        cross: chance that one premise is any earlier state instead (long-range support).
        back: chance that a justification also cites a later state of its topic (a cycle).
        unless: chance that a justification carries ``unless`` on an earlier fact of its topic.
        hub_share: share of derived states with one justification that also cites the hub.
    """
    if n < 2:
        raise ValueError("a workload needs at least 2 states")
    rng = random.Random(seed)
    kind = bytearray(n)
    justs: list[Just] = []
    topic_facts: list[int] = []
    hub = 0
    for i in range(n):
        start = i - i % block
        if i == start:
            topic_facts = []
        if i == start or rng.random() < fact_rate:
            kind[i] = FACT
            topic_facts.append(i)
            continue
        r = rng.random()
        kind[i] = BELIEF if r < 0.8 else PLAN if r < 0.9 else ACTION
        end = min(start + block, n)
        seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
        alternatives = rng.randint(1, 3)
        with_hub = rng.randrange(alternatives) if rng.random() < hub_share else -1
        for a in range(alternatives):
            body = {
                rng.randrange(i) if rng.random() < cross else rng.randrange(start, i)
                for _ in range(rng.randint(1, 3))
            }
            if rng.random() < back and i + 1 < end:
                body.add(rng.randrange(i + 1, end))
            if a == with_hub:
                body.add(hub)
            blocks: tuple[int, ...] = ()
            if rng.random() < unless:
                candidates = [f for f in topic_facts if f not in body and f != hub]
                if candidates:
                    blocks = (rng.choice(candidates),)
            key = (tuple(sorted(body)), blocks)
            if key not in seen:
                seen.add(key)
                justs.append((i, *key))
    wl = Workload(n=n, seed=seed, kind=kind, justs=justs, hub=hub)
    pool = [f for f in wl.facts() if f != hub]
    wl.premises = random.Random(seed + 1).sample(pool, min(premises, len(pool)))
    return wl
