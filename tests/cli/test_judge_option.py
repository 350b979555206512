"""``--judge`` on the commands that revise: the judge the environment configures, as ``serve``
and ``mcp`` take it, here a scripted chat-completions server on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge.chat_server import ChatServer, Received, Reply, answer_json, completion

from stategraph.cli.main import main

ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "STATEGRAPH_JUDGE_MODEL")


def _plan_on_a_trip(store: Path) -> None:
    assert (
        main(["add", str(store), "--id", "f1", "--text", "The user flies to Tokyo on May 10"]) == 0
    )
    plan = ["--id", "p1", "--kind", "plan", "--text", "Book a sushi dinner in Tokyo on May 11"]
    assert main(["add", str(store), *plan, "--context", "f1"]) == 0


def test_retract_asks_the_judge_the_environment_configures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = ChatServer().start()
    asked: list[Received] = []

    def rested_on_it(request: Received) -> Reply:
        asked.append(request)
        return Reply(
            body=completion(answer_json(False, [], "it rested on the trip", request.heads))
        )

    chat.script(rested_on_it)
    monkeypatch.setenv("OPENAI_BASE_URL", chat.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("STATEGRAPH_JUDGE_MODEL", "scripted")
    try:
        for judged in (False, True):
            store = tmp_path / f"judged-{judged}.db"
            _plan_on_a_trip(store)
            capsys.readouterr()
            judge = ["--judge"] if judged else []
            assert main(["retract", str(store), "f1", "--json", *judge]) == 0
            report = json.loads(capsys.readouterr().out)
            verdicts = {e["id"]: e["verdict"] for e in report["entries"]}
            want = "invalidated" if judged else "needs_confirmation"
            assert verdicts == {"p1": want}
            assert bool(asked) is judged
    finally:
        chat.stop()


def test_judge_without_its_environment_is_a_one_line_error_and_makes_no_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    store = tmp_path / "m.db"
    assert main(["add", str(store), "--id", "f1", "--text", "x", "--judge"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stategraph: error:") and "STATEGRAPH_JUDGE_MODEL" in err
    assert not store.exists()
