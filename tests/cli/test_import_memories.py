"""``stategraph import --memories``: text memories written as ``add`` writes them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from stategraph import Memory

ROWS = [
    {
        "id": "m1",
        "kind": "fact",
        "text": "The user plans to move from Shanghai to Shenzhen in December 2026",
    },
    {"id": "m2", "kind": "belief", "text": "Commute time is computed for Shenzhen"},
    {"id": "m3", "kind": "fact", "text": "The user prefers Cantonese food"},
    {"id": "m4", "kind": "plan", "text": "Book a Cantonese dinner", "context": ["m3"]},
]

ALL_HOLD = {"imported": 4, "holding": 4, "not_holding": 0, "undefined": 0, "review": 0}
"""What ``import --memories --json`` says of ROWS: all four hold, nothing waits."""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stategraph", *args], capture_output=True, text=True, check=False
    )


def write(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_memories_are_grounded_linked_and_logged_one_by_one(tmp_path: Path) -> None:
    src, store = tmp_path / "m.jsonl", tmp_path / "m.db"
    write(src, ROWS)
    done = run("import", str(store), str(src), "--memories", "--rules", "all", "--grounder",
               "stategraph.rule_grounder.v1", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ALL_HOLD
    assert "import: 4/4 memories" in done.stderr
    with Memory.open(store) as mem:
        assert [j.origin.value for j in mem.justifications("m2")] == ["rule"]
        assert {j.origin.value for j in mem.justifications("m4")} == {"recovered"}
        assert len(mem.history()) == 4 and mem.rules  # kept in the store
        assert mem.supersede(
            "m1", {"id": "m1b", "text": "The user stays in Shanghai"}
        ).invalidated == ["m2"]


def test_a_bad_line_is_named_and_nothing_is_imported(tmp_path: Path) -> None:
    src, store = tmp_path / "m.jsonl", tmp_path / "m.db"
    write(src, [*ROWS, {"id": "m5", "kind": "belief", "because": ["nope"]}])
    done = run("import", str(store), str(src), "--memories")
    assert done.returncode == 2
    assert f"{src}:5" in done.stderr and "nothing was imported" in done.stderr
    with Memory.open(store) as mem:
        assert mem.states() == [] and mem.history() == []


def test_one_process_imports_the_same_and_asks_for_memories(tmp_path: Path) -> None:
    src = tmp_path / "m.jsonl"
    write(src, ROWS)
    done = run("import", str(tmp_path / "a.db"), str(src), "--memories", "--one-process",
               "--rules", "all", "--grounder", "stategraph.rule_grounder.v1", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ALL_HOLD
    refused = run("import", str(tmp_path / "b.db"), str(src), "--one-process")
    assert refused.returncode != 0 and "--one-process" in refused.stderr
    assert "only with --memories" in refused.stderr and not (tmp_path / "b.db").exists()


def test_the_summaries_say_what_holds_what_went_and_what_waits_for_review(
    tmp_path: Path,
) -> None:
    """Before: "imported 6 memories: 3 hold, 2 undefined", silent about the one that went and
    the two that wait for a person; and a revision's text ended with its entries."""
    src, store = tmp_path / "m.jsonl", tmp_path / "m.db"
    rows = [
        {"id": "f1", "text": "The user flies to Tokyo on May 10"},
        {"id": "b1", "kind": "belief", "text": "Jet lag on May 11", "because": "f1"},
        {"id": "b2", "kind": "belief", "text": "Free on May 12", "because": "f1", "unless": "f2"},
        {"id": "f2", "text": "A meeting in Tokyo on May 12"},  # b2 no longer holds
        # two defaults that defeat each other: undefined, each waits for a person
        {"id": "u1", "kind": "belief", "text": "Takes the train", "unless": "u2"},
        {"id": "u2", "kind": "belief", "text": "Takes a taxi", "unless": "u1"},
    ]
    write(src, rows)
    done = run("import", str(store), str(src), "--memories")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "imported 6 memories: 3 hold, 1 do not, 2 undefined",
        f"2 wait for review: stategraph review {store}",
    ]
    review = run("review", str(store))
    assert review.stdout.splitlines()[-1].startswith("2 waiting:")

    plan = run("add", str(store), "--id", "p1", "--kind", "plan", "--text", "Sushi in Tokyo",
               "--context", "f1")  # fmt: skip
    assert plan.returncode == 0, plan.stderr
    revised = run("retract", str(store), "f1")
    assert revised.stdout.splitlines()[-2:] == [
        "summary: 1 no longer holds, 0 still hold, 0 hold again, 1 needs confirmation",
        f"3 wait for review: stategraph review {store}",
    ]
    assert run("review", str(store)).stdout.splitlines()[-1].startswith("3 waiting:")
