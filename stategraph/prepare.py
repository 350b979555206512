"""Preparing a change for revision: what the grounder and the rule packs add to it.

Before the logic runs, a change is completed: asserted states with text and no atoms are
grounded; the rule justifications that the store's atoms now make possible are added (and
those no longer produced are removed); the candidate premises of ``recovered``
justifications are checked where logic can decide them; and a supersession whose replacement
still supports the same conclusions is marked compatible. The completed change is what the
revision applies and what the log records.

Cost: linking re-derives over every stored state that carries atoms whenever a change asserts
states with atoms, so with rule packs on, adding a memory costs in proportion to the
atom-carrying part of the store, not to the cone (retractions do not relink). Incremental
linking (only the firings the new atoms take part in) is the way to lift this.
"""

from __future__ import annotations

from collections.abc import Sequence

from stategraph.linking import Links, RuleLinker
from stategraph.model import Change, EdgeCheck, Justification, Origin, State
from stategraph.policy import Policy
from stategraph.store import Store

__all__ = ["Preparer"]


class Preparer:
    """Completes changes for one memory.

    Args:
        store: where the memory lives (read only here).
        policy: kinds and their behaviour.
        rules: rule packs to link states with (none: no rule justifications).
        grounder: registered grounder name for texts without atoms (None: no grounding).
    """

    def __init__(
        self, store: Store, policy: Policy, rules: Sequence[str], grounder: str | None
    ) -> None:
        self.store = store
        self.policy = policy
        self.grounder = grounder
        self.linker: RuleLinker | None = RuleLinker(rules) if rules else None

    def prepare(self, change: Change) -> tuple[Change, frozenset[str]]:
        """The completed change, and the ids of compatibly superseded states."""
        return self.link(self.ground(change))

    def ground(self, change: Change) -> Change:
        """Fill the atoms of asserted states that have text and no atoms."""
        name = self.grounder
        if name is None:
            return change
        from stategraph.grounding import ground

        def grounded(st: State) -> State:
            if st.atoms or not st.text:
                return st
            # The memory's own creation year dates "12月" / "in December"; never the clock,
            # so grounding the same state again gives the same atoms. Without a creation
            # time such dates stay year-less ("--12") and next_date places them.
            year = st.created_at.year if st.created_at is not None else None
            atoms = tuple(ground(st.text, reference_year=year, grounder=name).texts)
            return st.model_copy(update={"atoms": atoms})

        return change.model_copy(
            update={
                "assert_": tuple(grounded(s) for s in change.assert_),
                "supersede": tuple(
                    s.model_copy(update={"with_": grounded(s.with_)}) for s in change.supersede
                ),
            }
        )

    def link(self, change: Change) -> tuple[Change, frozenset[str]]:
        """Add rule justifications and candidate checks; find compatible supersessions."""
        new_states = [*change.assert_, *(s.with_ for s in change.supersede)]
        links = None
        added: list[Justification] = []
        stale: list[Justification] = []
        if self.linker is not None and any(s.atoms for s in new_states):
            # Link over every state with atoms, retracted ones too: they are false, so a
            # justification citing one fails and one blocked by one is free, as it should be;
            # the rule justifications of a head are then a function of the store's atoms.
            states = {s.id: s for s in self.store.with_atoms()}
            states.update({s.id: s for s in new_states})
            derived = [s for s, st in states.items() if not self.policy.is_exogenous(st)]
            links = self.linker.link({s: st.atoms for s, st in states.items()}, derived)
            produced = {j.key: j for j in links.justifications()}
            known = self.store.existing(produced)
            added = [j for k, j in produced.items() if k not in known]
            stale = [
                j
                for j in self.store.justifications_for(derived)
                if j.origin is Origin.rule and j.key not in produced
            ]
        compatible = frozenset(
            s.id
            for s in change.supersede
            if added
            and {j.head for j in self.store.citing(s.id) if j.origin is Origin.rule}
            & {j.head for j in added if s.with_.id in j.premises}
        )
        checked = tuple(self.check(j, change, links) for j in change.add_justifications)
        if not added and not stale and checked == change.add_justifications:
            return change, compatible
        update = {
            "add_justifications": checked + tuple(added),
            "remove_justifications": change.remove_justifications + tuple(stale),
        }
        return change.model_copy(update=update), compatible

    def check(self, j: Justification, change: Change, links: Links | None) -> Justification:
        """Classify the candidate premises of a recovered justification, where logic can."""
        if not j.candidates():
            return j
        head = next((s for s in change.assert_ if s.id == j.head), None)
        if head is None and (found := self.store.state(j.head)) is not None:
            head = found[0]
        others = [
            o
            for o in (*change.add_justifications, *self.store.justifications(j.head))
            if o.head == j.head and o.origin is not Origin.recovered
        ]
        checked, notes = dict(j.checked), dict(j.notes)
        for p in j.candidates():
            verdict = None
            if head is not None and self.policy.is_exogenous(head):
                verdict = (EdgeCheck.independent, f"{j.head} is a fact: it holds on its own")
            elif links is not None and (by_rules := links.check(j.head, p)) is not None:
                verdict = by_rules
            else:
                other = next((o for o in others if p not in o.premises), None)
                if other is not None:
                    verdict = (
                        EdgeCheck.independent,
                        f"{j.head} has a {other.origin.value} justification "
                        f"[{', '.join(other.premises)}] without {p}",
                    )
            if verdict is not None:
                checked[p], notes[p] = verdict
        return j.model_copy(update={"checked": checked, "notes": notes})
