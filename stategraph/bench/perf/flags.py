"""Questions per change on an imported agent memory, for each candidate proposer (issue 41).

On an imported store of 2,000 memories, one supersede flagged 113 memories, 85 of them one
monthly savings transfer written again and again: a derived memory took ``k`` candidates
whatever they shared with it, and each change of any of them asked about it. This imports
the same seeded stream (:mod:`stategraph.bench.perf.textgen`) into one store per proposer,
applies the same changes to each, and prints, side by side, what each change flagged
(``needs_confirmation``) and invalidated, and the text flagged most often::

    python -m stategraph.bench.perf.flags --n 2000 --changes 20
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path
from tempfile import TemporaryDirectory

from stategraph import Change, Memory
from stategraph.bench.perf.textgen import generate
from stategraph.text.candidates import CandidateProposer, Proposer
from stategraph.text.evidence import EvidenceProposer

__all__ = ["main", "measure"]

PROPOSERS: tuple[tuple[str, Proposer], ...] = (
    ("v2 (k slots)", CandidateProposer()),
    ("v3 (evidence)", EvidenceProposer()),
)


def measure(
    n: int, changes: int, folder: Path, proposer: Proposer
) -> tuple[list[int], list[int], Counter[str]]:
    """Import ``n`` memories with ``proposer`` and apply ``changes`` changes: the flags and
    the invalidations of each change, and how often each text was flagged."""
    work = generate(n, 0)
    mem = Memory(
        folder / "m.db", rules="all", grounder="stategraph.rule_grounder.v1", candidates=proposer
    )
    with mem.atomic():
        for m in work.memories():
            mem.add(m.state())
    flags, gone = [], []
    texts: Counter[str] = Counter()
    for change in [*_profile(mem), *work.changes(changes)]:
        report = mem.revise(Change.model_validate(change))
        flags.append(len(report.needs_confirmation))
        gone.append(len(report.invalidated))
        texts.update(mem.state(sid).text for sid in report.needs_confirmation)
    mem.close()
    return flags, gone, texts


def _profile(mem: Memory) -> list[dict[str, object]]:
    """Supersessions of the stream's profile (where the user lives, what the user earns): the
    facts most memories of a household rest on, which ``changes`` leaves out."""
    out: list[dict[str, object]] = []
    for sid in ("m0000000", "m0000004"):
        old = mem.state(sid)
        new = old.text.replace("宁波", "杭州").replace("11900", "13400")
        out.append({"supersede": {"id": sid, "with": {"id": f"{sid}.v2", "text": new}}})
    return out


def main(argv: list[str] | None = None) -> int:
    """Print each proposer's questions per change side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="memories imported (default 2000)")
    parser.add_argument("--changes", type=int, default=20, help="changes applied (default 20)")
    args = parser.parse_args(argv)
    print(
        f"the home and the income superseded, then {args.changes} changes, in an import of "
        f"{args.n} memories (textgen seed 0), logic only"
    )
    print(f"{'proposer':16}{'flags/change':>14}{'max':>6}{'invalidated/change':>20}  most flagged")
    for name, proposer in PROPOSERS:
        with TemporaryDirectory() as tmp:
            flags, gone, texts = measure(args.n, args.changes, Path(tmp), proposer)
        top = texts.most_common(1)
        most = f"{top[0][1]}x {top[0][0][:50]!r}" if top else "-"
        mean = statistics.mean(flags) if flags else 0.0
        mean_gone = statistics.mean(gone) if gone else 0.0
        print(f"{name:16}{mean:14.1f}{max(flags, default=0):6}{mean_gone:20.1f}  {most}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
