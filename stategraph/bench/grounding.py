"""``stategraph bench --grounding``: how precisely the grounder reads memories it never saw.

A rule link decides truth from the atoms memories carry, so a wrong atom is a wrong decision
nobody is asked about. This benchmark scores the grounder against memories labelled with their
gold atoms (or with none), by language:

- **precision**: of the atoms emitted, the share that are gold;
- **recall**: of the gold atoms, the share emitted;
- **no-atom accuracy**: of the memories whose gold is no atom, the share given none.

Two readings are scored side by side: ``read``, every atom the grounder finds, and
``carried``, the atoms a fact keeps (those read from clean clauses,
:mod:`stategraph.grounding.reading`): what rule links rest on. Memories are grounded without a
reference year, as the labels write a year-less date (``"--04-12"``).

The shipped set (``data/grounding_blind.jsonl``, described in ``data/GROUNDING.md``) was written
and labelled by someone who never saw the grounder's code or patterns: it is a held-out
measure, reported apart, never tuned on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_FILE",
    "Labelled",
    "Score",
    "add_arguments",
    "load_labelled",
    "render",
    "run_command",
    "score",
    "wanted",
]

DATA_FILE = "data/grounding_blind.jsonl"
"""The shipped labelled set, inside :mod:`stategraph.bench`."""

READINGS = ("read", "carried")


@dataclass(frozen=True)
class Labelled:
    """One labelled memory: its text, language and gold atoms (empty: no atom)."""

    id: str
    lang: str
    text: str
    atoms: frozenset[str]


@dataclass
class Score:
    """Counts for one language and one reading."""

    emitted: int = 0
    correct: int = 0
    gold: int = 0
    none_gold: int = 0
    none_right: int = 0
    memories: int = 0
    wrong: list[tuple[str, str]] = field(default_factory=list)
    """``(memory id, atom)`` for each emitted atom that is not gold (for a later look)."""

    def add(self, gold: frozenset[str], emitted: Iterable[str], sid: str) -> None:
        out = set(emitted)
        self.memories += 1
        self.emitted += len(out)
        self.correct += len(out & gold)
        self.gold += len(gold)
        self.wrong += [(sid, a) for a in sorted(out - gold)]
        if not gold:
            self.none_gold += 1
            self.none_right += not out

    def to_dict(self) -> dict[str, Any]:
        return {
            "memories": self.memories,
            "emitted": self.emitted,
            "correct": self.correct,
            "gold": self.gold,
            "precision": _ratio(self.correct, self.emitted),
            "recall": _ratio(self.correct, self.gold),
            "no_atom_memories": self.none_gold,
            "no_atom_accuracy": _ratio(self.none_right, self.none_gold),
        }


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def load_labelled(path: str | Path | None = None) -> list[Labelled]:
    """The labelled memories of a JSONL file (each line ``id``, ``lang``, ``text``, ``atoms``);
    None: the shipped set.

    Raises:
        ValueError: naming the line that is not such a memory.
    """
    if path is None:
        text = files("stategraph.bench").joinpath(DATA_FILE).read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            item = Labelled(
                str(row["id"]), str(row["lang"]), str(row["text"]), frozenset(row["atoms"])
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"line {n}: not a labelled memory ({exc})") from None
        out.append(item)
    return out


def score(items: Iterable[Labelled], grounder: str | None = None) -> dict[str, dict[str, Score]]:
    """Ground every memory and score it: ``{reading: {language or "all": Score}}``."""
    from stategraph.grounding import DEFAULT_GROUNDER, ground
    from stategraph.grounding.reading import read

    out: dict[str, dict[str, Score]] = {r: {} for r in READINGS}
    for item in items:
        found = ground(item.text, lang=item.lang, grounder=grounder or DEFAULT_GROUNDER)  # type: ignore[arg-type]
        for reading, atoms in (("read", found.texts), ("carried", read(found).atoms())):
            for key in (item.lang, "all"):
                out[reading].setdefault(key, Score()).add(item.atoms, atoms, item.id)
    return out


def render(result: dict[str, dict[str, Score]]) -> str:
    """A plain-text table: one row per reading and language."""
    head = ["reading", "lang", "memories", "P", "R", "no-atom acc", "emitted", "gold"]
    rows = [head]
    for reading in READINGS:
        for lang in sorted(result[reading], key=lambda k: (k == "all", k)):
            d = result[reading][lang].to_dict()
            acc = d["no_atom_accuracy"]
            rows.append(
                [
                    reading,
                    lang,
                    str(d["memories"]),
                    _pct(d["precision"]),
                    _pct(d["recall"]),
                    f"{_pct(acc)} of {d['no_atom_memories']}" if acc is not None else "-",
                    str(d["emitted"]),
                    str(d["gold"]),
                ]
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the grounding benchmark's option to the ``bench`` parser."""
    g = p.add_argument_group("grounding precision")
    g.add_argument(
        "--grounding",
        action="store_true",
        help="score the grounder's atoms against labelled memories (precision, recall, no-atom "
        "accuracy by language; the shipped blind set, or the JSONL files given as paths)",
    )


def wanted(args: argparse.Namespace) -> bool:
    """True when the command line asks for the grounding benchmark."""
    return bool(getattr(args, "grounding", False))


def run_command(args: argparse.Namespace) -> int:
    """Run it: the shipped set, or the labelled JSONL files given as paths."""
    try:
        items = [i for p in args.paths for i in load_labelled(p)] if args.paths else load_labelled()
    except (OSError, ValueError) as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    result = score(items)
    if args.json:
        doc = {
            reading: {lang: s.to_dict() for lang, s in sorted(by.items())}
            for reading, by in result.items()
        }
        print(json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(render(result))
    return 0
