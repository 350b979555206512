"""Preparing a change for revision: what grounding, rule packs and candidates add to it.

Before the logic runs, a change is completed: asserted states with text and no atoms are
grounded; the rule justifications that the store's atoms now make possible are added (and
those no longer produced are removed); a derived state asserted without a basis of its own
gets candidate premises (:mod:`stategraph.text.candidates`) or, with nothing to propose, an
``assumed`` justification; the candidate premises of ``recovered`` justifications are
checked where logic can decide them; and a supersession whose replacement still supports the
same conclusions is marked compatible. The completed change is what the revision applies and
what the log records.

Cost: linking costs what it changes (issues 23 and 40). Rule links go through atom nodes
(:mod:`stategraph.text.linking`): with the store's atom index, a change evaluates again only
the atoms whose firings watch a pattern its new atoms match, and writes the justifications
that differ; a new fact carrying an atom a thousand memories rest on is one justification of
that atom's node.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from stategraph.engine.policy import Policy
from stategraph.engine.revise import LinkWrites
from stategraph.grounding.reading import WITHHELD, Reading, read, withheld_atoms
from stategraph.grounding.terms import argument_terms
from stategraph.model import (
    Change,
    EdgeCheck,
    Justification,
    Origin,
    Reversal,
    ReversalPolicy,
    State,
    Supersession,
)
from stategraph.nodes import ATOM_KIND
from stategraph.store.sqlite import Store
from stategraph.text.atom_index import LINKED_SETTING
from stategraph.text.candidates import Proposer
from stategraph.text.linking import (
    IncrementalLinker,
    LinkDelta,
    StoredGraph,
    downstream_memories,
    link_from_scratch,
    reached_nodes,
)
from stategraph.text.linking import check as check_by_rules

if TYPE_CHECKING:
    from stategraph.grounding.result import Grounding
    from stategraph.text.atom_index import LinkIndex

REVERSALS_SETTING = "reversals"
"""The setting holding the store's policy for a new fact that reads as reversing or replacing
a holding one (:data:`REVERSAL_POLICIES`; absent: :data:`DEFAULT_REVERSALS`)."""

REVERSAL_POLICIES = tuple(p.value for p in ReversalPolicy)
"""``supersede``: a clean reversal of one fact (:mod:`stategraph.text.reversals`) supersedes
it, and any other is asked about; ``ask``: every reversal is asked about (the old fact and
what rests on it wait for a person, :mod:`stategraph.reversal`); ``check``: as ``supersede``,
and with a judge every new fact is checked, turn or not (:meth:`Preparer.reversals`)."""

DEFAULT_REVERSALS = ReversalPolicy.supersede.value

_UNREAD = "superseded"
"""The method of a candidate left by a rule link through a fact whose replacement the
grounder could not read (:meth:`Preparer.unread_replacements`)."""

__all__ = [
    "DEFAULT_REVERSALS",
    "REVERSALS_SETTING",
    "REVERSAL_POLICIES",
    "WITHHELD",
    "Preparer",
]


class Preparer:
    """Completes changes for one memory.

    Args:
        store: where the memory lives (read only here).
        policy: kinds and their behaviour.
        rules: rule packs to link states with (none: no rule justifications).
        grounder: registered grounder name for texts without atoms (None: no grounding).
        proposer: proposes candidate premises for derived states asserted without a basis
            (None: such a state gets only its ``context`` as candidates).
        assume: a derived state asserted with no basis and no candidate holds as an
            assumption (an ``assumed`` justification); False leaves it without support.
    """

    def __init__(
        self,
        store: Store,
        policy: Policy,
        rules: Sequence[str],
        grounder: str | None,
        proposer: Proposer | None = None,
        assume: bool = True,
    ) -> None:
        self.store = store
        self.policy = policy
        self.grounder = grounder
        self.rules = tuple(rules)
        self.incremental: IncrementalLinker | None = None
        if rules:
            from stategraph.grounding.packs import load_pack

            for name in self.rules:
                load_pack(name)  # a bad pack name or file fails here, whatever links it
            try:
                self.incremental = IncrementalLinker(rules)
            except ValueError:  # recursive packs: link from scratch
                self.incremental = None
        self._link_index: LinkIndex | None = None
        self.linking = True
        """False: link nothing (each change carries its rule links, as a replayed one does)."""
        self.proposer = proposer
        self.assume = assume
        self.grounded_ahead: dict[tuple[str, int | None], Reading] = {}
        """Readings a bulk import had grounded ahead by this memory's grounder
        (:mod:`stategraph.grounding.ahead`), by text and reference year; a text not here is
        grounded when its state is prepared."""
        self._groundings: dict[tuple[str, int | None], Grounding] = {}
        """Groundings of this change's texts, made by :meth:`reversals` or :meth:`ground` and
        read again by :meth:`_undoes`, cleared once the change is prepared."""

    def reversals(
        self, change: Change, policy: str, judged: bool = False
    ) -> tuple[Change, tuple[Reversal, ...], tuple[Reversal, ...]]:
        """Read each new fact for a reversal or replacement of a holding fact, and apply the
        policy (:data:`REVERSAL_POLICIES`).

        A fact asserted with text and no atoms is grounded, and matched against the holding
        facts (:func:`stategraph.text.reversals.find_matches`). Under ``supersede``, a clean
        match with exactly one old fact turns the assertion into the supersession of that fact
        by the new one; every other match (under ``ask``, all of them) is reported ``asked``:
        the assertion stands, and the revision flags the old fact and what rests on it
        (:mod:`stategraph.reversal`). A fact the change already retracts or supersedes is
        never matched, nor one that another new fact of the change supersedes.

        With ``judged`` (a judge settles this revision), a new fact with a turn and no clean
        match also names the holding facts that share the most evidence with it, whatever the
        reading names (:func:`~stategraph.text.reversals.evidence_matches` with ``wide``):
        possible reversals, for the judge alone (:mod:`stategraph.judge.reversals`). A person
        is never asked about them, so without an answer they are dropped. Without a judge,
        an ending (``Grounding.ends``: "cancelled", "called off") that matched nothing is
        asked of a person about the one fact that shares the most evidence with it, rather
        than kept silently beside it. Under ``check``, so
        does a new fact whose reading finds no turn at all, with the facts near the best
        ("Omar teaches chemistry at Fairfield Academy" against "... at Ridgeway School"; 婆婆不让
        办寿宴了 against the birthday lunch): a reversal told with no cue the grounder knows.

        Returns:
            The change (its assertions turned into supersessions where the policy says so),
            what was found, in the change's order, and the possible reversals (``asked``).
        """
        name = self.grounder
        facts = [
            st for st in change.assert_ if st.text and not st.atoms and self.policy.is_exogenous(st)
        ]
        if name is None or not facts:
            return change, (), ()
        from stategraph.text.reversals import evidence_matches, find_matches, loose_together

        changing = {*change.retract, *(s.id for s in change.supersede)}
        checked = judged and policy == ReversalPolicy.check
        superseding: dict[str, State] = {}
        found: list[Reversal] = []
        possible: list[Reversal] = []
        for st in facts:
            year = st.created_at.year if st.created_at is not None else None
            ahead = self.grounded_ahead.get((st.text, year))
            if ahead is not None and not ahead.turned and not checked:
                continue  # grounded ahead, and nothing in it turns: no need to read it here
            grounding = self._ground(st, name)
            matches = find_matches(self.store, st, grounding, self.policy.is_exogenous, changing)
            evidence = getattr(self.proposer, "evidence", None)
            if evidence is not None and not (matches and matches[0].clean):
                by_evidence = functools.partial(
                    evidence_matches,
                    self.store,
                    st,
                    grounding,
                    self.policy.is_exogenous,
                    evidence,
                    changing,
                )
                matches = loose_together(by_evidence(), matches)
                if not matches and grounding.ends and not judged:
                    # an ending that names nothing held, and nobody but a person to ask: the
                    # fact that shares the most with it is asked about, never kept silently
                    matches = by_evidence(wide=True)[:1]
                if judged:  # with a turn, whatever it names; without one, under ``check``
                    named = {m.old for m in matches}
                    possible += [
                        _reversal(st, m.old, False, m.shared, "asked", self._ask(st, m.old))
                        for m in by_evidence(wide=bool(grounding.turns), unturned=checked)
                        if m.old not in named
                    ]
            if not matches:
                continue
            (first, *more) = matches
            if policy != ReversalPolicy.ask and first.clean and not more:
                superseding[first.old] = st
                changing.add(first.old)
                found.append(_reversal(st, first.old, True, first.shared, "superseded", ""))
                continue
            for m in matches:
                found.append(_reversal(st, m.old, m.clean, m.shared, "asked", self._ask(st, m.old)))
        if not superseding:
            return change, tuple(found), tuple(possible)
        new = {st.id for st in superseding.values()}
        return (
            change.model_copy(
                update={
                    "assert_": tuple(s for s in change.assert_ if s.id not in new),
                    "supersede": change.supersede
                    + tuple(
                        Supersession.model_validate({"id": old, "with": st})
                        for old, st in superseding.items()
                    ),
                }
            ),
            tuple(found),
            tuple(r for r in possible if r.new not in new),
        )

    def _ground(self, st: State, name: str) -> Grounding:
        """Ground a state's text (with its creation year), kept for :meth:`ground` to read
        again in the same change."""
        from stategraph.grounding import ground

        year = st.created_at.year if st.created_at is not None else None
        key = (st.text, year)
        if key not in self._groundings:
            self._groundings[key] = ground(st.text, reference_year=year, grounder=name)
        return self._groundings[key]

    def _ask(self, new: State, old: str) -> str:
        """The question of a reversal (:func:`stategraph.text.reversals.question`)."""
        from stategraph.text.reversals import question

        found = self.store.state(old)
        return question(new.text, found[0].text or old if found is not None else old)

    def prepare(
        self, change: Change, judged: bool = False
    ) -> tuple[Change, frozenset[str], LinkWrites]:
        """The completed change, the ids of compatibly superseded states, and what the
        store's atom index must record with it (``judged``: a judge settles this revision's
        undecided edges)."""
        try:  # the groundings are kept until the change is prepared (_undoes reads them)
            change, graph, compatible, writes = self.link(self.ground(change))
            change = self.replace_stand_ins(self.propose(change))
            checked = tuple(self.check(j, change, graph) for j in change.add_justifications)
            if checked != change.add_justifications:
                change = change.model_copy(update={"add_justifications": checked})
            return self.unread_replacements(change, judged), compatible, writes
        finally:
            self._groundings.clear()

    def unread_replacements(self, change: Change, judged: bool) -> Change:
        """Put in question what a fact's unreadable replacement still supports.

        A replacement the grounder reads nothing in says nothing to the rules. Logic reads
        that closed-world: what the rules derived only through the old fact goes, which is
        right when the replacement undoes the fact in words the grounder misses ("the
        conference was cancelled") and wrong when it keeps it ("moved to 9 am the same
        day"). With a judge, it is asked instead: each memory whose rule links go through the
        superseded fact (through the atom nodes it carries) gets a ``recovered``
        justification whose only candidate is that fact (method ``superseded``), so it is
        undecided once nothing else carries its atoms, and the judge settles the edge with
        the replacement quoted (past the judge's budget, the memory goes to confirmation).

        A replacement read unclean (:data:`WITHHELD`: atoms found, but a negation or
        cancellation cue left over, or a thing the old fact names mentioned and not read) is
        treated so with or without a judge: its reading may say the opposite of the text, or
        miss what it says about the old fact's subject ("the doctor doubled the metformin"
        read as a visit to the doctor), so neither carrying nor dropping what the old fact
        supported is safe; without a judge those states go to confirmation. So is one read as
        nothing that neither denies nor ends anything (:meth:`_undoes`): "更正一下：青禾科技在
        萧山，不在滨江，出差还是11月20日到21日" keeps the trip its train ticket rests on, and
        read closed-world it took the ticket. A replacement read cleanly is left to the rules.
        """
        if not self.rules or not self.linking or self.grounder is None:
            return change
        unread = [
            s.id
            for s in change.supersede
            if not s.with_.atoms
            and s.with_.text
            and (judged or WITHHELD in s.with_.metadata or not self._undoes(s.with_))
        ]
        if not unread:
            return change
        graph = StoredGraph(self.store)
        graph.lay(change.add_justifications, change.remove_justifications)
        heads = {j.head for j in change.add_justifications}
        added: list[Justification] = []
        for old in unread:
            found = self.store.state(old)
            if found is None or not found[0].atoms:
                continue  # it carried no atoms: the rules derived nothing from it
            for head in downstream_memories(graph, old):
                if head in heads:
                    continue
                added.append(
                    Justification(
                        head=head,
                        premises=(old,),
                        origin=Origin.recovered,
                        proposed={old: _UNREAD},
                    )
                )
        if not added:
            return change
        return change.model_copy(
            update={"add_justifications": change.add_justifications + tuple(added)}
        )

    def _undoes(self, st: State) -> bool:
        """True when a replacement read as nothing still says what it undoes: an atom its
        negation suppressed ("not moving to Shenzhen after all") or a cue that calls something
        off or ends it ("cancelled", "changed their mind", 黄了). Read closed-world, what the
        old fact alone supported then goes, as the text says."""
        assert self.grounder is not None
        found = self._ground(st, self.grounder)
        return bool(found.negated or found.ends)

    def propose(self, change: Change) -> Change:
        """Give each derived state asserted without a basis its candidates, or an assumption.

        A state whose writer gave a basis (a declared justification, or one from a judge or a
        review) or that the rules link is left alone: its ``context``, if any, is checked
        against the rules. Otherwise its candidates are the caller's ``context``, then what
        the proposer finds, at most ``k`` in all, gathered into one ``recovered``
        justification that records how each was found. With no candidate at all, the state
        holds as an assumption of its source: an ``assumed`` justification without premises.
        """
        new_states = [*change.assert_, *(s.with_ for s in change.supersede)]
        derived = [
            st
            for st in new_states
            if not self.policy.is_exogenous(st) and st.kind != ATOM_KIND  # linking's own
        ]
        if not derived:
            return change
        by_head: dict[str, list[Justification]] = {}
        for j in change.add_justifications:
            by_head.setdefault(j.head, []).append(j)
        replaced: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Justification] = {}
        added: list[Justification] = []
        for st in derived:
            justs = by_head.get(st.id, [])
            if any(j.origin is not Origin.recovered for j in justs):
                continue
            context = justs[0] if justs else None
            chosen = {p: "context" for p in context.premises} if context is not None else {}
            if self.proposer is not None:  # called even when the context fills k: recall
                found = self.proposer.propose(  # of every fact while there are few
                    self.store, st, exclude=chosen, limit=max(0, self.proposer.k - len(chosen))
                )
                chosen.update({c.id: c.method for c in found})
            if context is None and not chosen:
                if self.assume:
                    added.append(Justification(head=st.id, origin=Origin.assumed))
            elif chosen:
                j = Justification(
                    head=st.id,
                    premises=tuple(chosen),
                    origin=Origin.recovered,
                    checked=context.checked if context is not None else {},
                    notes=context.notes if context is not None else {},
                    proposed=dict(sorted(chosen.items())),
                )
                if context is not None:
                    replaced[context.key] = j
                else:
                    added.append(j)
        if not replaced and not added:
            return change
        kept = tuple(replaced.get(j.key, j) for j in change.add_justifications)
        return change.model_copy(update={"add_justifications": kept + tuple(added)})

    def replace_stand_ins(self, change: Change) -> Change:
        """Withdraw the engine's stand-ins for a basis once the writer declares one.

        An ``assumed`` justification, and a ``recovered`` one whose candidates the engine
        proposed itself (none came from the caller's ``context``), stand in for a basis the
        writer did not give. A declared justification added later for the same state is that
        basis, so the stand-ins are removed in the same change.
        """
        heads = {j.head for j in change.add_justifications if j.origin is Origin.declared}
        if not heads:
            return change
        removed = {j.key for j in change.remove_justifications}
        stale = tuple(
            j
            for j in self.store.justifications_for(heads)
            if j.key not in removed and _is_stand_in(j)
        )
        if not stale:
            return change
        return change.model_copy(
            update={"remove_justifications": change.remove_justifications + stale}
        )

    def ground(self, change: Change) -> Change:
        """Fill the atoms of asserted states that have text and no atoms, from clean readings.

        A fact carries only the atoms it read cleanly (:mod:`stategraph.grounding.reading`):
        those of a clause with a polarity cue left over, or with a rival of one of their
        roles, go to its metadata under :data:`WITHHELD`, evidence for its neighbours but never
        a rule link's premise. A replacement is read whole, and is unclean also when it leaves
        unread a thing the fact it replaces names ("the doctor doubled the metformin" read as
        a visit to the doctor): atoms that miss what it says about the old fact's subject
        would carry what that fact supported. A derived memory keeps all its atoms: it holds
        only on its own basis, which they link it to.
        """
        name = self.grounder
        if name is None:
            return change

        def reading(st: State, old: str | None = None) -> Reading:
            # The memory's own creation year dates "12月" / "in December"; never the clock,
            # so grounding the same state again gives the same atoms. Without a creation
            # time such dates stay year-less ("--12") and next_date places them.
            year = st.created_at.year if st.created_at is not None else None
            if old is None and (ahead := self.grounded_ahead.get((st.text, year))) is not None:
                return ahead
            found = self._ground(st, name)
            if old is None:
                return read(found)
            stored = self.store.state(old)
            named = argument_terms(stored[0].atoms) if stored is not None else set()
            missed = sorted({v for v in found.unread_values if "a:" + v in named})
            return read(found, missed, whole=True)

        def grounded(st: State, old: str | None = None) -> State:
            if st.atoms or not st.text or st.kind == ATOM_KIND:
                return st
            found = reading(st, old)
            # a fact holds on its own word, so a doubtful atom of it would decide truth with
            # nobody asked: a fact (and any replacement) withholds them; a derived memory rests
            # on its own basis and keeps its atoms, which link it to that basis
            withhold = old is not None or self.policy.is_exogenous(st)
            return st.model_copy(
                update={
                    "atoms": found.atoms(withhold),
                    "metadata": found.metadata(st.metadata, withhold),
                }
            )

        return change.model_copy(
            update={
                "assert_": tuple(grounded(s) for s in change.assert_),
                "supersede": tuple(
                    s.model_copy(update={"with_": grounded(s.with_, s.id)})
                    for s in change.supersede
                ),
            }
        )

    def link(self, change: Change) -> tuple[Change, StoredGraph | None, frozenset[str], LinkWrites]:
        """Add the rule links the change's states make (atom nodes and their justifications,
        :mod:`stategraph.text.linking`), and find compatible supersessions.

        Returns:
            The change, the rule links as it leaves them (None without rule packs), the
            superseded ids whose replacement carries on some of their rule links, and what
            the atom index records.
        """
        if not self.rules or not self.linking:
            return change, None, frozenset(), LinkWrites()
        new_states = [
            *(s for s in change.assert_ if s.kind != ATOM_KIND),
            *(s.with_ for s in change.supersede),
        ]
        delta, writes = self._link(new_states)
        graph = StoredGraph(self.store, delta)
        graph.lay(change.add_justifications, change.remove_justifications)
        compatible = frozenset(
            s.id for s in change.supersede if self._carries_on(graph, s.id, s.with_.id)
        )
        if not delta.added and not delta.removed and not delta.nodes:
            return change, graph, compatible, writes
        # a replayed change carries its links already: each is made once
        given = {j.key for j in change.add_justifications}
        taken = {j.key for j in change.remove_justifications}
        named = {s.id for s in change.assert_}
        update = {
            "assert_": change.assert_ + tuple(n for n in delta.nodes if n.id not in named),
            "add_justifications": change.add_justifications
            + tuple(j for j in delta.added if j.key not in given),
            "remove_justifications": change.remove_justifications
            + tuple(j for j in delta.removed if j.key not in taken),
        }
        return change.model_copy(update=update), graph, compatible, writes

    @staticmethod
    def _carries_on(graph: StoredGraph, old: str, new: str) -> bool:
        """Whether the replacement reaches an atom node the superseded state reaches: then it
        still supports some of the same conclusions through the rules."""
        reached = reached_nodes(graph, new)
        return bool(reached) and not reached.isdisjoint(reached_nodes(graph, old))

    def _relink_due(self) -> bool:
        """Whether the store's rule links must be made afresh: its atom index was recorded for
        other packs, or never (a store linked before atom nodes, or loaded in bulk)."""
        return bool(self.store.get_setting(LINKED_SETTING) != list(self.rules))

    def _link(self, new_states: list[State]) -> tuple[LinkDelta, LinkWrites]:
        """The rule links the new states make, as a delta over the store's, and what the atom
        index records.

        Incrementally where the packs allow it and the index is complete for them; otherwise
        every memory is linked afresh (the atom index rebuilt where there is one: a store
        linked before atom nodes is relinked so, once) and compared with every rule link
        stored.
        """
        if self.incremental is None:
            states = {s.id: s for s in self.store.with_atoms()}
            states.update({s.id: s for s in new_states})
            linked = link_from_scratch(states.values(), self.rules, self.policy)
            return self._against_stored(linked.justifications, linked.nodes), LinkWrites()
        index = self._index()
        if not self._relink_due():
            delta = self.incremental.link(self.store, index, new_states, self.policy)
            writes = LinkWrites(
                tuple(delta.demand_add),
                tuple(delta.demand_drop),
                tuple(delta.watch_add),
                tuple(delta.watch_drop),
            )
            return delta, writes
        everything = self.store.with_atoms()
        fresh = self.incremental.link(self.store, index, new_states, self.policy, everything)
        delta = self._against_stored(
            {j.key: j for j in fresh.added}, {n.id: n.text for n in fresh.nodes}
        )
        writes = LinkWrites(
            tuple(sorted(fresh.demand_add)), (), tuple(sorted(fresh.watch_add)), (), self.rules
        )
        return delta, writes

    def _against_stored(
        self,
        produced: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Justification],
        nodes: dict[str, str],
    ) -> LinkDelta:
        """Every rule link the store should hold, against every one it holds: the delta."""
        from stategraph.text.linking import node_state

        stored = {j.key: j for j in self.store.justifications() if j.origin is Origin.rule}
        delta = LinkDelta()
        delta.added = [j for k, j in sorted(produced.items()) if stored.get(k) != j]
        delta.removed = [j for k, j in sorted(stored.items()) if k not in produced]
        existing = self.store.truths(sorted(nodes))
        delta.nodes = [node_state(n, a) for n, a in sorted(nodes.items()) if n not in existing]
        return delta

    def _index(self) -> LinkIndex:
        """The store's atom index."""
        if self._link_index is None:
            from stategraph.text.atom_index import LinkIndex

            self._link_index = LinkIndex(self.store.conn)  # type: ignore[attr-defined]
        return self._link_index

    def check(self, j: Justification, change: Change, graph: StoredGraph | None) -> Justification:
        """Classify the candidate premises of a recovered justification, where logic can.

        Logic never calls a candidate independent when the candidate's own reading withheld
        atoms: the rules never saw what it says, so they cannot say it does not matter.
        """
        if not j.candidates():
            return j
        new_states = (*change.assert_, *(s.with_ for s in change.supersede))
        head = next((s for s in new_states if s.id == j.head), None)
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
            elif graph is not None and (by_rules := check_by_rules(graph, j.head, p)) is not None:
                verdict = by_rules
            else:
                other = next((o for o in others if p not in o.premises), None)
                if other is not None:
                    verdict = (
                        EdgeCheck.independent,
                        f"{j.head} has a {other.origin.value} justification "
                        f"[{', '.join(other.premises)}] without {p}",
                    )
            if (
                verdict is not None
                and verdict[0] is EdgeCheck.independent
                and self._unclean(p, change)
            ):
                verdict = None  # its withheld atoms may be what the head rests on
            if verdict is not None:
                checked[p], notes[p] = verdict
        return j.model_copy(update={"checked": checked, "notes": notes})

    def _unclean(self, sid: str, change: Change) -> bool:
        """True for a memory whose reading withheld atoms: the rules cannot say that what it
        says does not matter to another memory, since they never saw it."""
        new = next(
            (s for s in (*change.assert_, *(x.with_ for x in change.supersede)) if s.id == sid),
            None,
        )
        found = new if new is not None else (row[0] if (row := self.store.state(sid)) else None)
        return found is not None and bool(withheld_atoms(found.metadata))


def _reversal(
    new: State, old: str, clean: bool, shared: tuple[str, ...], outcome: str, question: str
) -> Reversal:
    return Reversal.model_validate(
        {
            "new": new.id,
            "old": old,
            "clean": clean,
            "shared": shared,
            "outcome": outcome,
            "question": question,
        }
    )


def _is_stand_in(j: Justification) -> bool:
    """True for a justification the engine made up for a state written without a basis."""
    if j.origin is Origin.assumed:
        return True
    proposed = j.proposed.values()
    return j.origin is Origin.recovered and bool(proposed) and "context" not in proposed
