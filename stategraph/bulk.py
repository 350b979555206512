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
        outside.update(p for p in j.premises if p not in index)
        outside.update(u for u in j.unless if u not in index)
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
    # Rows go in in key order: B-tree inserts then mostly append instead of splitting pages
    # all over the tables.
    order = sorted(range(len(new)), key=lambda i: new[i].id)
    justs = sorted(justs, key=lambda j: j.key)
    with store.transaction():
        for start in range(0, len(order), _BATCH):
            rows = []
            for i in order[start : start + _BATCH]:
                t = Truth.true if true[i] else Truth.undefined if undefined[i] else Truth.false
                row = state_row(new[i], t)
                digest.update(row[-1].encode("utf-8"))
                rows.append(row)
            store.conn.executemany("INSERT INTO states VALUES (?,?,?,?,?,?,?,?)", rows)
        for start in range(0, len(justs), _BATCH):
            for row in store.add_justifications(justs[start : start + _BATCH]):
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
