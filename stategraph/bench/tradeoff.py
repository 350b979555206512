"""The trade-off candidate settings make, in the open: silent misses against unneeded questions.

A premise left out of a memory's candidates is a silent miss when it changes; a memory wrongly
among them is a question nobody needed. Every setting of candidate proposal moves one against
the other, so the default is chosen from this table, printed by::

    stategraph bench --tradeoff [PATH...]

Each row runs the engine with logic only (no judge) over the text cases (and traces) with one
setting: ``candidates.v2`` (the best ``k`` by score, every fact while there are few), and
``candidates.v3`` (:mod:`stategraph.text.evidence`) at several bars relative to the best
candidate's evidence, with and without the facts kept for what no better candidate shares
(``cover``), and with and without the candidates of derived candidates. Cases nobody
developed against (``blind``) are reported apart from the others, never pooled with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stategraph.bench.cases import Case
from stategraph.bench.engine import StategraphSystem
from stategraph.bench.metrics import GroupScore
from stategraph.bench.runner import Progress
from stategraph.text.candidates import CandidateProposer, Proposer
from stategraph.text.evidence import EvidenceProposer

__all__ = ["SETTINGS", "Row", "render", "tradeoff"]

SETTINGS: tuple[tuple[str, Proposer], ...] = (
    ("v2 k=8 (slots)", CandidateProposer()),
    *((f"v3 relative={r}", EvidenceProposer(relative=r)) for r in (0.0, 0.3, 0.5, 0.7)),
    ("v3 relative=0.5, no cover", EvidenceProposer(cover=None)),
    ("v3 relative=0.99 (the best), cover", EvidenceProposer(relative=0.99)),
    ("v3 relative=0.5, not inherited", EvidenceProposer(inherit=False)),
    ("v3 relative=0.3, not inherited", EvidenceProposer(relative=0.3, inherit=False)),
    ("v3 relative=0.5, any cover", EvidenceProposer(cover_facts=False)),
    ("v3 relative=0.5, turn=2", EvidenceProposer(turn=2)),
    *(
        (
            f"v3 relative={r}, turn={t} always",
            EvidenceProposer(relative=r, turn=t, contemporaries=True),
        )
        for r, t in ((0.5, 8), (0.5, 3), (0.0, 3))
    ),
)
"""The settings compared, the default of this version (``v3 relative=0.5``) among them."""


@dataclass(frozen=True)
class Row:
    """One setting's figures: the cases developed against, and the blind ones apart."""

    setting: str
    seen: GroupScore
    blind: GroupScore


def tradeoff(
    cases: Sequence[Case],
    settings: Sequence[tuple[str, Proposer]] = SETTINGS,
    progress: Progress | None = None,
) -> list[Row]:
    """Run each setting over the text cases (logic only) and pool its figures."""
    text = [c for c in cases if c.track == "text"]
    rows = []
    for name, proposer in settings:
        system = StategraphSystem(candidates=proposer)
        seen, blind = GroupScore(), GroupScore()
        for i, case in enumerate(text, 1):
            (blind if "blind" in case.tags else seen).add(case, system.run(case))
            if progress is not None:
                progress(name, i, len(text))
        rows.append(Row(name, seen, blind))
    return rows


def render(rows: Sequence[Row]) -> str:
    """The table: per setting, silent misses and unneeded questions, seen and blind apart."""
    head = ["setting", "changes", "silent", "silent%", "unneed/ch", "qprec", "wait", "collat"]
    lines = [head[:1] + [f"{h}" for h in head[1:]] + [f"blind {h}" for h in head[1:]]]
    for r in rows:
        cells = [r.setting]
        for g in (r.seen, r.blind):
            cells += [
                str(g.cases),
                str(g.silent),
                f"{100 * g.silent_share:.1f}",
                f"{g.unneeded_per_change:.2f}",
                f"{100 * g.question_precision:.0f}%",
                f"{g.waiting_needed}/{g.waiting_kept}",
                str(g.collateral),
            ]
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines
    )
