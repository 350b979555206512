"""How often a new fact told as a change is matched to the fact it reverses.

Reads ``stategraph/bench/data/reversals_dev.jsonl`` (see ``REVERSALS.md`` beside it): per item,
one person's stored facts, a new sentence as a user says it in a chat, and the fact it reverses
(or ``null`` for an addition). Each item is a fresh memory with every shipped rule pack, the
default grounder and the ``ask`` policy; the new sentence is added as a fact and its reported
reversals are read. Prints, per language, the reversals found, the wrong facts asked about, and
the additions asked about. ``-v`` prints each item's outcome.

    python scripts/reversal_recognition.py [-v]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from importlib.resources import files

from stategraph import Memory


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    counts: Counter[tuple[str, str]] = Counter()
    data = files("stategraph.bench") / "data" / "reversals_dev.jsonl"
    for line in data.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        with Memory(rules="all", grounder="stategraph.rule_grounder.v1", reversals="ask") as mem:
            for f in item["facts"]:
                mem.fact(f["id"], f["text"])
            asked = [r.old for r in mem.fact("new", item["new"]).reversals]
        lang, gold = item["lang"], item["reverses"]
        if gold is None:
            counts[lang, "additions"] += 1
            counts[lang, "additions asked"] += bool(asked)
            outcome = "addition asked" if asked else "addition kept"
        else:
            counts[lang, "reversals"] += 1
            counts[lang, "found"] += gold in asked
            counts[lang, "wrong asked"] += len(set(asked) - {gold})
            outcome = "found" if gold in asked else ("wrong" if asked else "none")
        if verbose:
            print(f"{item['id']}: {outcome} {asked} | {item['new']}")
    for lang in sorted({lang for lang, _ in counts}):
        c = {k: v for (g, k), v in counts.items() if g == lang}
        print(
            f"{lang}: {c.get('found', 0)} of {c.get('reversals', 0)} reversals found, "
            f"{c.get('wrong asked', 0)} wrong facts asked; "
            f"{c.get('additions asked', 0)} of {c.get('additions', 0)} additions asked about"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
