"""The score of a mutation run (``scripts/mutation.sh``): killed/total per module, survivors.

Reads mutmut's per-file results (``mutants/<file>.meta``) in the run's folder. Only mutants
that were run count: those of ``store.py`` outside its log, which the run skips, do not.
A mutant is killed when a test failed, errored or timed out with it; it survives when every
test passed. Usage: ``python scripts/mutation_score.py RUN_FOLDER``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

KILLED = {1, 3, 24, -24, 36, 152, 255, 37}
"""mutmut's exit codes that count as a kill (failed, pytest error, timeouts, type check)."""
SURVIVED = 0


def main(run: Path) -> int:
    rows: list[tuple[str, int, int, int]] = []
    survivors: list[str] = []
    for meta in sorted((run / "mutants").rglob("*.py.meta")):
        codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
        counts = Counter(
            "killed" if c in KILLED else "survived" if c == SURVIVED else "other"
            for c in codes.values()
            if c is not None and c not in (33, 34, 5)  # not run, skipped, no tests
        )
        run_total = sum(counts.values())
        if not run_total:
            continue
        module = str(meta.relative_to(run / "mutants")).removesuffix(".meta")
        rows.append((module, counts["killed"], run_total, counts["other"]))
        survivors += sorted(k for k, c in codes.items() if c == SURVIVED)
    if not rows:
        print("no mutant was run")
        return 1
    print(f"{'module':<28} {'killed':>7} {'total':>6} {'score':>7}")
    for module, killed, total, other in rows:
        extra = f"  ({other} suspicious)" if other else ""
        print(f"{module:<28} {killed:>7} {total:>6} {killed / total:>7.1%}{extra}")
    killed = sum(r[1] for r in rows)
    total = sum(r[2] for r in rows)
    print(f"{'all':<28} {killed:>7} {total:>6} {killed / total:>7.1%}")
    if survivors:
        print("\nsurvived (see each with: python -m mutmut show NAME):")
        print("\n".join(f"  {name}" for name in survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
