"""What the HTML page shows about one state when it is clicked: its justifications, ``why``
(the proof) and ``why-not``, and what the pictured revision decided about it and why.

Computed here, once per drawn state, with the same explanations the API and the CLI give
(:meth:`Memory.why <stategraph.memory.Memory.why>`, :meth:`Memory.why_not
<stategraph.memory.Memory.why_not>`), so the page can never say something the engine would
not. The page only shows these as text.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict

from stategraph.audit.render import justification_text, reason_text
from stategraph.engine.explain import Proof, WhyNot
from stategraph.errors import StategraphError
from stategraph.model import Truth
from stategraph.pictures.labels import clean
from stategraph.pictures.scene import Picture, StateNode, Support

__all__ = ["Details", "Explainer", "details", "support_line"]

_CONSEQUENCES = {
    "cancel": "consequence: cancel this pending action",
    "review": "consequence: review this executed action (it cannot be undone by deleting it)",
}


class Explainer(Protocol):
    """What the page asks of a memory (:class:`~stategraph.memory.Memory` is one)."""

    def why(self, state_id: str) -> Proof:
        """The proof of a holding state."""
        ...

    def why_not(self, state_id: str) -> WhyNot:
        """What stops each justification of a state."""
        ...


class Details(BaseModel):
    """Everything the page's side panel shows about one state, as lines of text."""

    model_config = ConfigDict(frozen=True)

    verdict: tuple[str, ...] = ()
    """What the pictured revision decided and why (empty when it did not touch the state)."""
    why: str | None = None
    """The proof, for a holding state."""
    why_not: str = ""


def support_line(j: Support) -> str:
    """One justification in words: what it rests on, whether it holds now, and what the
    pictured revision did to it."""
    state = {Truth.true: "holds", Truth.false: "does not hold"}.get(j.value, "undecided")
    role = {"lost": "; lost in this revision", "carries": "; carries it in this revision"}
    return clean(f"{justification_text(j.ref())}: {state}{role.get(j.role or '', '')}")


def _verdict(n: StateNode) -> list[str]:
    out = []
    if n.changed is not None:
        by = f" by {n.superseded_by}" if n.changed == "superseded" and n.superseded_by else ""
        out.append(f"{n.changed.replace('_', ' ')}{by} by this revision's change")
    if n.verdict is not None:
        who = f", decided by {n.decided_by.value}" if n.decided_by else ""
        hops = f", {n.depth} hop{'s' if n.depth != 1 else ''} from the change"
        out.append(f"{n.verdict.value.replace('_', ' ')}{who}{hops if n.depth else ''}")
    if n.consequence is not None:
        out.append(_CONSEQUENCES[n.consequence.value])
    if n.reason is not None:
        out.append(f"why: {reason_text(n.reason)}")
    return [clean(line) for line in out]


def details(memory: Explainer, picture: Picture) -> dict[str, Details]:
    """The side panel of every drawn memory (not of internal nodes, which have none).

    A proof or an explanation that cannot be given (a kind this memory's policy does not
    know, say) is replaced by the error's message, so one odd state does not stop the page.
    """
    out = {}
    for n in picture.states:
        if n.internal:
            continue
        try:
            why_not = memory.why_not(n.id).render()
        except StategraphError as exc:
            why_not = f"(cannot explain: {exc})"
        why: str | None = None
        if n.truth is Truth.true:
            try:
                why = memory.why(n.id).render()
            except StategraphError as exc:
                why = f"(cannot prove: {exc})"
        out[n.id] = Details(
            verdict=tuple(_verdict(n)),
            why=why,
            why_not=why_not,
        )
    return out
