"""Bulk import of text memories: reading ahead and grounding ahead change nothing written."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stategraph import Memory
from stategraph.bench.perf.textgen import generate
from stategraph.grounding import DEFAULT_GROUNDER, ground, register_grounder
from stategraph.grounding.ahead import GroundingAhead, can_ground_ahead
from stategraph.grounding.grounder import RuleGrounder
from stategraph.grounding.reading import read
from stategraph.importing import MemoryImportError, import_memories

SETTINGS: dict[str, Any] = {"rules": "all", "grounder": DEFAULT_GROUNDER}


def _rows(n: int, seed: int = 5) -> list[tuple[str, dict[str, Any]]]:
    return [(m.id, m.state()) for m in generate(n, seed).memories(0, n)]


def _contents(path: Path) -> list[tuple[Any, ...]]:
    """Everything an import writes but the log's timestamps and hashes."""
    conn = sqlite3.connect(path)
    try:
        out: list[tuple[Any, ...]] = []
        for table, order in [
            ("states", "id"),
            ("justifications", "head, premises, unless"),
            ("edges", "src, head"),
            ("link_groups", "grp, head"),
            ("group_watches", "key, grp"),
        ]:
            out += [(table, *r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY {order}")]
        out += [("revisions", n) for (n,) in conn.execute("SELECT count(*) FROM revisions")]
        return out
    finally:
        conn.close()


@pytest.mark.skipif(not can_ground_ahead(DEFAULT_GROUNDER), reason="needs two CPUs")
def test_grounding_ahead_writes_the_store_grounding_in_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _rows(700)
    taken: list[int] = []
    submit, take = GroundingAhead.submit, GroundingAhead.take

    # the importer never waits for the worker; this test does, so that the worker is used
    def waiting_submit(self: GroundingAhead, texts: Any) -> int | None:
        assert self.wait(timeout=120)
        return submit(self, texts)

    def waiting_take(self: GroundingAhead, texts: Any, ticket: int | None) -> Any:
        assert ticket is None or self.wait(ticket, timeout=120)
        found = take(self, texts, ticket)
        taken.append(len(found))
        return found

    monkeypatch.setattr(GroundingAhead, "submit", waiting_submit)
    monkeypatch.setattr(GroundingAhead, "take", waiting_take)
    monkeypatch.setattr("stategraph.importing._CHUNK", 100)
    with Memory(tmp_path / "ahead.db", **SETTINGS) as mem:
        import_memories(mem, iter(rows), ground_ahead_after=150)
    with Memory(tmp_path / "here.db", **SETTINGS) as mem:
        import_memories(mem, iter(rows), ground_ahead_after=None)
    assert sum(taken) > 300  # the texts of chunks 4 to 7 came from the worker
    assert _contents(tmp_path / "ahead.db") == _contents(tmp_path / "here.db")


def test_the_worker_grounds_as_this_process_does(caplog: pytest.LogCaptureFixture) -> None:
    texts: list[tuple[str, int | None]] = [(str(s["text"]), 2026) for _, s in _rows(120, seed=9)]
    texts += [("多行\n文本 2026-12 从上海搬到深圳", None), ("", 2025)]
    worker = GroundingAhead(DEFAULT_GROUNDER)
    try:
        assert worker.take(texts, worker.submit(texts)) == {}  # not ready: nothing sent
        assert worker.wait(timeout=120)
        first, second, third = (worker.submit(texts) for _ in range(3))
        assert first is not None and second is not None
        assert third is None  # two chunks in flight at most
        assert worker.wait(first, timeout=120) and worker.wait(second, timeout=120)
        found = worker.take(texts, first)
        assert worker.take(texts, first) == {}  # taken once
    finally:
        with caplog.at_level(logging.INFO, logger="stategraph.grounding.ahead"):
            worker.close()
    assert found == {(t, y): read(ground(t, reference_year=y)) for t, y in texts}
    (record,) = caplog.records
    assert record.grounded == len(found)  # type: ignore[attr-defined]
    if Path("/proc/self/status").exists():  # its own pipelines' memory, read on Linux
        assert record.peak_rss_kb > 50_000  # type: ignore[attr-defined]
    assert worker.submit(texts) is None  # closed: the importer grounds in process


def test_a_grounder_standing_in_under_a_builtin_name_is_not_grounded_ahead() -> None:
    class Double(RuleGrounder):
        pass

    try:
        register_grounder(DEFAULT_GROUNDER, Double)
        assert not can_ground_ahead(DEFAULT_GROUNDER)
        assert not can_ground_ahead("my_team.llm_grounder.v1")
    finally:
        register_grounder(DEFAULT_GROUNDER, RuleGrounder)
    assert can_ground_ahead(DEFAULT_GROUNDER) == (len(os.sched_getaffinity(0)) >= 2)  # Linux


def test_no_worker_without_a_python_to_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.executable", "")
    assert not can_ground_ahead(DEFAULT_GROUNDER)


def _failing(rows: list[tuple[str, dict[str, Any]]], exc: Exception) -> Iterator[Any]:
    yield from rows
    raise exc


@pytest.mark.parametrize("chunk", [1, 3, 100])
def test_an_error_reading_the_input_comes_in_its_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr("stategraph.importing._CHUNK", chunk)
    good = [(f"line {i}", {"id": f"f{i}", "kind": "fact", "text": f"fact {i}"}) for i in range(3)]
    with Memory(tmp_path / "m.db") as mem:
        with pytest.raises(OSError, match="disk"):
            import_memories(mem, _failing(good, OSError("disk")))
        assert mem.states() == []
        # a bad memory before the reading error is the error reported
        bad = [*good[:2], ("line 2", {"id": "f2", "kind": "nope"})]
        with pytest.raises(MemoryImportError, match="line 2"):
            import_memories(mem, _failing(bad, OSError("disk")))
        assert mem.states() == []
        assert import_memories(mem, iter(good))["imported"] == 3


def test_an_import_goes_on_without_a_worker_when_none_can_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_process(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no more processes")

    monkeypatch.setattr("stategraph.grounding.ahead.subprocess.Popen", no_process)
    monkeypatch.setattr("stategraph.importing._CHUNK", 10)
    monkeypatch.setattr("stategraph.grounding.ahead.can_ground_ahead", lambda name: True)
    rows = _rows(40)
    with Memory(tmp_path / "m.db", **SETTINGS) as mem:
        assert import_memories(mem, iter(rows), ground_ahead_after=0)["imported"] == 40


@pytest.mark.skipif(not can_ground_ahead(DEFAULT_GROUNDER), reason="needs two CPUs")
def test_a_worker_killed_mid_import_changes_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _rows(400, seed=11)
    calls: list[int] = []
    submit = GroundingAhead.submit

    def killing_submit(self: GroundingAhead, texts: Any) -> int | None:
        assert self.wait(timeout=120)
        calls.append(len(calls))
        if len(calls) == 3:
            self._proc.kill()  # as the OOM killer would
            self._proc.wait()
        return submit(self, texts)

    monkeypatch.setattr(GroundingAhead, "submit", killing_submit)
    monkeypatch.setattr("stategraph.importing._CHUNK", 50)
    with Memory(tmp_path / "killed.db", **SETTINGS) as mem:
        assert import_memories(mem, iter(rows), ground_ahead_after=0)["imported"] == 400
    with Memory(tmp_path / "here.db", **SETTINGS) as mem:
        import_memories(mem, iter(rows), ground_ahead_after=None)
    assert len(calls) >= 3
    assert _contents(tmp_path / "killed.db") == _contents(tmp_path / "here.db")
