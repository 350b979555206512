"""What a memory that holds waits on: the memories in doubt its support passes through.

A doubt does not travel through a candidate that is itself only in doubt
(``docs/revision.md``): a plan guessed to rest on a belief that a change put in question keeps
its value, and is asked about once the belief is settled (a person rejects it, or a judge says
it no longer holds). Keeping its value is right for the logic and wrong for a reader: until
the belief is settled, the plan cannot be relied on either. So a reader is told what it waits
on, and asks about that first: one question about the belief, not one about each memory
derived from it. Recall reports such a memory as ``rests_on_doubt``
(:mod:`stategraph.recall`), and the benchmark counts it apart from the memories kept
silently (:mod:`stategraph.bench.metrics`).

A memory waits when every support that holds passes through a memory in doubt: a premise
(a candidate, or a premise known to be needed) that is in the review queue or undefined, or
one that waits itself, or a blocker (``unless``) in doubt, which may turn out true (a booking
already made whose basis went is asked about with its value false, and the search for
another hotel it blocked holds meanwhile; a blocker that is an atom node is followed to the
memories in doubt that carry or derive its atom, as the relocation a move already made
implies). Atom nodes are gone through, never named. A premise a check found independent is no
support, and a support with one premise that no longer holds is no support either, nor one
back through the memory being read (a cycle does not support itself). The walk reads a few
rows a step, at most :data:`MAX_DEPTH` steps up and :data:`MAX_READ` memories in all; what lies
beyond is taken as firm (a doubt further up than that is not shown: it grades a memory,
never its value).
"""

from __future__ import annotations

from stategraph.model import Justification, Truth
from stategraph.nodes import is_internal
from stategraph.store import review_queue
from stategraph.store.asof import PastStore
from stategraph.store.sqlite import Store
from stategraph.values import EdgeCheck

__all__ = ["MAX_DEPTH", "MAX_READ", "Doubts", "flag_of"]

MAX_DEPTH = 8
"""The most steps up a memory's supports the walk takes."""

Waits = list[str] | None
"""What a memory or one support of it waits on: [] when firm, None when it does not hold."""

MAX_READ = 256
"""The most memories one walk reads the supports of."""


def _premises(j: Justification) -> tuple[str, ...]:
    """The premises a support needs: all, less those a check found independent."""
    return tuple(p for p in j.premises if j.checked.get(p) is not EdgeCheck.independent)


def flag_of(store: Store | PastStore, state_id: str) -> review_queue.Flag | None:
    """A memory's place in the review queue (as of the past's revision, for a past store)."""
    if isinstance(store, PastStore):
        return store.flag(state_id)
    return review_queue.flag(store.conn, state_id)  # type: ignore[attr-defined]


class Doubts:
    """What is in doubt in one store, and what waits on it, each memory read once: one
    reader serves one recall (or one scoring), never a later change.

    Args:
        store: the store (or the past's reads, for a recall as of a revision).
    """

    def __init__(self, store: Store | PastStore) -> None:
        self.store = store
        self._value: dict[str, Truth | None] = {}
        self._doubt: dict[str, bool] = {}
        self._waits: dict[str, list[str]] = {}

    def value(self, state_id: str) -> Truth | None:
        """A memory's value, or None when it is not active (or not there)."""
        if state_id not in self._value:
            row = self.store.state(state_id)
            self._value[state_id] = row[2] if row is not None and row[1] else None
        return self._value[state_id]

    def __call__(self, state_id: str) -> bool:
        """Whether a memory is in doubt: in the review queue, or active and undefined. An atom
        node never is: it is no memory, and never what a person is asked about (the walk
        goes through it to the memories it rests on)."""
        if is_internal(state_id):
            return False
        known = self._doubt.get(state_id)
        if known is None:
            known = self.value(state_id) is Truth.undefined
            known = known or flag_of(self.store, state_id) is not None
            self._doubt[state_id] = known
        return known

    def waits_on(self, state_id: str) -> list[str]:
        """The memories in doubt that a memory's every holding support passes through,
        nearest first, or ``[]`` when one support rests on nothing in doubt (a fact, a
        declared premise that holds, a candidate that holds firmly).

        Args:
            state_id: a memory that holds and is not itself in doubt.
        """
        found: dict[str, list[str]] = {}
        read = 0
        cuts = 0

        def through(j: Justification, sid: str, depth: int, path: frozenset[str]) -> Waits:
            """What one support of ``sid`` waits on ([] when firm), or None when it does not
            hold without going back through ``path``."""
            nonlocal cuts
            these: list[str] = []
            for u in j.unless:
                value = self.value(u)
                if value is Truth.true or (value is Truth.undefined and is_internal(u)):
                    return None  # blocked, or not holding while its blocker is undecided
                # a blocker in doubt may turn out true, and block this support
                these += could_hold(u, depth - 1)
            for p in _premises(j):
                if self(p):
                    these.append(p)
                    continue
                if p in path or p == sid:
                    cuts += 1  # a cycle supports nothing by itself (well-founded)
                    return None
                up = walk(p, depth - 1, path | {sid}) if self.value(p) is Truth.true else None
                if up is None:
                    return None  # this support does not hold
                these += up
            return these

        def could_hold(sid: str, depth: int) -> list[str]:
            """The memories in doubt through which a blocker that does not hold now may come
            to hold: itself, or for an atom node the memories in doubt that carry or derive
            its atom (a booking already made, asked about with its value false)."""
            nonlocal cuts, read
            if not is_internal(sid):
                return [sid] if self(sid) else []
            if depth == 0 or read >= MAX_READ:
                cuts += 1
                return []  # beyond the bound: taken as firm (a grade, never a value)
            read += 1
            return [
                d
                for j in self.store.justifications(sid)
                for p in j.premises
                for d in could_hold(p, depth - 1)
            ]

        def walk(sid: str, depth: int, path: frozenset[str]) -> Waits:
            """What ``sid`` waits on ([] when firm), or None when no support of it holds
            without going back through ``path``."""
            nonlocal cuts, read
            if sid in self._waits:
                return self._waits[sid]
            if sid in found:
                return found[sid]
            if depth == 0 or read >= MAX_READ:
                cuts += 1
                return []  # beyond the bound: taken as firm (a grade, never a value)
            read += 1
            before = cuts
            justifications = self.store.justifications(sid)
            doubts: list[str] = []
            supported = not justifications  # a fact
            for j in justifications:
                these = through(j, sid, depth, path)
                if these is None:
                    continue
                if not these:
                    doubts, supported = [], True
                    break
                doubts += these
                supported = True
            if not supported:
                return None
            out = list(dict.fromkeys(doubts))
            if cuts == before:  # read whole: the same from any path
                found[sid] = out
            return out

        out = [d for d in walk(state_id, MAX_DEPTH, frozenset()) or [] if d != state_id]
        if cuts == 0:
            self._waits.update(found)
        return out

    def resting_on(self, state_id: str) -> list[str]:
        """The memories that hold and wait on a memory in doubt (:meth:`waits_on` names it):
        what settling it settles too, nearest first. Read down the support edges at most
        :data:`MAX_DEPTH` steps and :data:`MAX_READ` memories, through those that wait on it
        (a memory waits on it only through memories that do, or directly).

        Args:
            state_id: a memory in doubt (in the review queue, or undefined).
        """
        out: list[str] = []
        seen = {state_id}
        frontier = [state_id]
        read = 0
        for _ in range(MAX_DEPTH):
            if not frontier or read >= MAX_READ:
                break
            heads = sorted(self.store.heads_citing(frontier) - seen)[: MAX_READ - read]
            read += len(heads)
            seen.update(heads)
            # atom nodes are gone through, whatever their value (one that does not hold may
            # be a blocker the memory in doubt would make hold), and never listed
            frontier = [
                h
                for h in heads
                if is_internal(h)
                or (self.value(h) is Truth.true and not self(h) and state_id in self.waits_on(h))
            ]
            out += [h for h in frontier if not is_internal(h)]
        return out
