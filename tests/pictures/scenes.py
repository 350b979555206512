"""Stores to draw: the seed scenario on disk, one with every kind of edge and origin, and a
household's 2,000 memories with a revision that touches a few hundred of them."""

from __future__ import annotations

import random
from pathlib import Path

from stategraph.bench.perf.textgen import generate
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


KYC = "m0000002"
"""The household's identity check ("The user's identity has been verified"), which every
money transfer rests on."""


def household(path: Path, n: int = 2000) -> Memory:
    """``n`` memories of one household (``stategraph bench perf --text``'s stream, seed 0),
    linked the way ``stategraph import --memories`` links them (revision 1), then revision 2
    retracts the identity check (:data:`KYC`). At 2,000 that touches 305 memories: 74
    invalidated, 219 put up for confirmation, 12 kept.

    Linking the texts for real takes most of a minute; this writes the links it makes
    directly, in one bulk load (a few seconds): each memory derived from an episode rests on
    its fact by a rule (a transfer also on the identity check, and one in seven of those on
    its fact alone as well, which keeps it), and each other derived memory has one candidate
    justification citing the eight facts written last before it (with the identity check
    among them for about half, as the real linker's shared-word evidence does).
    """
    rng = random.Random("household")
    facts: list[str] = []
    justs = []
    memories = list(generate(n, 0).memories())
    for m in memories:
        if m.episode is not None and m.domain == "finance":
            justs.append(
                Justification(
                    head=m.id,
                    premises=tuple(sorted({m.episode, KYC})),
                    origin=Origin.rule,
                    rules=("finance:63", "finance:83"),
                )
            )
            if rng.random() < 0.15:
                rule = Justification(
                    head=m.id, premises=(m.episode,), origin=Origin.rule, rules=("finance:70",)
                )
                justs.append(rule)
        elif m.episode is not None:
            rule = Justification(
                head=m.id, premises=(m.episode,), origin=Origin.rule, rules=(f"{m.domain}:1",)
            )
            justs.append(rule)
        elif m.kind != "fact":
            near = facts[-8:]
            if KYC not in near and rng.random() < 0.5:
                near = [KYC, *near[1:]]
            justs.append(
                Justification(head=m.id, premises=tuple(sorted(near)), origin=Origin.recovered)
            )
        else:
            facts.append(m.id)
    mem = Memory(path, candidates=None)
    mem._bulk_load([m.state() for m in memories], justs)  # what linking writes: provenance
    mem.retract(KYC)
    return mem
