"""A from-scratch well-founded-model oracle for declared-track cases.

It shares no code with the engine on purpose: it is the independent check that the hand-written
gold of each case follows the semantics in DESIGN.md. The well-founded model is computed with the
alternating fixpoint (Van Gelder): ``Γ(I)`` is the least model of the program reduced by ``I``;
the true atoms are the least fixpoint of ``Γ∘Γ`` and the possibly-true atoms are ``Γ`` of that.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from stategraph.bench.cases import Case

Rule = tuple[str, frozenset[str], frozenset[str]]
"""``(head, positive body, negative body)``."""


def least_model(facts: set[str], rules: list[Rule], assumed: set[str]) -> set[str]:
    """Least model of the positive program left after removing rules blocked by ``assumed``."""
    live = [(h, pos) for h, pos, neg in rules if not (neg & assumed)]
    model = set(facts)
    changed = True
    while changed:
        changed = False
        for head, pos in live:
            if head not in model and pos <= model:
                model.add(head)
                changed = True
    return model


def well_founded(facts: set[str], rules: list[Rule]) -> tuple[set[str], set[str]]:
    """``(true, undefined)`` atoms of the well-founded model."""
    true: set[str] = set()
    while True:
        possible = least_model(facts, rules, true)
        new_true = least_model(facts, rules, possible)
        if new_true == true:
            return true, possible - true
        true = new_true


@dataclass
class Outcome:
    """What the semantics says a case's change does."""

    invalidated: set[str] = field(default_factory=set)
    needs_confirmation: set[str] = field(default_factory=set)
    restored: set[str] = field(default_factory=set)
    still_true: set[str] = field(default_factory=set)
    consequences: dict[str, str] = field(default_factory=dict)
    depth: dict[str, int] = field(default_factory=dict)


def _program(case: Case, removed: set[str], added: set[str]) -> tuple[set[str], list[Rule]]:
    facts = {m.id for m in case.memories if m.kind == "fact" and m.id not in removed} | added
    rules: list[Rule] = []
    for m in case.memories:
        if m.id in removed:
            continue
        for alt in m.because:
            rules.append((m.id, frozenset(alt.all), frozenset(alt.unless)))
    return facts, rules


def _depths(case: Case) -> dict[str, int]:
    children: dict[str, set[str]] = {}
    for m in case.memories:
        for alt in m.because:
            for src in (*alt.all, *alt.unless):
                children.setdefault(src, set()).add(m.id)
    dist = {s: 0 for s in case.change.changed_ids()}
    queue = deque(dist)
    while queue:
        node = queue.popleft()
        for child in sorted(children.get(node, ())):
            if child not in dist:
                dist[child] = dist[node] + 1
                queue.append(child)
    return dist


def evaluate(case: Case) -> Outcome:
    """Compute the gold a declared-track case must have."""
    before_true, before_undef = well_founded(*_program(case, set(), set()))
    added = {m.id for m in case.change.added()}
    after_true, after_undef = well_founded(*_program(case, case.change.removed_ids(), added))
    out = Outcome()
    depth = _depths(case)
    changed = case.change.changed_ids()
    for m in case.memories:
        if m.id in changed or m.kind == "fact":
            continue
        was = "T" if m.id in before_true else "U" if m.id in before_undef else "F"
        now = "T" if m.id in after_true else "U" if m.id in after_undef else "F"
        if was == now:
            if now == "T":
                out.still_true.add(m.id)
            continue
        executed = m.kind == "action" and m.status == "executed"
        if now == "U" or (now == "F" and executed):
            out.needs_confirmation.add(m.id)
            if m.kind == "action":
                out.consequences[m.id] = "review"
        elif now == "F":
            out.invalidated.add(m.id)
            if m.kind == "action":
                out.consequences[m.id] = "cancel"
        else:
            out.restored.add(m.id)
        out.depth[m.id] = depth[m.id]
    facts_kept = {m.id for m in case.memories if m.kind == "fact" and m.id not in changed}
    out.still_true |= facts_kept
    return out
