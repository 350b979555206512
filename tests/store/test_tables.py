"""The tables checked against the log (issue 22, item 2): an edit of the materialised tables
with plain SQL, which leaves the hash chain intact, fails ``verify(deep=True)`` (``history
--verify --deep``), with the head kept elsewhere too, and makes the store refuse writes; a
store with states and no log fails even the plain check; ``why`` and ``why_not`` refuse a
state whose stored value contradicts its justifications instead of crashing or contradicting
themselves. On both backends (``place``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from backends import Place
from hypothesis import given
from hypothesis import strategies as st

from stategraph import Memory
from stategraph.cli.main import main
from stategraph.errors import (
    HeadMismatchError,
    InconsistentStoreError,
    LogIntegrityError,
    TamperedStoreError,
)
from stategraph.store.tables import TABLES, Sums

from .logged import LAST
from .test_compact_log import v3_store

TEXT = "Cancel home broadband before the move"


def seed(place: Place) -> tuple[int, str]:
    """The issue's store: m1 superseded by m1b, so m2 and the pending m3 fell, the executed
    m4 waits for review. Returns the head."""
    with place.memory() as mem:
        mem.fact("m1", "The user moves to Shenzhen in December")
        mem.belief("m2", "Commute time computed for Shenzhen", because=[["m1"]])
        mem.add({"id": "m3", "kind": "action", "text": TEXT, "status": "pending"}, [["m1"]])
        mem.add({"id": "m4", "kind": "action", "text": "Movers", "status": "executed"}, [["m1"]])
        mem.supersede("m1", {"id": "m1b", "kind": "fact", "text": "The user stays in Shanghai"})
        assert mem.holding() == {"m1b"}
        assert [p.id for p in mem.pending_review()] == ["m4"]
        assert mem.verify_log(deep=True) == 5
        return mem.head()


TAMPERINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "truth flipped": ("UPDATE states SET truth = 'true' WHERE id = ?", ("m3",)),
    "text changed": (
        "UPDATE states SET body = replace(body, 'broadband', 'TV') WHERE id = ?",
        ("m3",),
    ),
    "superseded fact reactivated": (
        "UPDATE states SET active = 1, superseded_by = NULL, truth = 'true' WHERE id = ?",
        ("m1",),
    ),
    "state deleted": ("DELETE FROM states WHERE id = ?", ("m2",)),
    "justifications deleted": ("DELETE FROM justifications WHERE 1 = 1", ()),
    "edges deleted": ("DELETE FROM edges WHERE 1 = 1", ()),
    "review queue deleted": ("DELETE FROM review_queue WHERE 1 = 1", ()),
}


@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
def test_an_edit_of_the_tables_fails_the_deep_check(place: Place, tampering: str) -> None:
    """Before: every one of these verified, with the head kept elsewhere too."""
    head = seed(place)
    statement, args = TAMPERINGS[tampering]
    place.edit(statement, *args)
    with place.memory() as mem:
        assert mem.verify_log(head) == 5  # the chain alone cannot see it
        with pytest.raises(LogIntegrityError) as err:
            mem.verify_log(head, deep=True)
        assert not isinstance(err.value, HeadMismatchError)
        assert err.value.seq == 5 and "does not match the stored tables" in err.value.reason
        with pytest.raises(TamperedStoreError):  # a real inconsistency: writes are refused
            mem.fact("x")


def test_the_deep_check_names_the_table_edited(place: Place) -> None:
    seed(place)
    place.edit("DELETE FROM edges WHERE 1 = 1")
    with place.memory() as mem, pytest.raises(LogIntegrityError) as err:
        mem.verify_log(deep=True)
    assert "the edges table differ" in err.value.reason


def test_an_edit_stays_visible_after_later_revisions(place: Place) -> None:
    """The next revision reads the edited rows as they are: its digest carries the edit."""
    seed(place)
    place.edit("UPDATE states SET truth = 'true' WHERE id = ?", "m3")
    with place.memory() as mem:
        mem.fact("later")
        mem.retract("m1b")  # touches m2, m3, m4 again
        with pytest.raises(LogIntegrityError, match="does not match the stored tables"):
            mem.verify_log(deep=True)


def test_deleting_the_tamper_flag_does_not_clear_an_edit(place: Place) -> None:
    """Before: with the flag row deleted nothing was left to say the tables were edited."""
    seed(place)
    place.edit("UPDATE states SET truth = 'true' WHERE id = ?", "m3")
    with place.memory() as mem, pytest.raises(LogIntegrityError):
        mem.verify_log(deep=True)
    place.clear_tamper_flags()
    with place.memory() as mem:
        with pytest.raises(LogIntegrityError, match="does not match the stored tables"):
            mem.verify_log(deep=True)
        with pytest.raises(TamperedStoreError):  # flagged again
            mem.fact("x")


def test_a_store_with_states_and_no_log_fails(place: Place) -> None:
    """Before: "0 entries, hash chain intact"."""
    seed(place)
    place.edit("DELETE FROM revisions WHERE 1 = 1")
    with place.memory() as mem:
        for check in (mem.verify_log, lambda: mem.verify_log(deep=True)):
            with pytest.raises(LogIntegrityError) as err:
                check()
            assert err.value.seq == 1
            assert err.value.reason == "is missing: the store holds states but its log is empty"
        # a head given too is checked after the store's own break, which comes first
        with pytest.raises(LogIntegrityError) as err:
            mem.verify_log((3, "f" * 64))
        assert err.value.breaks[0] == (1, "is missing: the store holds states but its log is empty")
        assert len(err.value.breaks) == 2


def test_an_untouched_store_passes_after_every_kind_of_write(place: Place) -> None:
    """Revisions, a bulk load, a review, a retraction: the digest follows every write."""
    seed(place)
    with place.memory() as mem:
        mem.bulk_load(
            [{"id": "h", "kind": "fact"}, *({"id": f"b{i}", "kind": "belief"} for i in range(5))],
            [{"head": f"b{i}", "premises": ["h"]} for i in range(5)],
        )
        mem.confirm("m4", by="ana", note="they came")
        mem.retract("h")
        with mem.atomic():
            mem.fact("a1")
            mem.belief("a2", because=[["a1"]])
        assert mem.verify_log(deep=True) == 10


CHANGES: list[dict[str, Any]] = [
    {"assert": [{"id": "f1", "kind": "fact"}, {"id": "f2", "kind": "fact"}]},
    {  # a derived state asserted with its justification, one with an unless
        "assert": [{"id": "d1", "kind": "belief"}, {"id": "d2", "kind": "belief"}],
        "add_justifications": [
            {"head": "d1", "premises": ["f1"]},
            {"head": "d2", "premises": ["f1"], "unless": ["u1"]},
        ],
    },
    {"add_justifications": [{"head": "d1", "premises": ["f2"]}]},
    {"remove_justifications": [{"head": "d1", "premises": ["f1"]}]},
    {"assert": [{"id": "u1", "kind": "fact"}]},  # blocks d2: its edges' follow flags move
    {"remove_justifications": [{"head": "d2", "premises": ["f1"], "unless": ["u1"]}]},
    {"retract": ["f2"]},
    {"supersede": [{"id": "f1", "with": {"id": "f1b", "kind": "fact"}}]},
]


def test_the_digest_follows_each_kind_of_change(place: Place) -> None:
    """A commit moves the rows it touched in memory rather than reading them back: each kind
    of change, checked against every row right after it."""
    with place.memory() as mem:
        for n, change in enumerate(CHANGES, 1):
            mem.revise(change)
            assert mem.verify_log(deep=True) == n, change


def test_the_kept_sums_edited_refuse_writes_until_a_deep_check_rebuilds_them(
    place: Place,
) -> None:
    seed(place)
    place.edit("DELETE FROM meta WHERE key = ?", "tables:sums")
    with place.memory() as mem:
        with pytest.raises(LogIntegrityError, match="tables:sums"):
            mem.fact("x")
        assert mem.verify_log(deep=True) == 5  # the tables match the log: rebuilt
        mem.fact("x")
        assert mem.verify_log(deep=True) == 6


def test_the_kept_sums_edited_under_an_open_writer_still_refuse_its_next_write(
    place: Place,
) -> None:
    # A writer keeps the sums of its last commit in memory: an edit by another connection in
    # between must still be seen, not hidden by what it kept.
    seed(place)
    with place.memory() as mem:
        mem.fact("x")
        place.edit("DELETE FROM meta WHERE key = ?", "tables:sums")
        with pytest.raises(LogIntegrityError, match="tables:sums"):
            mem.fact("y")


def test_acknowledging_accepts_the_tables_as_they_are(place: Place) -> None:
    seed(place)
    place.edit("DELETE FROM review_queue WHERE 1 = 1")
    with place.memory() as mem:
        with pytest.raises(LogIntegrityError):
            mem.verify_log(deep=True)
        assert mem.store.acknowledge_tamper()
        mem.fact("x")
        assert mem.history()[-1].config["tables_rebased"] is True  # the log says so
        assert mem.verify_log(deep=True) == 6


WHY: dict[str, Callable[[Memory], object]] = {
    "why": lambda mem: mem.why("m3"),
    "why_not": lambda mem: mem.why_not("m3"),
}


@pytest.mark.parametrize("explain", sorted(WHY))
def test_explaining_a_flipped_state_fails_cleanly(place: Place, explain: str) -> None:
    """Before: why crashed with KeyError, why_not said m3 holds and that its premise does
    not."""
    seed(place)
    place.edit("UPDATE states SET truth = 'true' WHERE id = ?", "m3")
    with place.memory() as mem, pytest.raises(InconsistentStoreError) as err:
        WHY[explain](mem)
    assert err.value.state_id == "m3" and "--verify --deep" in str(err.value)
    assert err.value.problem == (
        "is stored as holding, but no justification of it holds on the stored values of its "
        "premises"
    )


def test_explaining_a_reactivated_fact_fails_cleanly(place: Place) -> None:
    seed(place)
    place.edit("UPDATE states SET truth = 'true' WHERE id = ?", "m1")  # still superseded
    with place.memory() as mem, pytest.raises(InconsistentStoreError) as err:
        mem.why_not("m1")
    assert err.value.state_id == "m1"
    assert err.value.problem == "is retracted or superseded, but stored as true"


def test_explaining_an_active_fact_stored_as_false_fails_cleanly(place: Place) -> None:
    seed(place)
    place.edit("UPDATE states SET truth = 'false' WHERE id = ?", "m1b")
    with place.memory() as mem, pytest.raises(InconsistentStoreError) as err:
        mem.why_not("m1b")
    assert err.value.state_id == "m1b"
    assert err.value.problem == "is an active fact stored as false"
    assert str(err.value).startswith("state 'm1b' is an active fact stored as false: ")


def test_a_head_the_log_does_not_reach_flags_nothing(place: Place) -> None:
    """Issue 22, item 4. Before: a made-up head was recorded as tampering, and every write
    refused until --acknowledge-tamper."""
    head = seed(place)
    with place.memory() as mem:
        for made_up in ((1, "f" * 64), (head[0] + 3, head[1]), (head[0], "0" * 64)):
            with pytest.raises(HeadMismatchError) as err:
                mem.verify_log(made_up)
            assert "does not match" in str(err.value)
            assert err.value.path == mem.store.path
        mem.fact("x")  # writes go on
        assert mem.verify_log(head, deep=True) == 6


def test_a_deep_check_reads_the_log_and_the_tables_as_of_one_commit(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer commits after the check read the log's head and before it reads the
    tables: read outside one snapshot, the tables would be a revision ahead of the head the
    check holds them to, and an honest store would be flagged as tampered with."""
    seed(place)
    with place.memory() as mem, place.memory() as writer:
        sums = type(mem.store).table_sums

        def meanwhile(store: Any) -> Any:
            writer.fact("meanwhile")
            return sums(store)

        monkeypatch.setattr(type(mem.store), "table_sums", meanwhile)
        assert mem.verify_log(deep=True) == 5
        monkeypatch.undo()
        assert mem.verify_log(deep=True) == 6


def test_the_cli_deep_check_exits_4_and_a_made_up_head_locks_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    place = Place("sqlite", str(tmp_path / "m.db"))
    seq, digest = seed(place)
    assert main(["history", place.url, "--verify", "--deep"]) == 0
    assert "tables match the log" in capsys.readouterr().out
    assert main(["history", place.url, "--verify", "--expect-head", f"{seq}:{'f' * 64}"]) == 4
    assert "does not match" in capsys.readouterr().err
    place.edit("UPDATE states SET truth = 'true' WHERE id = ?", "m3")
    assert main(["history", place.url, "--verify", "--expect-head", f"{seq}:{digest}"]) == 0
    assert main(["history", place.url, "--verify", "--deep"]) == 4
    assert "does not match the stored tables" in capsys.readouterr().err
    assert main(["why", place.url, "m3"]) == 4
    assert "'m3'" in capsys.readouterr().err
    assert main(["revise", place.url, "--retract", "m4"]) == 4  # refused: flagged


def test_a_store_with_every_kind_of_entry_passes_the_deep_check(logged_path: Place) -> None:
    """A bulk load, judge calls, a hub's compressed report: the digest followed them all."""
    with Memory(store=logged_path.open()) as mem:
        assert mem.verify_log(deep=True) == LAST
        assert mem.store.tables_digest() == mem.history()[-1].config["tables"]


def test_a_log_from_before_the_digest_is_checked_from_its_next_revision(tmp_path: Path) -> None:
    """A schema-3 store has no digest: a deep check cannot check its tables (and says so);
    its next revision takes them as they are as its base, and from then on they are checked."""
    path = tmp_path / "m.db"
    v3_store(path)
    with Memory.open(path) as mem:
        assert mem.verify_log(deep=True) == LAST and mem.store.tables_digest() is None
        mem.bulk_load([{"id": "more", "kind": "fact"}], [])  # a bulk load starts it, or
        assert mem.store.tables_digest() is not None
        assert mem.verify_log(deep=True) == LAST + 1
    v3_store(path := tmp_path / "again.db")
    place = Place("sqlite", str(path))
    with Memory.open(path) as mem:
        mem.fact("next")  # a revision
        assert mem.store.tables_digest() is not None
        assert mem.verify_log(deep=True) == LAST + 1
    place.edit("UPDATE states SET truth = 'false' WHERE id = ?", "next")
    with Memory.open(path) as mem, pytest.raises(LogIntegrityError, match="stored tables"):
        mem.verify_log(deep=True)


@given(
    st.lists(st.integers(0, (1 << 2048) - 1), min_size=len(TABLES), max_size=len(TABLES)),
    st.integers(0, 10**12),
    st.booleans(),
)
def test_the_kept_sums_are_the_canonical_json_of_the_record(
    values: list[int], seq: int, rebased: bool
) -> None:
    """``Sums.to_json`` writes its text directly, not through ``json.dumps``: it must stay the
    very text ``json.dumps(sort_keys=True)`` gives (a record written by an older stategraph
    reads back, and one written now reads in an older one) and read back as what was kept."""
    sums = Sums(dict(zip(TABLES, values, strict=True)))
    record: dict[str, Any] = {"seq": seq, "sums": {t: format(v, "x") for t, v in sums.sums.items()}}
    if rebased:
        record["rebased"] = True
    assert sums.to_json(seq, rebased) == json.dumps(record, sort_keys=True, separators=(",", ":"))
    assert Sums.from_json(sums.to_json(seq, rebased)) == (seq, sums, rebased)
