"""``Memory.atomic``: many revisions in one transaction, all written or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.errors import UnknownStateError


def test_all_revisions_of_the_block_are_written_and_logged(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db") as mem:
        with mem.atomic():
            mem.fact("f1", "The user flies to Tokyo")
            mem.belief("b1", "A Tokyo hotel is needed", because=["f1"])
            assert mem.truth("b1").value == "true"  # each revision sees the ones before it
        assert [e.seq for e in mem.history()] == [1, 2]
        assert mem.verify_log() == 2


def test_a_block_that_raises_writes_nothing(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db") as mem:
        mem.fact("f0", "before")
        with pytest.raises(UnknownStateError), mem.atomic():
            mem.fact("f1", "The user flies to Tokyo")
            mem.belief("b1", "A Tokyo hotel is needed", because=["nope"])
        assert {s.id for s in mem.states()} == {"f0"}
        assert len(mem.history()) == 1
        mem.fact("f1", "The user flies to Tokyo")  # the store is usable afterwards
        assert mem.verify_log() == 2


def test_a_failing_revision_inside_a_block_is_undone_alone(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db") as mem:
        with mem.atomic():
            mem.fact("f1", "The user flies to Tokyo")
            with pytest.raises(UnknownStateError):
                mem.belief("b1", "A Tokyo hotel is needed", because=["nope"])
            mem.belief("b2", "A Tokyo hotel is needed", because=["f1"])
        assert {s.id for s in mem.states()} == {"f1", "b2"}
        assert mem.verify_log() == 2
