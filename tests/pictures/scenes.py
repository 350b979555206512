"""Stores to draw: the seed scenario on disk, and one with every kind of edge and origin."""

from __future__ import annotations

from pathlib import Path

from stategraph.cli import demo
from stategraph.engine.policy import KindPolicy, Policy
from stategraph.memory import Memory
from stategraph.model import Change, Justification, Origin

HOSTILE = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
"""A memory text that would run script if a page put it into markup unescaped."""


def seed(path: Path, lang: str = "en") -> Path:
    """The demo's store (four memories, then m1 superseded: revision 5)."""
    demo.run(lang, path)
    return path


def every_edge(path: Path) -> Memory:
    """A store with alternative support, ``unless``, candidates (one checked independent),
    judge, review and assumed origins, an executed action, and a kind of its own.

    Revision 11 asserts f3, which blocks p1 through ``unless``; x1 (executed) goes to review.
    """
    policy = Policy().with_kind("goal", KindPolicy())
    mem = Memory(path, policy=policy, candidates=None)
    mem.fact("f1", "The user works in Berlin")
    mem.fact("f2", "The user has a Berlin office badge")
    mem.belief("b1", "The user commutes to Berlin", because=["f1", "f2"])  # two ways
    mem.plan("p1", "Suggest Berlin lunch spots", because=[{"all": ["b1"], "unless": ["f3"]}])
    mem.action("x1", "Booked a Berlin desk", because=[["p1"]], status="executed")
    mem.belief("c1", "The user likes currywurst", context=["f1", "f2"])
    mem.add({"id": "g1", "kind": "goal", "text": HOSTILE}, because=[["b1"]])
    mem.belief("a1", "The user prefers window seats")  # no basis at all: assumed
    mem.belief("a2", "The user reads on the train")  # assumed, then confirmed by a person
    checked = Justification(
        head="c1", premises=("f1", "f2"), origin=Origin.recovered, checked={"f1": "independent"}
    )
    mem._apply(  # what a check, the judge and a review write (no caller may: provenance)
        Change(
            add_justifications=(
                checked,
                Justification(head="c1", premises=("f2",), origin=Origin.judge),
                Justification(
                    head="a2",
                    origin=Origin.review,
                    notes={"by": "alice", "note": "seen on the train"},
                ),
            )
        )
    )
    mem.fact("f3", "The user moved to Munich")
    return mem
