"""Every example runs, from a clean working directory, and says what it should."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parent.parent / "examples"

EXPECTED = {
    "relocation.py": ["invalidated: ['m2', 'm3']"],
    "seed_zh.py": [
        "invalidated: ['m2', 'm3']",
        "consequences: {'m3': 'cancel'}",
        "m4 untouched: True",
    ],
    "agent_loop.py": [
        "a1: invalidated",
        "a2: invalidated",
        "a3: invalidated",
        "consequences: {'a3': 'cancel'}",
    ],
    "medication.py": [
        "dispensed: needs_confirmation -> review",
        "dose: needs_confirmation -> review",
        "refill: invalidated -> cancel",
        "untouched: ['dx', 'hba1c']",
        "allergy recorded: ['abx']",
        "allergy retracted: ['abx']",
        "pending review: dose (no_support) Administered metformin 500 mg at 08:00",
        "pending after review: []",
        "confirmed by nurse.kim on 2026-03-02T09:00:00+00:00: Given as prescribed",
        "audit: 12 entries exported, chain verified, 12 replayed identically",
    ],
    "tutorial.py": [
        "invalidated: ['dinner', 'tz']",
        "consequences: {'visa': 'review'}",
        "sushi untouched: True",
        "pending after review: []",
        "confirmed by alice: The form was filed",
        "log verifies: 7 entries",
    ],
    "text_memories.py": [
        "invalidated: ['m2', 'm3']",
        "consequences: {'m3': 'cancel'}",
        "charge(ana,news)  <- subscriptions:16",
        "renews(ana,news)  <- subscriptions:13, unless cancelled(ana,news) (none holds)",
        "cancelled: ['r1']",
    ],
    "custom_judge.py": [
        "edge p1 <- f1: decided by judge, support ['f2']",
        "p1 holds: true",
    ],
    "serve_http.py": [
        "verdicts: {'m3': 'invalidated'}",
        "consequences: {'m3': 'cancel'}",
        "m3: false",
        "unknown id: 404",
    ],
    "test_my_rule_pack.py": ["4 properties held on 50 examples each"],
    "langgraph_agent.py": [
        "user: 宽带\nagent: 已排待办：搬家前退宽带",
        "user: 不搬了，我留在上海\nagent: 好的\nuser: 宽带\nagent: (nothing holds)",
        "user: 找房\nagent: (nothing holds)",
        "user: 健身卡\nagent asks: 之前：“用户计划 2026-12 从上海搬到深圳”。此后：",
        "“在深圳南山办一张健身卡”还成立吗？\nuser answers: still holds\n"
        "agent: 在深圳南山办一张健身卡",
        "move: holds\ncommute: invalidated\nbroadband: invalidated\nflat: invalidated\ngym: holds",
        "judge requests: 2",
        "flat <- move: stategraph.chat_model_judge.v1 (fake-list-chat-model): depends on "
        "commute, move: 在南山找房是因为要搬去深圳",
        "gym <- move: rejected: 'still holds' names no support (a rubber stamp)",
        "namespaces: [('memories', 'u1')]",
    ],
    "recall_loop.py": [
        "recall 宽带 (holding): []",
        "recall 宽带 (with invalidated): m3 invalidated, rested on ['m1']",
        "recall 粤菜: [('m4', 'holds')]",
        "agent asks before relying on p2: 之前：“用户计划 2026-12 从上海搬到深圳”。此后：",
        "“在深圳南山办一张健身卡”还成立吗？",
        "reject p2: changed ['p2'], restored [], invalidated ['a2']",
        "confirm p1: changed [], restored ['p1'], invalidated []",
        "recall 深圳 after the answers: [('p1', 'holds')]",
    ],
}


def test_every_example_is_listed() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_example_runs(name: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for line in EXPECTED[name]:
        assert line in done.stdout, done.stdout
