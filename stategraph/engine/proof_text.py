"""A proof as the indented text ``stategraph why`` prints.

One renderer for :meth:`Proof.render <stategraph.engine.explain.Proof.render>` and for the
command line's reading of a store without the models (:mod:`stategraph.store.ancestry`): it reads
steps and justifications through small protocols, so both print the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from stategraph.escaping import LINE_ESCAPES
from stategraph.nodes import is_atom_node, is_internal, node_atom, rule_node
from stategraph.values import Origin

__all__ = ["PlainStep", "Premised", "Step", "confirmed_by", "render_proof"]

_MAX_INDENT = 40


class Premised(Protocol):
    """What the text says of the justification a step rests on."""

    @property
    def premises(self) -> tuple[str, ...]: ...
    @property
    def unless(self) -> tuple[str, ...]: ...
    @property
    def origin(self) -> Origin: ...
    @property
    def rules(self) -> tuple[str, ...]: ...
    @property
    def notes(self) -> Mapping[str, str]: ...


class Step(Protocol):
    """One state of a proof."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def by(self) -> Premised | None: ...


@dataclass(frozen=True, slots=True)
class PlainStep:
    """A :class:`Step` as plain data (a :class:`~stategraph.engine.explain.ProofStep` is one
    too, as a model)."""

    id: str
    kind: str
    text: str
    by: Premised | None


def confirmed_by(ref: Premised) -> str:
    """A ``review`` justification in words: "confirmed by X on AT: note" (its notes say who,
    when if the caller gave it, and why; :mod:`stategraph.review`)."""
    on = f" on {ref.notes['at']}" if ref.notes.get("at") else ""
    note = f": {ref.notes['note']}" if ref.notes.get("note") else ""
    return f"confirmed by {ref.notes.get('by', '?')}{on}{note}"


def render_proof(root: str, steps: Iterable[Step], checks: Mapping[str, str]) -> str:
    """The proof of ``root`` as an indented tree; a state proved earlier is printed once.

    Walked with an explicit stack, not recursion, so a proof of any height renders (a chain of
    200,000 hops is a legitimate memory). Indentation stops growing at 40 levels and deeper
    lines name their depth instead, so the text stays linear in the size of the proof rather
    than quadratic in its height. Control, line-separator and bidi characters in ids and texts
    are escaped, so a memory cannot forge or reorder a line.

    Args:
        root: the state proved.
        steps: every state the proof names, each with the justification it rests on (whose
            premises are those that count) or None for a fact.
        checks: how the root's candidate premises were classified, and why.
    """
    lines: list[str] = []
    seen: set[str] = set()
    by_id = {s.id: s for s in steps}
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        sid, depth = stack.pop()
        s = by_id[sid]
        pad = "  " * min(depth, _MAX_INDENT)
        if depth > _MAX_INDENT:
            pad += f"[depth {depth}] "
        label = f"{s.id} [{s.kind}] {s.text}".rstrip()
        by = s.by
        if by is not None and is_internal(sid):
            _atom_step(sid, s.text, by, pad, depth, lines, stack)
            continue
        if by is None:
            lines.append(f"{pad}{label}  (fact)")
            continue
        if sid in seen:
            lines.append(f"{pad}{label}  (shown above)")
            continue
        seen.add(sid)
        if by.origin is Origin.review:
            lines.append(f"{pad}{label}  <- {confirmed_by(by)}")
            continue
        unless = f", unless {', '.join(by.unless)} (none holds)" if by.unless else ""
        rules = f" via {', '.join(by.rules)}" if by.rules else ""
        lines.append(f"{pad}{label}  <- {by.origin.value}{rules}{unless}")
        lines.extend(f"{pad}    ({note})" for _, note in sorted(by.notes.items()))
        stack.extend((p, depth + 1) for p in reversed(by.premises))
    lines.extend(f"candidate {p}: {note}" for p, note in sorted(checks.items()))
    return "\n".join(line.translate(LINE_ESCAPES) for line in lines)


def _atom_step(
    sid: str,
    atom: str,
    by: Premised,
    pad: str,
    depth: int,
    lines: list[str],
    stack: list[tuple[str, int]],
) -> None:
    """An atom step (:mod:`stategraph.nodes`): a rule instance deriving the atom, with the
    atoms it reads (``home_city(user,shenzhen)  <- relocation:62 from ...``), or the memory
    carrying it (``<- carried by h17``). An atom that holds because the rules derive it is
    printed once, as its derivation."""
    if is_atom_node(sid) and list(by.premises) == [rule_node(node_atom(sid))]:
        stack.append((by.premises[0], depth))  # the atom holds as the rules derive it
        return
    if is_atom_node(sid):
        (carrier,) = by.premises
        lines.append(f"{pad}{atom}  <- carried by {carrier}")
        stack.append((carrier, depth + 1))
        return
    rules = ", ".join(by.rules) or "rule"
    unless = ", ".join(node_atom(u) for u in by.unless)
    blocked = f", unless {unless} (none holds)" if unless else ""
    lines.append(f"{pad}{atom}  <- {rules}{blocked}")
    stack.extend((p, depth + 1) for p in reversed(by.premises))
