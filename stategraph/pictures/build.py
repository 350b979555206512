"""Build a :class:`~stategraph.pictures.scene.Picture` from a store, optionally coloured by
one revision of its log.

The structure and truth values drawn are the store's as they are now, or, for a revision, as
they were right after it (:mod:`stategraph.store.asof`: no state written later, the values
and justifications then); that revision's report (read from the log, which keeps every
report) adds what it did to each state it touched. A small store is drawn whole; a large one
only around the revision's cone or a chosen state (:mod:`stategraph.pictures.select`).
"""

from __future__ import annotations

from pathlib import Path

from stategraph.engine.derivation import justification_value
from stategraph.engine.graph import SupportGraph
from stategraph.errors import InvalidInputError, UnknownStateError
from stategraph.model import Entry, Justification, JustificationRef, Report
from stategraph.nodes import is_internal
from stategraph.pictures.scene import Picture, StateNode, Support
from stategraph.pictures.select import DEFAULT_LIMIT, Selection, neighbourhood, whole
from stategraph.store.asof import PastStore, resolve
from stategraph.store.sqlite import SQLiteStore, Store

__all__ = ["AROUND_HOPS", "build_picture", "read_report"]

AROUND_HOPS = 2
"""How far from ``around`` a neighbourhood is drawn by default."""


def read_report(store: Store, seq: int) -> Report:
    """The report of revision ``seq``, read from the log (one entry, not the whole log).

    Raises:
        InvalidInputError: there is no such revision, or it is a bulk load (which has no
            report).
    """
    last = store.head()[0]
    entries = store.iter_history(None, seq - 1) if 1 <= seq <= last else iter(())
    found = next(entries, None)
    if found is None or found.seq != seq:
        have = f"entries 1 to {last}" if last else "no entries"
        msg = f"no revision {seq} in the log (it has {have}; 'stategraph history' lists them)"
        raise InvalidInputError("picture", [("revision", msg)])
    if found.report is None:
        msg = f"revision {seq} is a bulk load, which has no report to colour a picture with"
        raise InvalidInputError("picture", [("revision", msg)])
    return found.report


def build_picture(
    store: Store,
    *,
    name: str = "",
    revision: int | None = None,
    around: str | None = None,
    hops: int | None = None,
    limit: int = DEFAULT_LIMIT,
) -> Picture:
    """What to draw of a store.

    Args:
        store: the store (only the part drawn is read).
        name: what to call the store in the title (its file name).
        revision: colour the states by this revision's verdicts; on a store of more than
            ``limit`` nodes, or when ``hops`` is given, draw its cone (the states it changed
            and touched) and what is within ``hops`` (default 1) of it. The cone is drawn
            whole, whatever the limit: a picture of a revision that left out states it touched
            would mislead its reader; the limit bounds what is drawn around it.
        around: draw this state and what is within ``hops`` (default 2) of it.
        hops: how far out from the cone or from ``around`` to draw (0: the cone, or the
            state, alone).
        limit: the most nodes to draw, states and justifications together; a store of at
            most this many is drawn whole (unless ``around`` or ``hops`` is given). A
            neighbourhood stops at the first state that would pass it (``Picture.cut``).

    Raises:
        InvalidInputError: no such revision, a bad ``hops`` or ``limit``, ``hops`` with
            neither ``revision`` nor ``around``, or a large store with neither to say which
            part to draw.
        UnknownStateError: ``around`` names no stored state.
    """
    if limit < 1:
        raise InvalidInputError("picture", [("limit", "must be at least 1")])
    if hops is not None and hops < 0:
        raise InvalidInputError("picture", [("hops", "must be 0 or more")])
    report = read_report(store, revision) if revision is not None else None
    if revision is not None and isinstance(store, SQLiteStore):
        # the store as it was after the revision: no state written later, values then
        store = PastStore(store, resolve(store, revision))  # type: ignore[assignment]
    title = Path(name).name if name else "memory"
    if revision is not None:
        title += f", revision {revision}"
    if around is not None:
        if store.state(around) is None:
            raise UnknownStateError(around, "the state to draw around")
        n = AROUND_HOPS if hops is None else hops
        sel = neighbourhood(store, [around], n, limit)
        scope = f"{_count(len(sel.ids))} within {_hops(n)} of {around}" if n else around
    elif hops is None and (everything := whole(store, limit)) is not None:
        sel, scope = everything, f"all {_count(len(everything.ids))} of the store"
    elif report is not None:
        n = 1 if hops is None else hops
        core = _cone(report)
        sel = neighbourhood(store, core, n, limit, all_seeds=True)
        scope = f"the revision's cone ({_count(len(core))})"
        scope += f" and what is within {_hops(n)} of it" if n else ""
    elif hops is not None:
        msg = "counts from a revision's cone (--revision N) or a state (--around ID): give one"
        raise InvalidInputError("picture", [("hops", msg)])
    else:
        msg = (
            f"the store holds more than {limit} states and justifications: draw part of it, "
            "a revision's cone (--revision N) or a state's neighbourhood (--around ID), or "
            "raise --limit"
        )
        raise InvalidInputError("picture", [("", msg)])
    if sel.cut and not sel.ids:  # only ``around``: a revision's cone is drawn whatever the limit
        msg = f"{around} and its justifications alone take more than {limit} nodes: raise --limit"
        raise InvalidInputError("picture", [("limit", msg)])
    if sel.cut:
        scope += f", cut at the limit of {limit} nodes (states and justifications)"
    graph = store.subgraph(sel.ids, full=True)
    return Picture(
        title=title,
        scope=scope,
        states=_states(graph, sel, report),
        supports=_supports(graph, report),
        left_out=sel.left_out,
        cut=sel.cut,
        revision=revision,
        change=_change(report) if report is not None else "",
        focus=around,
    )


def _count(n: int) -> str:
    return f"{n} state" if n == 1 else f"{n} states"


def _hops(n: int) -> str:
    return "1 hop" if n == 1 else f"{n} hops"


def _cone(report: Report) -> list[str]:
    """The revision's states, most important first: what the change acted on, then what it
    touched, nearest first."""
    acted = [c.id for c in report.changed]
    acted += [j.head for j in report.change.add_justifications]
    acted += [j.head for j in report.change.remove_justifications]
    touched = [e.id for e in sorted(report.entries, key=lambda e: (e.depth, e.id))]
    return list(dict.fromkeys([*sorted(set(acted)), *touched]))


def _change(report: Report) -> str:
    """The revision's change in words: ``m1 superseded by m1b; m1b asserted``."""
    parts = []
    for c in report.changed:
        parts.append(f"{c.id} {c.action}" + (f" by {c.by}" if c.by else ""))
    for j in report.change.add_justifications:
        parts.append(f"justification of {j.head} added")
    for j in report.change.remove_justifications:
        parts.append(f"justification of {j.head} removed")
    return "; ".join(parts)


def _acted(report: Report) -> dict[str, str]:
    out = {j.head: "justification_removed" for j in report.change.remove_justifications}
    out.update({j.head: "justification_added" for j in report.change.add_justifications})
    out.update({c.id: c.action for c in report.changed})
    return out


def _states(graph: SupportGraph, sel: Selection, report: Report | None) -> tuple[StateNode, ...]:
    acted = _acted(report) if report is not None else {}
    entries = {e.id: e for e in report.entries} if report is not None else {}
    nodes = []
    for sid in sorted(graph.states):
        st = graph.states[sid]
        e = entries.get(sid)
        nodes.append(
            StateNode(
                id=sid,
                kind=st.kind,
                text=st.text,
                truth=graph.value(sid),
                active=graph.is_active(sid),
                superseded_by=graph.inactive.get(sid),
                status=st.status,
                changed=acted.get(sid),
                verdict=e.verdict if e else None,
                consequence=e.consequence if e else None,
                depth=e.depth if e else None,
                decided_by=e.decided_by if e else None,
                reason=e.reason if e else None,
                hidden=sel.hidden.get(sid, 0),
                internal=is_internal(sid),
            )
        )
    return tuple(nodes)


def _same(ref: JustificationRef, j: Justification) -> bool:
    return ref.premises == j.premises and ref.unless == j.unless


def _role(j: Justification, e: Entry | None) -> str | None:
    if e is None:
        return None
    if e.reason.surviving is not None and _same(e.reason.surviving, j):
        return "carries"
    if any(_same(lost.justification, j) for lost in e.reason.lost):
        return "lost"
    return None


def _supports(graph: SupportGraph, report: Report | None) -> tuple[Support, ...]:
    entries = {e.id: e for e in report.entries} if report is not None else {}
    out: list[Support] = []
    for head in sorted(graph.states):
        for j in graph.justifications_of(head):
            out.append(
                Support(
                    key=f"j{len(out)}",
                    head=head,
                    origin=j.origin,
                    premises=j.premises,
                    unless=j.unless,
                    checked=dict(j.checked),
                    rules=j.rules,
                    notes=dict(j.notes),
                    value=justification_value(j, graph.value),
                    role=_role(j, entries.get(head)),
                )
            )
    return tuple(out)
