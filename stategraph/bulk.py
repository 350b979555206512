"""Bulk loading: many new states and their justifications in one transaction.

Adding states one revision at a time computes and logs a report per state, which is right for
an agent writing memories as it goes and far too slow for importing a million of them. A bulk
load validates everything first, writes the rows in batches, computes the well-founded model of
the new states once (the rules stream straight into clingo, see
:class:`~stategraph.logic.IncrementalProgram`), and logs one summary entry with a digest of
what was loaded. Like a revision it is atomic: if anything fails, nothing is written.

Scope: the loaded justifications must belong to the loaded states, and no stored justification
may name a loaded id under ``unless`` (that would change stored states: use ``revise``).
Premises may name stored states; their current truth values are the boundary.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable
from typing import Any

from stategraph.errors import InvalidChangeError, SelfJustificationError, UnknownStateError
from stategraph.logic import IncrementalProgram
from stategraph.model import Justification, State, Truth
from stategraph.policy import Policy
from stategraph.store import SQLiteStore, canonical_json, state_row

__all__ = ["bulk_load"]

_BATCH = 20_000


def bulk_load(
    store: SQLiteStore,
    policy: Policy,
    states: Iterable[State],
    justifications: Iterable[Justification],
    config: dict[str, Any],
) -> dict[str, Any]:
    """Load new states and justifications; returns the logged summary.

    Raises:
        DuplicateStateError/InvalidChangeError/UnknownStateError/SelfJustificationError/
        InvalidKindError: naming the offending id; nothing is written then.
    """
    new = [policy.normalise(s) for s in states]
    index: dict[str, int] = {}
    for i, st in enumerate(new):
        if st.id in index:
            raise InvalidChangeError("bulk_load", f"state id {st.id!r} appears twice", st.id)
        index[st.id] = i
    exogenous = [policy.is_exogenous(st) for st in new]
    stored = store.has_states()
    taken = store.present(index) if stored else set()
    if taken:
        first = min(taken)
        raise InvalidChangeError("bulk_load", f"state id {first!r} already exists", first)
    blocked = store.heads_citing(index) if stored else set()
    if blocked:
        raise InvalidChangeError(
            "bulk_load",
            f"stored state {min(blocked)!r} names a loaded state under unless; add these "
            "states with revise() so that it is revised",
        )
    justs = list(justifications)
    outside: set[str] = set()
    for j in justs:
        head = index.get(j.head)
        if head is None:
            raise InvalidChangeError(
                "bulk_load", f"justification of {j.head!r}: its head is not a loaded state", j.head
            )
        if j.head in j.premises or j.head in j.unless:
            raise SelfJustificationError(j.head)
        if exogenous[head]:
            raise InvalidChangeError(
                "bulk_load", f"{j.head!r} is a {new[head].kind}: it takes no justification", j.head
            )
        for p in j.premises:
            if p not in index:
                outside.add(p)
        for u in j.unless:
            if u not in index:
                outside.add(u)
    boundary = store.truths(outside) if outside else {}
    if len(boundary) < len(outside):  # an unknown id: fine under unless, not as a premise
        for j in justs:
            for p in j.premises:
                if p not in index and p not in boundary:
                    raise UnknownStateError(p, f"premise of {j.head}")
    return _load(store, new, exogenous, justs, index, boundary, config)


def _load(
    store: SQLiteStore,
    new: list[State],
    exogenous: list[bool],
    justs: list[Justification],
    index: dict[str, int],
    boundary: dict[str, Truth],
    config: dict[str, Any],
) -> dict[str, Any]:
    undefined_boundary = sorted(s for s, t in boundary.items() if t is Truth.undefined)
    extra = {s: len(new) + i for i, s in enumerate(undefined_boundary)}
    program = IncrementalProgram(len(new) + len(extra))
    for x in extra.values():
        program.rule(x, (), (x,))  # an undefined boundary state: n :- not n
    for i, fact in enumerate(exogenous):
        if fact:
            program.fact(i)
    digest = hashlib.sha256()
    node = {**index, **extra} if extra else index
    true_outside = {s for s, t in boundary.items() if t is Truth.true}
    for j in justs:
        # frozen boundary: a true premise or false unless drops out, the opposite drops the rule
        pos = []
        for p in j.premises:
            n = node.get(p)
            if n is not None:
                pos.append(n)
            elif p not in true_outside:
                break
        else:
            neg = []
            for u in j.unless:
                n = node.get(u)
                # A loaded fact under unless is known true, so the rule can never fire;
                # leaving such rules out keeps a program whose only negation is on facts
                # positive (one solve).
                if u in true_outside or (n is not None and n < len(new) and exogenous[n]):
                    break
                if n is not None:
                    neg.append(n)
            else:
                program.rule(index[j.head], pos, neg)
    true, undefined = program.solve()
    support = _supports(exogenous, justs, index, true, boundary)

    def follow(head: str) -> tuple[str, ...] | None:
        k = support[index[head]]
        return None if k < 0 else justs[k].premises + justs[k].unless

    with store.transaction():
        for start in range(0, len(new), _BATCH):
            rows = []
            for i in range(start, min(start + _BATCH, len(new))):
                t = Truth.true if true[i] else Truth.undefined if undefined[i] else Truth.false
                row = state_row(new[i], t)
                digest.update(row[-1].encode("utf-8"))
                rows.append(row)
            store.conn.executemany("INSERT INTO states VALUES (?,?,?,?,?,?,?,?)", rows)
        for start in range(0, len(justs), _BATCH):
            for row in store.add_justifications(justs[start : start + _BATCH], follow):
                digest.update("\x1f".join(row).encode("utf-8"))
        summary = {
            "states": len(new),
            "justifications": len(justs),
            "holding": sum(true[: len(new)]),
            "undefined": sum(undefined[: len(new)]),
            "sha256": digest.hexdigest(),
        }
        store.append('{"bulk_load":true}', canonical_json({"bulk_load": summary}), config)
    return summary


def _supports(
    exogenous: list[bool],
    justs: list[Justification],
    index: dict[str, int],
    true: list[bool],
    boundary: dict[str, Truth],
) -> list[int]:
    """Per loaded state, the justification (index into ``justs``) that carries it, or -1.

    The carrying justification is one of lowest derivation height (breadth-first from the
    states that hold without a loaded derived premise), so supports never form a cycle; the
    ``edges`` rows record which edges they leave open (:class:`~stategraph.graph.Cone`). Facts
    and states that do not hold get -1: every edge into them stays open.
    """

    def outside_false(u: str) -> bool:
        # A support's unless states must not be loaded derived states (see
        # revise._Grader.levels): their falsity may hinge on the state supported. Stored
        # states cannot cite loaded ones, and loaded facts all hold.
        return u not in index and boundary.get(u, Truth.false) is Truth.false

    get = index.get
    holds_outside = {s for s, t in boundary.items() if t is Truth.true}.__contains__
    support = [-1] * len(true)
    remaining = [0] * len(justs)
    head_of = [0] * len(justs)
    waiting: list[list[int] | None] = [None] * len(true)
    queue: deque[int] = deque()
    for k, j in enumerate(justs):
        head = index[j.head]
        if not true[head]:
            continue
        derived: list[int] = []
        for p in j.premises:
            i = get(p)
            if i is None:
                if not holds_outside(p):
                    break
            elif not true[i]:
                break
            elif not exogenous[i]:
                derived.append(i)
        else:
            if j.unless and not all(outside_false(u) for u in j.unless):
                continue
            if derived:
                remaining[k] = len(derived)
                head_of[k] = head
                for i in derived:
                    w = waiting[i]
                    if w is None:
                        waiting[i] = [k]
                    else:
                        w.append(k)
            elif support[head] < 0:
                support[head] = k
                queue.append(head)
    while queue:
        for k in waiting[queue.popleft()] or ():
            remaining[k] -= 1
            if remaining[k] == 0:
                head = head_of[k]
                if support[head] < 0:
                    support[head] = k
                    queue.append(head)
    return support
