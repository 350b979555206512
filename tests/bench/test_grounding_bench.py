"""``stategraph bench --grounding``: the grounder scored against labelled memories."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from stategraph.bench.grounding import load_labelled, score

ROWS = [
    # read right: one gold atom emitted
    {"id": "a", "lang": "en", "text": "The user works in Shenzhen.",
     "atoms": ["works_in(user,shenzhen)"]},
    # no atom, none emitted
    {"id": "b", "lang": "en", "text": "The user likes the colour green.", "atoms": []},
    # a rival left unread: read, but not carried
    {"id": "c", "lang": "zh", "text": "用户吃华法林期间不能吃布洛芬",
     "atoms": ["takes(user,warfarin)", "contraindicated(user,ibuprofen)"]},
]  # fmt: skip


def _write(path: Path) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), "utf-8")
    return path


def test_precision_recall_and_no_atom_accuracy_by_language(tmp_path: Path) -> None:
    result = score(load_labelled(_write(tmp_path / "set.jsonl")))
    en, zh, both = (result["read"][k].to_dict() for k in ("en", "zh", "all"))
    assert (en["precision"], en["recall"], en["no_atom_accuracy"]) == (1.0, 1.0, 1.0)
    assert (zh["emitted"], zh["correct"], zh["gold"]) == (1, 1, 2)
    assert (both["precision"], both["recall"]) == (1.0, 0.6667)
    carried = result["carried"]["zh"].to_dict()
    assert (carried["emitted"], carried["precision"], carried["recall"]) == (0, None, 0.0)


def test_the_shipped_set_is_the_blind_one_in_both_languages() -> None:
    items = load_labelled()
    assert len(items) == 240
    assert {i.lang for i in items} == {"en", "zh"}
    assert sum(not i.atoms for i in items) > 100  # "no atom" is a label too


def test_the_command_prints_the_table(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "stategraph", "bench", "--grounding",
         str(_write(tmp_path / "s.jsonl"))],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["reading", "lang", "memories", "P"]
    assert any(line.split()[:3] == ["carried", "all", "3"] for line in lines)
