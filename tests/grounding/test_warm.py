"""The warm grounder (:mod:`stategraph.grounding.warm`), a real server process on a real Unix
socket: commands that ground text through it read exactly what they would read themselves,
never load spaCy or jieba, and ground themselves whenever it cannot answer."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stategraph.grounding import ground, warm
from stategraph.grounding.result import Grounding

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).resolve().parents[2]


def _golden() -> list[tuple[str, str, int | None]]:
    rows = []
    for lang in ("en", "zh"):
        for line in (GOLDEN / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows.append((row["text"], lang, row.get("year")))
    return rows


def test_a_record_reads_back_as_the_grounding_it_was_written_from() -> None:
    rows = _golden()
    assert len(rows) > 100
    for text, lang, year in rows:
        found = ground(text, lang=lang, reference_year=year)  # type: ignore[arg-type]
        again = Grounding.from_record(json.loads(json.dumps(found.to_record())))
        assert again == found, text


def _private_dir(tmp: Path) -> Path:
    tmp.mkdir(mode=0o700, exist_ok=True)
    tmp.chmod(0o700)
    return tmp


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = _private_dir(tmp_path_factory.mktemp("warm") / "run") / "grounder.sock"
    info = warm.start(idle=300, path=path)
    assert info["root"] == str(ROOT) and info["grounded"] == 0
    yield path
    assert warm.stop(path)
    assert not path.exists()
    assert warm.status(path) is None


def _fresh(program: str, socket: Path, *args: str) -> Any:
    """Run ``program`` in a new interpreter that uses the server at ``socket``."""
    env = {**os.environ, warm.SOCKET_ENV: str(socket), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", program, *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


_GROUND = """
import contextlib, io, json, sys
from stategraph.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["ground", "--json", *sys.argv[1:]])
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"spacy", "jieba"})
print(json.dumps({"code": code, "out": json.loads(out.getvalue()), "heavy": heavy}))
"""


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Actually the Tokyo trip is cancelled", "en"),
        ("The user will move to Shenzhen in December 2026", "en"),
        ("用户计划 2026-12 从上海搬到深圳", "zh"),
        ("我们不养狗了，送给了朋友", "zh"),
    ],
)
def test_the_cli_grounds_through_the_server_as_it_would_itself(
    server: Path, text: str, lang: str
) -> None:
    before = warm.status(server)
    got = _fresh(_GROUND, server, text)
    assert got["code"] == 0
    assert got["heavy"] == []  # neither spaCy nor jieba was loaded: the server read it
    assert got["out"] == ground(text, lang=lang).to_dict()  # type: ignore[arg-type]
    after = warm.status(server)
    assert before is not None and after is not None
    assert after["grounded"] == before["grounded"] + 1


_API = """
import json, sys
from stategraph.grounding import ground, warm
if sys.argv[1] == "off":
    warm.use_when_running(False)
atoms = ground("用户计划 2026-12 从上海搬到深圳").texts
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"spacy", "jieba"})
print(json.dumps({"atoms": atoms, "heavy": heavy}))
"""


def test_a_python_process_uses_the_server_unless_told_not_to(server: Path) -> None:
    assert _fresh(_API, server, "on") == {
        "atoms": ['moves(user,shanghai,shenzhen,"2026-12")'],
        "heavy": [],
    }
    off = _fresh(_API, server, "off")
    assert off["atoms"] == ['moves(user,shanghai,shenzhen,"2026-12")']
    assert off["heavy"] == ["jieba", "spacy"]


_ADD = """
import contextlib, io, json, sys
from stategraph import Memory
from stategraph.cli import main
store, texts = sys.argv[1], sys.argv[2:]
with contextlib.redirect_stdout(io.StringIO()):
    for i, text in enumerate(texts):
        extra = ["--rules", "all", "--grounder", "stategraph.rule_grounder.v1"] if i == 0 else []
        assert main(["add", store, "--id", f"m{i}", "--text", text, *extra]) == 0
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"spacy", "jieba"})
with Memory(store) as mem:
    states = {s.id: [s.atoms, mem.truth(s.id).value] for s in mem.states()}
print(json.dumps({"heavy": heavy, "states": states}))
"""

_TEXTS = ["用户住在上海", "用户计划 2026-12 从上海搬到深圳", "每月5号交上海的房租"]


def test_a_store_written_through_the_server_holds_what_one_written_alone_holds(
    server: Path, tmp_path: Path
) -> None:
    through = _fresh(_ADD, server, str(tmp_path / "warm.db"), *_TEXTS)
    alone = _fresh(_ADD, tmp_path / "none" / "grounder.sock", str(tmp_path / "cold.db"), *_TEXTS)
    assert through["heavy"] == []
    assert alone["heavy"] == ["jieba", "spacy"]
    assert through["states"] == alone["states"]
    assert any(atoms for atoms, _ in through["states"].values())


def test_a_server_of_another_source_tree_is_not_used(
    server: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    answer = warm._ask(server, {"op": "ground", "fingerprint": "x", "text": "a", "lang": "en"}, 5)
    assert "another source tree" in answer["error"]
    monkeypatch.setenv(warm.SOCKET_ENV, str(server))
    client = warm._Client()
    client.enabled = True
    client._fingerprint = "not this tree"
    with caplog.at_level(logging.WARNING):
        assert client.ask("ground", "grounding", text="a", lang="en", year=None) is None
    assert "another source tree" in caplog.text
    assert not client.enabled  # and it is not asked again


def test_a_socket_others_may_reach_is_neither_used_nor_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o755)
    path = open_dir / "grounder.sock"
    with pytest.raises(warm.WarmGrounderError, match="chmod 700"):
        warm.start(idle=5, path=path)
    path.touch()
    monkeypatch.setenv(warm.SOCKET_ENV, str(path))
    client = warm._Client()
    client.enabled = True
    with caplog.at_level(logging.WARNING):
        assert client.ask("words", "words", run="上海") is None
    assert "others may enter" in caplog.text


def test_a_request_it_cannot_read_is_answered_with_an_error(server: Path) -> None:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(5)
        conn.connect(str(server))
        conn.sendall(b"[1, 2\n")
        answer = json.loads(conn.makefile("rb").readline())
    assert "unreadable request" in answer["error"]
    assert warm.status(server) is not None  # and it goes on answering


def test_the_server_exits_when_idle_and_the_cli_says_so(tmp_path: Path) -> None:
    path = _private_dir(tmp_path / "run") / "g.sock"
    env = {**os.environ, warm.SOCKET_ENV: str(path), "PYTHONPATH": str(ROOT)}
    cli = [sys.executable, "-m", "stategraph", "grounder"]
    started = subprocess.run(
        [*cli, "start", "--idle", "1"], capture_output=True, text=True, env=env
    )
    assert started.returncode == 0, started.stderr
    assert "exits after 1 s idle" in started.stdout
    deadline = time.monotonic() + 30
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not path.exists()
    gone = subprocess.run([*cli, "status"], capture_output=True, text=True, env=env)
    assert gone.returncode == 1 and "none running" in gone.stdout
    assert subprocess.run([*cli, "stop"], capture_output=True, env=env).returncode == 1
