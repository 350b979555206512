"""Audit export, verification and replay, against real SQLite files and from the file alone.

An export must hold every entry exactly as its hash covers it, verify by itself (in another
process, with the store gone), replay revision by revision to the same bytes, and refuse any
edit: of any field, of several fields with the hashes recomputed (the replay sees it), of
lines removed. What cannot be replayed (a part of a log, a bulk load) is said, not hidden.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from stategraph import KindPolicy, Memory, Policy
from stategraph.audit import FIELDS, LogRow, export, read_export, verify_export
from stategraph.cli import demo
from stategraph.cli.main import EXIT_INPUT, EXIT_INTEGRITY, main
from stategraph.errors import (
    InputFileError,
    LogIntegrityError,
    ReplayDivergenceError,
    ReplayUnavailableError,
)
from stategraph.judge import JudgeAnswer, JudgeCall, Question, question_key
from stategraph.judge.settle import JudgeBudget
from stategraph.store import SQLiteStore
from stategraph.store.revlog import GENESIS, chain

GOLDEN = Path(__file__).parent / "golden"


class Judge:
    """Answers "still holds" citing the first holding memory offered, or nothing for a
    question about an action (an error is logged and replayed too)."""

    name = "test.audit_judge.v1"
    model = "script"

    def ask(self, questions: Sequence[Question]) -> list[JudgeCall]:
        out = []
        for q in questions:
            answer = None
            if q.head.kind != "action" and q.holding:
                answer = JudgeAnswer(still_holds=True, support=(q.holding[0].id,), reason="ok")
            out.append(
                JudgeCall(
                    key=question_key(q, self.model),
                    question=q,
                    judge=self.name,
                    model=self.model,
                    answer=answer,
                    error=None if answer else "timeout",
                    attempts=2,
                    prompt_tokens=90,
                    completion_tokens=10,
                    latency_ms=12.5,
                )
            )
        return out


def judged(path: Path) -> Memory:
    """Candidates, the judge within a budget, a cached answer, reviews, a depth bound."""
    mem = Memory(path, judge=Judge(), judge_budget=JudgeBudget(calls=3))
    mem.fact("f1", "The user flies to Tokyo on May 10")
    mem.fact("f2", "The user likes sushi")
    mem.fact("f3", "The user has a Tokyo office")
    mem.plan("p1", "Book a sushi dinner in Tokyo", context=["f1", "f2"])
    mem.plan("p2", "Book a Tokyo hotel", context=["f1"])
    mem.plan("p3", "Buy a Tokyo metro card", context=["f1"])
    mem.action("a1", "Reserve the table", context=["p1", "f1"], status="executed")
    mem.retract("f1")  # the judge is asked within its budget; the rest is flagged
    for p in mem.pending_review():
        if p.id == "p3":
            mem.reject("p3", by="bob", note="no trip, no metro card")
        else:
            mem.confirm(p.id, by="alice", note="still wanted", at="2026-05-01T09:30:00+00:00")
    mem.close()
    return Memory(path, max_depth=1)


def declared(path: Path) -> Memory:
    mem = demo.build("en", path)
    mem.supersede("m1", {"id": "m1b", "kind": "fact", "text": demo.SCENARIO["en"]["m1b"]})
    return mem


def from_text(path: Path) -> Memory:
    mem = demo.build("zh", path, text_only=True)
    mem.supersede("m1", {"id": "m1b", "kind": "fact", "text": demo.SCENARIO["zh"]["m1b"]})
    mem.plan("p9", "周末推荐深圳本地活动")
    return mem


def exported(build: Callable[[Path], Memory], tmp_path: Path) -> tuple[Path, Memory]:
    mem = build(tmp_path / "m.db")
    mem.fact("last", "one more entry after everything else")
    store = mem.store
    assert isinstance(store, SQLiteStore)
    out = tmp_path / "log.jsonl"
    assert export(store, out)[0] == len(mem.history())
    return out, mem


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, entries: list[dict[str, object]]) -> None:
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("build", [declared, from_text, judged], ids=lambda f: f.__name__)
def test_an_export_verifies_and_replays_every_revision(
    build: Callable[[Path], Memory], tmp_path: Path
) -> None:
    out, mem = exported(build, tmp_path)
    result = verify_export(out)
    n = len(mem.history())
    assert (result.count, result.first, result.replayed, result.not_replayed) == (n, 1, n, "")
    assert result.head == mem.head()


def test_each_line_is_the_entry_as_its_hash_covers_it(tmp_path: Path) -> None:
    out, mem = exported(judged, tmp_path)
    entries = lines(out)
    assert [e["seq"] for e in entries] == list(range(1, len(mem.history()) + 1))
    for e in entries:
        assert list(e) == list(FIELDS)
        texts = [str(e[f]) for f in ("at", "change", "report", "config", "calls")]
        assert chain(str(e["prev_hash"]), int(e["seq"]), *texts) == e["hash"]  # type: ignore[call-overload]
    assert entries[0]["prev_hash"] == GENESIS
    judged_entry = next(e for e in entries if e["calls"])
    asked = json.loads(str(judged_entry["change"]))
    applied = json.loads(str(judged_entry["report"]))["change"]
    assert asked != applied  # the change as given is logged; the report holds it as applied
    reviews = [r for e in entries for r in json.loads(str(e["change"])).get("reviews", [])]
    assert {(r["id"], r["decision"], r["by"]) for r in reviews} >= {
        ("p3", "rejected", "bob"),
        ("a1", "confirmed", "alice"),
    }


def middle_with_calls(out: Path) -> int:
    return next(int(e["seq"]) for e in lines(out) if e["calls"])  # type: ignore[call-overload]


@pytest.mark.parametrize("field", FIELDS)
def test_an_edit_of_any_field_is_caught(field: str, tmp_path: Path) -> None:
    out, _ = exported(judged, tmp_path)
    entries = lines(out)
    target = middle_with_calls(out)
    e = entries[target - 1]
    if field == "seq":
        e["seq"] = target + 10
    elif field in ("prev_hash", "hash"):
        value = str(e[field])
        e[field] = ("1" if value[0] != "1" else "2") + value[1:]
    elif field == "at":
        e["at"] = str(e["at"]).replace("2", "3", 1)
    else:  # a JSON text: its first key renamed, still valid JSON
        e[field] = str(e[field]).replace('"', '"x', 1)
    assert lines(out)[target - 1] != e
    write(out, entries)
    with pytest.raises(LogIntegrityError) as caught:
        verify_export(out)
    assert caught.value.seq == target, caught.value.breaks
    assert main(["audit", "verify", str(out)]) == EXIT_INTEGRITY


def recompute(entries: list[dict[str, object]], start: int) -> None:
    """What a careful forger does: rehash every entry from ``start`` on."""
    prev = str(entries[start - 2]["hash"]) if start > 1 else GENESIS
    for e in entries[start - 1 :]:
        e["prev_hash"] = prev
        texts = [str(e[f]) for f in ("at", "change", "report", "config", "calls")]
        e["hash"] = prev = chain(prev, int(e["seq"]), *texts)  # type: ignore[call-overload]


def test_a_rewrite_with_every_hash_recomputed_is_caught_by_the_replay(tmp_path: Path) -> None:
    out, mem = exported(declared, tmp_path)
    head = mem.head()
    entries = lines(out)
    report = str(entries[4]["report"])  # the supersession: m2 and m3 invalidated
    assert '"verdict":"invalidated"' in report
    entries[4]["report"] = report.replace('"verdict":"invalidated"', '"verdict":"kept"', 1)
    recompute(entries, 5)
    write(out, entries)
    assert verify_export(out, replay=False).count == len(entries)  # the chain alone holds
    with pytest.raises(ReplayDivergenceError) as caught:
        verify_export(out)
    assert caught.value.seq == 5
    assert caught.value.where == "report.entries[0].verdict"
    assert (caught.value.logged, caught.value.replayed) == ('"kept"', '"invalidated"')
    with pytest.raises(LogIntegrityError):  # and a head kept elsewhere shows it too
        verify_export(out, expect_head=head, replay=False)


def test_a_forged_review_is_caught_by_the_replay(tmp_path: Path) -> None:
    """Someone rewrites who confirmed a state, in the justification and in the review."""
    out, _ = exported(judged, tmp_path)
    entries = lines(out)
    target = next(i for i, e in enumerate(entries) if "alice" in str(e["change"]))
    entries[target]["change"] = str(entries[target]["change"]).replace("alice", "mallory")
    recompute(entries, target + 1)
    write(out, entries)
    with pytest.raises(ReplayDivergenceError) as caught:
        verify_export(out)
    assert caught.value.seq == target + 1 and "mallory" in caught.value.replayed


def test_lines_removed_are_caught(tmp_path: Path) -> None:
    out, mem = exported(declared, tmp_path)
    entries = lines(out)
    write(out, entries[:2] + entries[3:])
    with pytest.raises(LogIntegrityError) as middle:
        verify_export(out)
    assert middle.value.seq == 3 and "missing" in middle.value.reason
    write(out, entries[:-1])
    assert verify_export(out).replayed == len(entries) - 1  # a shorter log is still a log...
    with pytest.raises(LogIntegrityError) as end:  # ...unless a head was kept elsewhere
        verify_export(out, expect_head=mem.head())
    assert "removed from the end" in end.value.reason


def test_a_partial_export_is_chained_from_its_first_line_and_not_replayed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    mem = declared(path)
    store = mem.store
    assert isinstance(store, SQLiteStore)
    out = tmp_path / "part.jsonl"
    assert export(store, out, since=3) == (2, 4, 5)
    result = verify_export(out, expect_head=mem.head(), partial=True)
    assert (result.first, result.count, result.replayed) == (4, 2, 0)
    assert "starts at entry 4" in result.not_replayed
    assert main(["audit", "export", str(path), "--since", "3", str(out)]) == 0
    assert main(["audit", "verify", str(out), "--partial"]) == 0


def test_a_bulk_load_is_verified_by_the_chain_and_stops_the_replay(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db")
    mem.fact("f0")
    mem.bulk_load(
        [{"id": "hub", "kind": "fact"}, *({"id": f"b{i}", "kind": "belief"} for i in range(5))],
        [{"head": f"b{i}", "premises": ["hub"]} for i in range(5)],
    )
    mem.retract("hub")
    store = mem.store
    assert isinstance(store, SQLiteStore)
    out = tmp_path / "log.jsonl"
    export(store, out)
    result = verify_export(out)
    assert (result.count, result.replayed) == (3, 1)
    assert result.not_replayed.startswith("entry 2 is a bulk load")
    entries = lines(out)
    entries[2]["report"] = str(entries[2]["report"]).replace("b4", "b5")
    write(out, entries)
    with pytest.raises(LogIntegrityError) as caught:  # after the bulk load: the chain sees it
        verify_export(out)
    assert caught.value.seq == 3


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("not json", "not JSON"),
        ('{"seq": 1}', "expected the fields"),
        ("[1, 2]", "expected the fields"),
        (None, "the wrong type"),
        ("extra", "expected the fields"),
    ],
)
def test_a_malformed_export_is_refused_naming_the_line(
    line: str | None, problem: str, tmp_path: Path
) -> None:
    out, _ = exported(declared, tmp_path)
    text = out.read_text(encoding="utf-8").splitlines()
    if line is None:
        entry = json.loads(text[1])
        entry["seq"] = "2"
        line = json.dumps(entry)
    elif line == "extra":
        entry = json.loads(text[1])
        entry["note"] = "added"
        line = json.dumps(entry)
    text[1] = line
    out.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError) as caught:
        list(read_export(out))
    assert caught.value.line == 2 and problem in str(caught.value)
    assert main(["audit", "verify", str(out)]) == EXIT_INPUT


def test_an_export_verifies_in_a_fresh_process_with_the_store_gone(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    judged(path).close()
    out = tmp_path / "elsewhere" / "log.jsonl"
    out.parent.mkdir()
    cli = [sys.executable, "-m", "stategraph"]
    done = subprocess.run(
        [*cli, "audit", "export", str(path), str(out)], capture_output=True, text=True, check=True
    )
    head = re.search(r"head is (\d+:[0-9a-f]{64})", done.stdout)
    assert head is not None, done.stdout
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    ok = subprocess.run(
        [*cli, "audit", "verify", str(out), "--expect-head", head.group(1)],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert "hash chain intact" in ok.stdout and "replayed all" in ok.stdout
    entries = lines(out)
    entries[-1]["report"] = str(entries[-1]["report"]).replace('"', '"x', 1)
    write(out, entries)
    bad = subprocess.run([*cli, "audit", "verify", str(out)], capture_output=True, text=True)
    assert bad.returncode == EXIT_INTEGRITY and "does not match its hash" in bad.stderr


def normalised(text: str) -> str:
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00", "COMMITTED_AT", text)
    return re.sub(r"[0-9a-f]{64}", "HASH", text)


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_the_seed_scenarios_revision_as_a_page(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Golden files: regenerate with STATEGRAPH_REGENERATE=1 after checking the difference."""
    path = tmp_path / "m.db"
    declared(path).close()
    assert main(["audit", "show", str(path), "5", "--format", fmt]) == 0
    page = normalised(capsys.readouterr().out)
    golden = GOLDEN / f"seed_revision.{fmt}"
    if "STATEGRAPH_REGENERATE" in __import__("os").environ:
        golden.write_text(page, encoding="utf-8")
    assert page == golden.read_text(encoding="utf-8")


def test_a_memory_cannot_add_markup_to_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.db"
    mem = Memory(path)
    hostile = "<script>alert(1)</script> [click](http://x) | cell\nforged line ![i](x.png)"
    mem.fact("f1", hostile)
    mem.belief("b1", "ok", because=["f1"])
    mem.retract("f1")
    mem.close()
    assert main(["audit", "show", str(path), "3"]) == 0
    md = capsys.readouterr().out
    assert "<script>" not in md and "\\<script\\>" in md and "\\[click\\]" in md
    assert r"\| cell\\nforged line" in md  # the newline shown as \n, never a new line
    (row,) = [line for line in md.splitlines() if line.startswith("| **f1**")]
    assert len(re.findall(r"(?<!\\)\|", row)) == 5  # its table's four columns, no more
    assert main(["audit", "show", str(path), "3", "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert "<script" not in page and "&lt;script&gt;" in page and "<img" not in page


def test_show_names_a_missing_entry_and_renders_a_bulk_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.db"
    with Memory(path) as mem:
        mem.bulk_load([{"id": "f", "kind": "fact"}])
    assert main(["audit", "show", str(path), "9"]) == EXIT_INPUT
    assert "no entry 9" in capsys.readouterr().err
    assert main(["audit", "show", str(path), "1"]) == 0
    assert "A bulk load, logged as a summary only: holding" in capsys.readouterr().out


def test_the_log_row_is_what_the_store_hashed(tmp_path: Path) -> None:
    _, mem = exported(declared, tmp_path)
    store = mem.store
    assert isinstance(store, SQLiteStore)
    for row, entry in zip(read_export(tmp_path / "log.jsonl"), mem.history(), strict=True):
        assert isinstance(row, LogRow)
        assert (row.seq, row.hash, row.prev_hash) == (entry.seq, entry.hash, entry.prev_hash)


def test_export_to_stdout_and_verify_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, mem = exported(declared, tmp_path)
    path = tmp_path / "m.db"
    mem.close()
    assert main(["audit", "export", str(path), "-"]) == 0
    assert capsys.readouterr().out == out.read_text(encoding="utf-8")
    assert main(["audit", "verify", str(out), "--json"]) == 0
    seq, digest = len(lines(out)), str(lines(out)[-1]["hash"])
    assert json.loads(capsys.readouterr().out) == {
        "entries": seq,
        "first": 1,
        "partial": False,
        "head": f"{seq}:{digest}",
        "replayed": seq,
        "not_replayed": "",
    }
    assert main(["audit", "verify", str(out), "--chain-only"]) == 0
    assert "not replayed (--chain-only)" in capsys.readouterr().out


def test_kinds_of_ones_own_need_their_policy_to_replay(tmp_path: Path) -> None:
    policy = Policy().with_kind("goal", KindPolicy())
    mem = Memory(tmp_path / "m.db", policy=policy)
    mem.fact("f1", "The user trains for a marathon")
    mem.add({"id": "g1", "kind": "goal", "text": "Run under four hours"}, because=["f1"])
    mem.retract("f1")
    store = mem.store
    assert isinstance(store, SQLiteStore)
    out = tmp_path / "log.jsonl"
    export(store, out)
    with pytest.raises(ReplayUnavailableError) as caught:
        verify_export(out)
    assert caught.value.seq == 1 and "goal" in caught.value.reason
    assert "pass the Policy" in caught.value.reason
    assert verify_export(out, policy=policy).replayed == 3
    assert main(["audit", "verify", str(out)]) == EXIT_INPUT


def test_a_tables_digest_rewritten_with_every_hash_recomputed_is_caught_by_the_replay(
    tmp_path: Path,
) -> None:
    """Each entry carries the digest of the tables it left (stategraph.tables): the replay
    rebuilds the tables from the log alone, so a digest made to match edited tables is named
    (issue 22, item 2)."""
    out, _ = exported(declared, tmp_path)
    entries = lines(out)
    config = json.loads(str(entries[2]["config"]))
    config["tables"] = "0" * 64
    entries[2]["config"] = json.dumps(config, sort_keys=True, separators=(",", ":"))
    recompute(entries, 3)
    write(out, entries)
    assert verify_export(out, replay=False).count == len(entries)  # the chain alone holds
    with pytest.raises(ReplayDivergenceError) as caught:
        verify_export(out)
    assert (caught.value.seq, caught.value.where) == (3, "config.tables")
