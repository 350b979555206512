"""Preparing a change for revision: what grounding, rule packs and candidates add to it.

Before the logic runs, a change is completed: asserted states with text and no atoms are
grounded; the rule justifications that the store's atoms now make possible are added (and
those no longer produced are removed); a derived state asserted without a basis of its own
gets candidate premises (:mod:`stategraph.text.candidates`) or, with nothing to propose, an
``assumed`` justification; the candidate premises of ``recovered`` justifications are
checked where logic can decide them; and a supersession whose replacement still supports the
same conclusions is marked compatible. The completed change is what the revision applies and
what the log records.

Cost: linking costs what it changes (issue 23). With the store's atom index, a change
relinks only the groups of memories (memories with the same atoms) watching a pattern its atoms
match, evaluates each twice (before and after the change), and writes the justifications that
differ: a new fact that a thousand memories' derivations do not take in costs two evaluations
of their one group, not a thousand relinks; one that a thousand memories take in writes a
thousand justifications and reads none of theirs whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from stategraph.store.sqlite import Store
from stategraph.text.candidates import Proposer
from stategraph.text.linking import (
    DEFAULT_ALTERNATIVES,
    GroupCache,
    IncrementalLinker,
    Links,
    RuleLinker,
    parse_atom,
)

if TYPE_CHECKING:
    import clingo

    from stategraph.grounding.result import Grounding
    from stategraph.text.atom_index import LinkIndex, StoreInputs
    from stategraph.text.linking import Group

GROUPS_SETTING = "link_groups"
"""The setting naming the packs for which every linked memory's group and watches are
recorded (:mod:`stategraph.text.atom_index`); None (or other packs): the next change links
every memory and records them."""

CAP_SETTING = "max_alternatives"
"""The setting holding the store's ``max_alternatives`` (absent from a store written before
stores kept one: :data:`~stategraph.text.linking.LEGACY_ALTERNATIVES`)."""

_REPLACEABLE = frozenset({Origin.recovered, Origin.assumed, Origin.rule})
"""Origins a rule derivation with the same premises replaces (or refreshes)."""

REVERSALS_SETTING = "reversals"
"""The setting holding the store's policy for a new fact that reads as reversing or replacing
a holding one (:data:`REVERSAL_POLICIES`; absent: :data:`DEFAULT_REVERSALS`)."""

REVERSAL_POLICIES = tuple(p.value for p in ReversalPolicy)
"""``supersede``: a clean reversal of one fact (:mod:`stategraph.text.reversals`) supersedes
it, and any other is asked about; ``ask``: every reversal is asked about (the old fact and
what rests on it wait for a person, :mod:`stategraph.reversal`)."""

DEFAULT_REVERSALS = ReversalPolicy.supersede.value

_UNREAD = "superseded"
"""The method of a candidate left by a rule link through a fact whose replacement the
grounder could not read (:meth:`Preparer.unread_replacements`)."""

__all__ = [
    "CAP_SETTING",
    "DEFAULT_REVERSALS",
    "GROUPS_SETTING",
    "REVERSALS_SETTING",
    "REVERSAL_POLICIES",
    "WITHHELD",
    "Preparer",
]

_Key = tuple[str, tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class _Linked:
    """What linking a change found (:meth:`Preparer._link`).

    Attributes:
        links: the derivations of the memories it linked (for checking candidates).
        produced: rule justifications the rules now give (all of a relinked memory's, or,
            linking by delta, those new or changed).
        dropped: identities of rule justifications the rules no longer give.
        stored: the stored justifications with those identities (or, relinking whole, every
            justification of the relinked memories).
        writes: what the atom index records.
    """

    links: Links
    produced: dict[_Key, Justification]
    dropped: set[_Key]
    stored: dict[_Key, Justification]
    writes: LinkWrites


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
        max_alternatives: rule derivations kept per memory (see :mod:`stategraph.text.linking`).
    """

    def __init__(
        self,
        store: Store,
        policy: Policy,
        rules: Sequence[str],
        grounder: str | None,
        proposer: Proposer | None = None,
        assume: bool = True,
        max_alternatives: int = DEFAULT_ALTERNATIVES,
    ) -> None:
        self.store = store
        self.policy = policy
        self.grounder = grounder
        self.rules = tuple(rules)
        cap = max_alternatives
        self.linker: RuleLinker | None = RuleLinker(rules, cap) if rules else None
        self.incremental: IncrementalLinker | None = None
        if rules:
            try:
                self.incremental = IncrementalLinker(rules, cap)
            except ValueError:  # recursive packs: link from scratch
                self.incremental = None
        self._link_index: LinkIndex | None = None
        self._groups = GroupCache()
        self.proposer = proposer
        self.assume = assume
        self.grounded_ahead: dict[tuple[str, int | None], Reading] = {}
        """Readings a bulk import had grounded ahead by this memory's grounder
        (:mod:`stategraph.grounding.ahead`), by text and reference year; a text not here is
        grounded when its state is prepared."""
        self._groundings: dict[tuple[str, int | None], Grounding] = {}
        """Groundings of this change's texts made before :meth:`ground` (by
        :meth:`reversals`), cleared once the change is grounded."""

    def reversals(self, change: Change, policy: str) -> tuple[Change, tuple[Reversal, ...]]:
        """Read each new fact for a reversal or replacement of a holding fact, and apply the
        policy (:data:`REVERSAL_POLICIES`).

        A fact asserted with text and no atoms is grounded, and matched against the holding
        facts (:func:`stategraph.text.reversals.find_matches`). Under ``supersede``, a clean
        match with exactly one old fact turns the assertion into the supersession of that fact
        by the new one; every other match (under ``ask``, all of them) is reported ``asked``:
        the assertion stands, and the revision flags the old fact and what rests on it
        (:mod:`stategraph.reversal`). A fact the change already retracts or supersedes is
        never matched, nor one that another new fact of the change supersedes.

        Returns:
            The change (its assertions turned into supersessions where the policy says so)
            and what was found, in the change's order.
        """
        name = self.grounder
        facts = [
            st for st in change.assert_ if st.text and not st.atoms and self.policy.is_exogenous(st)
        ]
        if name is None or not facts:
            return change, ()
        from stategraph.text.reversals import find_matches

        changing = {*change.retract, *(s.id for s in change.supersede)}
        superseding: dict[str, State] = {}
        found: list[Reversal] = []
        for st in facts:
            year = st.created_at.year if st.created_at is not None else None
            ahead = self.grounded_ahead.get((st.text, year))
            if ahead is not None and not ahead.turned:
                continue  # grounded ahead, and nothing in it turns: no need to read it here
            matches = find_matches(
                self.store, st, self._ground(st, name), self.policy.is_exogenous, changing
            )
            if not matches:
                continue
            (first, *more) = matches
            if policy == "supersede" and first.clean and not more:
                superseding[first.old] = st
                changing.add(first.old)
                found.append(_reversal(st, first.old, True, first.shared, "superseded", ""))
                continue
            for m in matches:
                found.append(_reversal(st, m.old, m.clean, m.shared, "asked", self._ask(st, m.old)))
        if not superseding:
            return change, tuple(found)
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
        try:
            grounded = self.ground(change)
        finally:
            self._groundings.clear()
        change, links, compatible, writes = self.link(grounded)
        change = self.keep_rule_links(change)
        change = self.replace_stand_ins(self.propose(change))
        checked = tuple(self.check(j, change, links) for j in change.add_justifications)
        if checked != change.add_justifications:
            change = change.model_copy(update={"add_justifications": checked})
        return self.unread_replacements(change, judged), compatible, writes

    def unread_replacements(self, change: Change, judged: bool) -> Change:
        """Put in question what a fact's unreadable replacement still supports.

        A replacement the grounder reads nothing in says nothing to the rules. Logic reads
        that closed-world: what the rules derived only through the old fact goes, which is
        right when the replacement undoes the fact in words the grounder misses ("the
        conference was cancelled") and wrong when it keeps it ("moved to 9 am the same
        day"). With a judge, it is asked instead: each rule justification citing the
        superseded fact becomes a ``recovered`` one whose only candidate is that fact
        (method ``superseded``; its other premises are checked dependencies), so its head is
        undecided once nothing else carries it and the judge settles the edge with the
        replacement quoted (past the judge's budget, the head goes to confirmation).

        A replacement read unclean (:data:`WITHHELD`: atoms found, but a negation or
        cancellation cue left over, or a thing the old fact names mentioned and not read) is
        treated so with or without a judge: its reading may say the opposite of the text, or
        miss what it says about the old fact's subject ("the doctor doubled the metformin"
        read as a visit to the doctor), so neither carrying nor dropping what the old fact
        supported is safe; without a judge those states go to confirmation. A replacement
        read cleanly is left to the rules.
        """
        if self.linker is None or self.grounder is None:
            return change
        unread = [
            s.id
            for s in change.supersede
            if not s.with_.atoms and s.with_.text and (judged or WITHHELD in s.with_.metadata)
        ]
        if not unread:
            return change
        touched = {j.key for j in (*change.add_justifications, *change.remove_justifications)}
        added: list[Justification] = []
        for old in unread:
            found = self.store.state(old)
            if found is None or not found[0].atoms:
                continue  # it carried no atoms: the rules derived nothing from it
            for j in self.store.citing(old):
                if j.origin is not Origin.rule or old not in j.premises or j.key in touched:
                    continue
                others = {p: EdgeCheck.dependency for p in j.premises if p != old}
                added.append(
                    j.model_copy(
                        update={
                            "origin": Origin.recovered,
                            "checked": others,
                            "proposed": {old: _UNREAD},
                        }
                    )
                )
        if not added:
            return change
        return change.model_copy(
            update={"add_justifications": change.add_justifications + tuple(added)}
        )

    def keep_rule_links(self, change: Change) -> Change:
        """Keep what the rules derive when the writer removes a justification of its own.

        A declared justification with the premises of a rule derivation is stored as one row,
        the writer's (:meth:`link`). Removing it must not take the rules' link with it: a
        head's rule justifications are a function of the store's atoms, the same whichever
        way the store was written. So such a removal replaces the row with the rule
        justification instead of deleting it.
        """
        if self.linker is None or not change.remove_justifications:
            return change
        removed = {j.key for j in change.remove_justifications}
        # the origins a rule derivation leaves standing (link): declared, a judge's, a review's
        own = [
            j
            for j in self.store.justifications_by_key(sorted(removed)).values()
            if j.origin not in _REPLACEABLE
        ]
        states = [st for h in sorted({j.head for j in own}) if (st := self._with_atoms(h))]
        if not states:
            return change
        ended = {*change.retract, *(s.id for s in change.supersede)}
        derived = {j.key: j for j in self._derive(states, ended).justifications()}
        kept = {j.key: derived[j.key] for j in own if j.key in derived}
        if not kept:
            return change
        return change.model_copy(
            update={
                "remove_justifications": tuple(
                    j for j in change.remove_justifications if j.key not in kept
                ),
                "add_justifications": change.add_justifications + tuple(kept.values()),
            }
        )

    def _with_atoms(self, sid: str) -> State | None:
        found = self.store.state(sid)
        return found[0] if found is not None and found[0].atoms else None

    def _derive(self, heads: list[State], ended: set[str]) -> Links:
        """The rule derivations of stored memories, as the store's atoms give them once the
        states ``ended`` are retracted or superseded."""
        assert self.linker is not None
        index = self._index()
        if index is None or self.incremental is None:
            atoms = {s.id: s.atoms for s in self.store.with_atoms()}
            dead = self.store.inactive(atoms) | ended
            return self.linker.link(atoms, [h.id for h in heads], dead)
        from stategraph.text.atom_index import StoreInputs

        atoms_of = {h.id: [parse_atom(a, h.id) for a in h.atoms] for h in heads}
        return self.incremental.link(StoreInputs(index, {}, ended), atoms_of)

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
        derived = [st for st in new_states if not self.policy.is_exogenous(st)]
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
            if st.atoms or not st.text:
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

    def link(self, change: Change) -> tuple[Change, Links | None, frozenset[str], LinkWrites]:
        """Add rule justifications; find compatible supersessions."""
        new_states = [*change.assert_, *(s.with_ for s in change.supersede)]
        links = None
        added: list[Justification] = []
        stale: list[Justification] = []
        writes = LinkWrites()
        dying: list[State] = []
        if self.linker is not None:
            ended = sorted({*change.retract, *(s.id for s in change.supersede)})
            dying = [st for sid in ended if (st := self._with_atoms(sid))]
        if self.linker is not None and (
            dying or any(s.atoms for s in new_states) or self._relink_due()
        ):
            linked = self._link(new_states, dying)
            links, writes, stored = linked.links, linked.writes, linked.stored
            given = {j.key for j in change.add_justifications if j.origin not in _REPLACEABLE}
            # A rule derivation with the premises of a candidate or an assumption confirms
            # it (it becomes the rule justification); one the writer declares (stored, or in
            # this very change), or a judge or a reviewer recorded, stays as it is.
            added = [
                j
                for k, j in sorted(linked.produced.items())
                if k not in given
                and (
                    k not in stored
                    or (
                        stored[k].origin in _REPLACEABLE
                        and stored[k] != j
                        and _UNREAD not in stored[k].proposed.values()
                    )
                )
            ]
            stale = [
                stored[k]
                for k in sorted(linked.dropped)
                if k in stored and stored[k].origin is Origin.rule
            ]
        # compatible: a head the rules now link through the replacement was linked through
        # the superseded fact (only the heads linked through the replacement are read)
        compatible = frozenset(
            s.id
            for s in change.supersede
            if (through := {j.head for j in added if s.with_.id in j.premises})
            and any(
                j.origin is Origin.rule and s.id in j.premises
                for j in self.store.justifications_for(sorted(through))
            )
        )
        if not added and not stale:
            return change, links, compatible, writes
        update = {
            "add_justifications": change.add_justifications + tuple(added),
            "remove_justifications": change.remove_justifications + tuple(stale),
        }
        return change.model_copy(update=update), links, compatible, writes

    def _relink_due(self) -> bool:
        """Whether the store's groups were dropped (a new cap, :class:`~stategraph.Memory`) or
        recorded for other packs: then any change relinks every memory, one with no atoms
        too, so that a new cap is in force from the next change on."""
        return (
            self.incremental is not None
            and self._index() is not None
            and self.store.get_setting(GROUPS_SETTING) != list(self.rules)
        )

    def _link(self, new_states: list[State], dying: list[State]) -> _Linked:
        """What the rules now derive that they did not, and no longer derive that they did,
        for every memory the new states, and the states the change retracts or supersedes
        (``dying``: the cap keeps derivations through live states first), can affect; and
        what the index must record.

        Incrementally where the store has an atom index whose groups are complete for these
        packs (:meth:`_link_delta`); otherwise every memory with atoms is linked (and, where
        there is an index, its group and watches recorded so that the next change is
        incremental), and compared with everything stored for it.
        """
        assert self.linker is not None
        index = self._index()
        if index is None or self.incremental is None:
            # Link over every state with atoms, retracted ones too: they are false, so a
            # justification citing one fails and one blocked by one is free, as it should be;
            # the rule justifications of a head are then a function of the store's atoms.
            states = {s.id: s for s in self.store.with_atoms()}
            states.update({s.id: s for s in new_states})
            derived = [s for s, st in states.items() if not self.policy.is_exogenous(st)]
            dead = self.store.inactive(states) | {s.id for s in dying}
            links = self.linker.link({s: st.atoms for s, st in states.items()}, derived, dead)
            return self._against_stored(links, derived, LinkWrites())
        from stategraph.text.atom_index import StoreInputs, group_key

        new = {s.id: [parse_atom(a, s.id) for a in s.atoms] for s in new_states if s.atoms}
        inputs = StoreInputs(index, new, (s.id for s in dying))
        if self.store.get_setting(GROUPS_SETTING) == list(self.rules):
            ended = [parse_atom(a, s.id) for s in dying for a in s.atoms]
            return self._link_delta(index, inputs, new, new_states, ended)
        self._groups.clear()
        heads = {s.id: s for s in new_states if s.atoms and not self.policy.is_exogenous(s)}
        for st in self.store.with_atoms():
            if not self.policy.is_exogenous(st):
                heads.setdefault(st.id, st)
        atoms = {sid: [parse_atom(a, sid) for a in st.atoms] for sid, st in heads.items()}
        ev = self.incremental.evaluation(inputs)
        links = Links()
        members: list[tuple[str, str]] = []
        watched: dict[str, frozenset[str]] = {}
        for head in sorted(heads):
            found = ev.head(head, atoms[head])
            if found:
                links.derivations[head] = found
            grp = group_key(atoms[head])
            members.append((grp, head))
            watched[grp] = ev.group(atoms[head]).keys
        watches = tuple((k, g) for g in sorted(watched) for k in sorted(watched[g]))
        writes = LinkWrites(tuple(members), watches, (), self.rules)
        return self._against_stored(links, sorted(heads), writes)

    def _against_stored(self, links: Links, heads: list[str], writes: LinkWrites) -> _Linked:
        """Every derivation of these heads, against everything stored for them."""
        produced = {j.key: j for j in links.justifications()}
        found = self.store.justifications_for(heads) if heads else []
        stored = {j.key: j for j in found}
        dropped = {k for k, j in stored.items() if j.origin is Origin.rule and k not in produced}
        return _Linked(links, produced, dropped, stored, writes)

    def _link_delta(
        self,
        index: LinkIndex,
        inputs: StoreInputs,
        new: dict[str, list[clingo.Symbol]],
        new_states: list[State],
        ended: list[clingo.Symbol],
    ) -> _Linked:
        """Delta linking (issue 23): only what the new atoms change, and the deaths of the
        states carrying ``ended`` (the cap keeps derivations through live states first).

        The groups the new atoms concern (those watching a pattern they match) are evaluated
        over the store as committed and with the change's atoms laid over it; only where the
        two differ are the group's members read, and each is given what was added and what
        was dropped. The stored justifications read are those with the identities added or
        dropped, nothing else of a member. New derived memories get their group's
        derivations whole. A group's derivations over the committed store are kept between
        changes (:class:`~stategraph.text.linking.GroupCache`), so a group is evaluated once per
        change that concerns it. What makes this exact is that every stored member's rule
        links are its group's derivations over the committed store (the property suite
        holds linking to :func:`~stategraph.text.linking.link_from_scratch` change after change).
        """
        from stategraph.text.atom_index import StoreInputs, group_atoms, group_key
        from stategraph.text.linking import delta, rule_justification, rule_key
        from stategraph.text.topdown import Carry, carrier_key

        assert self.incremental is not None
        cache = self._groups
        cache.settle(index.version())
        changed, new_atoms = self.incremental.changed(
            index, inputs, (a for v in new.values() for a in v)
        )
        affected = index.watchers(changed)
        # A death changes only the groups the cap cut whose derivations cite the dying state
        # (the cap then takes the next live derivation; one it never reached moves nothing
        # before it) or one of their own memories (whose own go past the group's).
        bereaved = index.watchers({carrier_key(a) for a in ended} - changed) - affected
        now = self.incremental.evaluation(inputs, Carry(cache.firings, changed, new_atoms))
        before = self.incremental.evaluation(
            StoreInputs(index, {}), Carry(cache.firings, frozenset(), ())
        )
        after: dict[str, Group] = {}

        def current(grp: str, atoms: list[clingo.Symbol]) -> Group:
            found = after.get(grp)
            if found is None:
                kept = None if grp in affected else cache.get(grp)
                found = after[grp] = kept if kept is not None else now.group(atoms)
            return found

        links = Links()
        produced: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Justification] = {}
        dropped: set[tuple[str, tuple[str, ...], tuple[str, ...]]] = set()
        watch_add: list[tuple[str, str]] = []
        watch_drop: list[tuple[str, str]] = []
        for grp in sorted(affected | bereaved):
            atoms = group_atoms(grp)
            old = cache.get(grp) or before.group(atoms)
            # a memory the group's derivations cite has its own, which go past the group's
            # (those through itself are skipped): they can change when the group's do not
            selves = index.members_among(grp, old.states)
            if grp in bereaved:
                if not old.capped or (not old.states & inputs.dying and not selves):
                    continue  # unchanged: kept in the cache as it is
                affected.add(grp)
            cur = current(grp, atoms)
            watch_add += [(k, grp) for k in sorted(cur.keys - old.keys)]
            watch_drop += [(k, grp) for k in sorted(old.keys - cur.keys)]
            unchanged = old.by_key == cur.by_key
            if unchanged and not selves:
                continue
            own = old.states | cur.states
            shared = delta(old.derivations, cur.derivations)
            for head in sorted(selves) if unchanged else index.members(grp):
                if head in own:
                    added, gone = delta(before.head(head, atoms), now.head(head, atoms))
                    links.derivations[head] = now.head(head, atoms)
                else:
                    added, gone = shared
                    links.derivations[head] = cur.derivations
                for d in added:
                    j = rule_justification(head, d)
                    produced[j.key] = j
                for d in gone:
                    dropped.add(rule_key(head, d))
        members: list[tuple[str, str]] = []
        fresh: set[str] = set()
        for st in new_states:
            if not st.atoms or self.policy.is_exogenous(st):
                continue
            atoms = new[st.id]
            grp = group_key(atoms)
            group = current(grp, atoms)
            found = now.head(st.id, atoms) if st.id in group.states else group.derivations
            if found:
                links.derivations[st.id] = found
            for d in found:
                j = rule_justification(st.id, d)
                produced[j.key] = j
            members.append((grp, st.id))
            if grp not in affected and grp not in fresh and not index.has_group(grp):
                fresh.add(grp)
                watch_add += [(k, grp) for k in sorted(group.keys)]
        cache.keep(before.firings())
        committed = self._committed(new_states, inputs)
        if committed is not None:  # else the change will fail
            cache.expect(committed, after, now.firings())
        # a memory this change writes has nothing stored yet: only the others' rows are read
        new_ids = {st.id for st in new_states}
        unstored = new_ids - self.store.truths(sorted(new_ids)).keys()
        asked = sorted(k for k in {*produced, *dropped} if k[0] not in unstored)
        stored = self.store.justifications_by_key(asked)
        writes = LinkWrites(tuple(members), tuple(watch_add), tuple(watch_drop))
        return _Linked(links, produced, dropped, stored, writes)

    def _stored_atoms(self, sid: str) -> tuple[str, ...] | None:
        found = self.store.state(sid)
        return None if found is None else found[0].atoms

    def _committed(self, new_states: list[State], inputs: StoreInputs) -> Callable[[], bool] | None:
        """What shows that this change was committed: its first new state stored with its
        atoms, or (a change that only retracts) its first retracted state inactive; None when
        that is so already (the change will fail)."""
        if new_states:
            st = new_states[0]
            if self._stored_atoms(st.id) is not None:
                return None
            return lambda: self._stored_atoms(st.id) == st.atoms
        sid = min(inputs.dying)
        found = self.store.state(sid)
        if found is None or not found[1]:
            return None
        return lambda: (now := self.store.state(sid)) is not None and not now[1]

    def _index(self) -> LinkIndex | None:
        """The store's atom index, where it keeps one (the SQLite store does)."""
        from stategraph.store.sqlite import SQLiteStore

        if not isinstance(self.store, SQLiteStore):
            return None
        if self._link_index is None:
            from stategraph.text.atom_index import LinkIndex

            self._link_index = LinkIndex(self.store.conn)
        return self._link_index

    def check(self, j: Justification, change: Change, links: Links | None) -> Justification:
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
