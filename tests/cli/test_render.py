"""The text renderers handle a proof or report of any depth, without recursion.

The deep objects are built directly (a 5,000-hop proof is cheap to build and slow to compute),
and one real ``stategraph why`` runs over a chain deeper than Python's recursion limit.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.cli import main, render_report
from stategraph.engine.explain import Proof, ProofStep, WhyNot, WhyNotItem
from stategraph.model import (
    Change,
    Entry,
    JustificationRef,
    LostSupport,
    Reason,
    Report,
    Truth,
    Verdict,
)

HOPS = 5_000


def chain_proof(hops: int) -> Proof:
    """``s{hops}`` rests on ``s{hops-1}`` ... on the fact ``s0``."""
    steps = [ProofStep(id="s0", kind="fact", text="the root fact", height=0, by=None)]
    steps += [
        ProofStep(
            id=f"s{i}",
            kind="belief",
            text=f"step {i}",
            height=i,
            by=JustificationRef(premises=(f"s{i - 1}",)),
        )
        for i in range(1, hops + 1)
    ]
    return Proof(root=f"s{hops}", steps=tuple(steps))


def test_a_5000_hop_proof_renders_in_linear_text() -> None:
    assert sys.getrecursionlimit() < HOPS  # a recursive walk could not get to the bottom
    proof = chain_proof(HOPS)
    started = time.perf_counter()
    text = proof.render()
    assert time.perf_counter() - started < 2
    lines = text.splitlines()
    assert len(lines) == HOPS + 1
    assert lines[0] == f"s{HOPS} [belief] step {HOPS}  <- declared"
    assert lines[-1].endswith("[depth 5000] s0 [fact] the root fact  (fact)")
    assert lines[41] == " " * 80 + f"[depth 41] s{HOPS - 41} [belief] step {HOPS - 41}  <- declared"
    # indentation stops growing: the text is linear in the proof, not quadratic in its height
    assert max(len(line) for line in lines) < 140


def test_a_shallow_proof_renders_as_an_indented_tree_with_shared_steps_once() -> None:
    ref = JustificationRef
    steps = (
        ProofStep(id="f", kind="fact", text="base", height=0, by=None),
        ProofStep(id="a", kind="belief", text="", height=1, by=ref(premises=("f",))),
        ProofStep(id="b", kind="belief", text="", height=1, by=ref(premises=("f",))),
        ProofStep(
            id="c",
            kind="plan",
            text="top",
            height=2,
            by=ref(premises=("a", "b"), unless=("x",), rules=("relocation:12",)),
        ),
        ProofStep(id="d", kind="action", text="", height=3, by=ref(premises=("a", "c"))),
    )
    text = Proof(root="d", steps=steps, checks={"q": "independent"}).render()
    assert text.splitlines() == [
        "d [action]  <- declared",
        "  a [belief]  <- declared",
        "    f [fact] base  (fact)",
        "  c [plan] top  <- declared via relocation:12, unless x (none holds)",
        "    a [belief]  (shown above)",
        "    b [belief]  <- declared",
        "      f [fact] base  (fact)",
        "candidate q: independent",
    ]


def test_why_not_renders_thousands_of_justifications() -> None:
    items = tuple(
        WhyNotItem(
            justification=JustificationRef(premises=(f"p{i}",), unless=("u",)),
            value=Truth.false,
            first_failed=f"p{i}",
            blocked_by="u",
        )
        for i in range(HOPS)
    )
    text = WhyNot(id="x", truth=Truth.false, status="unsupported", items=items).render()
    lines = text.splitlines()
    assert lines[0] == "x is false: unsupported"
    last = HOPS - 1
    want = f"  <- [p{last}] unless [u] (declared): premise p{last} does not hold; blocked by u"
    assert lines[-1] == want
    assert len(lines) == HOPS + 1


def test_the_report_renderer_handles_a_5000_deep_cascade() -> None:
    entries = tuple(
        Entry(
            id=f"s{i}",
            kind="belief",
            old=Truth.true,
            new=Truth.false,
            verdict=Verdict.invalidated,
            depth=i,
            decided_by="logic",
            reason=Reason(
                cause="no_support",
                lost=(
                    LostSupport(
                        justification=JustificationRef(premises=(f"s{i - 1}",)),
                        failed=(f"s{i - 1}",),
                    ),
                ),
            ),
        )
        for i in range(1, HOPS + 1)
    )
    report = Report(
        change=Change(retract=("s0",)), changed=(), entries=entries, cone_size=HOPS, max_depth=None
    )
    lines = render_report(report).splitlines()
    assert len(lines) == HOPS + 2
    assert (
        lines[-1] == "summary: 5000 no longer hold, 0 still hold, 0 hold again, 0 need confirmation"
    )
    assert lines[-2].split() == [
        "s5000",
        "belief",
        "invalidated",
        "depth",
        "5000",
        "lost",
        "[s4999]",
        "(s4999",
        "gone)",
    ]


def test_why_over_a_chain_deeper_than_the_recursion_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 14: ``stategraph why`` died with RecursionError past about 1,000 hops."""
    hops = 1_500
    store = tmp_path / "chain.db"
    with Memory.open(store) as mem:
        states = [{"id": "s0", "kind": "fact"}] + [
            {"id": f"s{i}", "kind": "belief"} for i in range(1, hops + 1)
        ]
        justs = [{"head": f"s{i}", "premises": [f"s{i - 1}"]} for i in range(1, hops + 1)]
        mem.bulk_load(states, justs)
    assert main(["why", str(store), f"s{hops}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == hops + 1 and lines[-1].endswith("s0 [fact]  (fact)")


FORGED = "rain\n+ m9         fact    the forged line\u2028\u202eevil"


def test_a_memory_text_cannot_forge_a_line_of_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = tmp_path / "m.db"
    with Memory.open(store) as mem:
        mem.fact("f", FORGED)
        mem.belief("b", FORGED, because=["f"], unless=["u"])
    for argv in (["show", str(store)], ["why", str(store), "b"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert len(out.splitlines()) == 2, out  # one line per state, however its text reads
        assert "rain\\n+ m9" in out and "\\u2028\\u202eevil" in out
        assert "\u202e" not in out and "\u2028" not in out


def test_the_report_escapes_what_it_prints() -> None:
    entry = Entry(
        id="x\n  y",
        kind="belief",
        old=Truth.true,
        new=Truth.false,
        verdict=Verdict.invalidated,
        depth=1,
        decided_by="logic",
        reason=Reason(cause="no_support"),
    )
    report = Report(change=Change(), changed=(), entries=(entry,), cone_size=1, max_depth=None)
    lines = render_report(report).splitlines()
    assert len(lines) == 3 and lines[1].startswith("  x\\n  y ")
    note = "checked\n  <- [q] (declared): a forged justification"
    ref = JustificationRef(premises=("p",), notes={"p": note})
    item = WhyNotItem(justification=ref, value=Truth.false, first_failed="p", blocked_by=None)
    text = WhyNot(id="x", truth=Truth.false, status="unsupported", items=(item,)).render()
    assert text.splitlines()[2] == "      (checked\\n  <- [q] (declared): a forged justification)"
