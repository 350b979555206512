"""``audit verify`` fails when the export does not reach a head kept elsewhere, and when it
does not start at entry 1, unless told it is a part (``--partial``), which it then says
(issue 22, item 11).

Before, an empty file verified against ``--expect-head 5:...`` (exit 0), and a file whose
first entries were cut off verified too: its chain was taken to start wherever its first
line said.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stategraph.audit import verify_export
from stategraph.cli.main import EXIT_INTEGRITY, main
from stategraph.errors import LogIntegrityError
from stategraph.store.revlog import GENESIS

from .test_audit import declared, exported, lines, write


def test_an_empty_export_does_not_reach_a_head(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out, mem = exported(declared, tmp_path)
    seq, digest = mem.head()
    out.write_text("", encoding="utf-8")
    with pytest.raises(LogIntegrityError) as caught:
        verify_export(out, expect_head=(seq, digest))
    assert caught.value.seq == 1 and f"the head given is entry {seq}" in caught.value.reason
    assert main(["audit", "verify", str(out), "--expect-head", f"{seq}:{digest}"]) == (
        EXIT_INTEGRITY
    )
    assert "the log ends at entry 0" in capsys.readouterr().err
    # an empty log is a log: with no head, or the genesis as the head, it verifies
    assert verify_export(out).count == 0
    assert verify_export(out, expect_head=(0, GENESIS)).count == 0


def test_an_export_missing_its_first_entries_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out, _ = exported(declared, tmp_path)
    entries = lines(out)
    write(out, entries[2:])
    with pytest.raises(LogIntegrityError) as caught:
        verify_export(out)
    assert caught.value.seq == 1
    assert caught.value.reason == (
        "is missing: the export starts at entry 3 (entries 1 to 2 are not in it)"
    )
    for chain_only in ([], ["--chain-only"]):
        assert main(["audit", "verify", str(out), *chain_only]) == EXIT_INTEGRITY
        assert "--partial" in capsys.readouterr().err
    write(out, entries[1:])
    with pytest.raises(LogIntegrityError, match=r"starts at entry 2 \(entry 1 is not in it\)"):
        verify_export(out, replay=False)


def test_a_part_is_accepted_with_partial_and_said_to_be_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out, mem = exported(declared, tmp_path)
    entries = lines(out)
    write(out, entries[2:])
    result = verify_export(out, expect_head=mem.head(), partial=True)
    assert (result.first, result.count, result.replayed) == (3, len(entries) - 2, 0)
    seq, digest = mem.head()
    args = ["audit", "verify", str(out), "--partial", "--expect-head", f"{seq}:{digest}"]
    assert main(args) == 0
    said = capsys.readouterr().out
    assert "partial export (--partial): entries 1 to 2 are not in it" in said
    assert "replayed 0 of" in said
    # a whole export verified with --partial is verified whole
    write(out, entries)
    assert verify_export(out, partial=True).replayed == len(entries)


def test_a_part_cannot_vouch_for_a_head_before_it(tmp_path: Path) -> None:
    out, _ = exported(declared, tmp_path)
    entries = lines(out)
    write(out, entries[3:])
    early = (1, str(entries[0]["hash"]))
    with pytest.raises(LogIntegrityError, match="export starts at entry 4"):
        verify_export(out, expect_head=early, partial=True)
    at_start = (3, str(entries[2]["hash"]))  # the entry its first line links to: checked
    assert verify_export(out, expect_head=at_start, partial=True).count == len(entries) - 3
    with pytest.raises(LogIntegrityError, match="hash differs"):
        verify_export(out, expect_head=(3, str(entries[1]["hash"])), partial=True)
