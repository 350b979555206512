"""``bench --mquake``: the workload built from the vendored MQuAKE-hard file, and the run on a
handful of its instances."""

from __future__ import annotations

import json

import pytest

from stategraph.bench.mquake import build_workload, load_instances, run_mquake
from stategraph.cli import main


def test_the_vendored_file_is_the_whole_subset() -> None:
    instances = load_instances()
    assert len(instances) == 429
    assert all(len(i["requested_rewrite"]) == 4 for i in instances)


def test_the_workload_of_the_first_instance() -> None:
    wl = build_workload(load_instances(1))
    texts = {f.id: f.text for f in wl.every_fact()}
    hey_jude = "Q607742-P175-Q1299"
    assert texts[hey_jude] == "Hey Jude was performed by The Beatles."
    edits = dict(wl.edits)
    assert edits[hey_jude].text == "Hey Jude was performed by Madonna."
    # an edit whose subject is not on the original chain: what it replaced is loaded too
    assert texts["Q1744-P1037-Q5622519"] == "The director of Madonna is Guy Oseary."
    assert edits["Q1744-P1037-Q5622519"].text == "The director of Madonna is Narendra Modi."
    # the Beatles' manager is not edited: it stays
    assert "Q1299-P1037-Q203690" in texts and "Q1299-P1037-Q203690" not in wl.stale
    assert len(wl.facts) == 7 and len(wl.edits) == 4  # 4 on the chain, 3 edited off it
    single = [q for q in wl.questions if q.kind == "single_hop"]
    multi = [q for q in wl.questions if q.kind == "multi_hop"]
    assert len(single) == 4 and len(multi) == 3
    assert single[0].text == "Who performed Hey Jude?"
    assert single[0].support == (edits[hey_jude].id,)
    assert set(multi[0].support) == {new.id for new in edits.values()}


def test_every_edit_replaces_a_loaded_fact_once() -> None:
    wl = build_workload(load_instances())
    loaded = {f.id for f in wl.facts}
    assert len(wl.edits) == len(wl.stale) == 770
    assert wl.stale <= loaded
    assert not {new.id for _, new in wl.edits} & loaded
    supported = {s for q in wl.questions for s in q.support}
    assert supported == {new.id for _, new in wl.edits}


def test_a_handful_of_instances() -> None:
    result = run_mquake(6)
    assert result.instances == 6 and result.edits > 0
    sg, bm25 = result.systems["stategraph"], result.systems["bm25"]
    assert sg.by_kind["all"]["stale"] == 0
    assert bm25.by_kind["all"]["stale"] > 0  # the reference ignores truth values
    assert result.systems["bm25-holding"].by_kind["all"]["stale"] == 0
    assert sg.by_kind["single_hop"]["recall_at_10"] == 1.0
    for s in result.systems.values():
        assert s.by_kind["all"]["questions"] == 6 * 7
        assert 0 < s.by_kind["multi_hop"]["recall_at_10"] < 1


def test_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--mquake", "--instances", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["instances"] == 3 and doc["k"] == 10
    assert set(doc["systems"]) == {"stategraph", "bm25", "bm25-holding"}
    assert doc["systems"]["stategraph"]["by_kind"]["all"]["stale"] == 0
    assert main(["bench", "--mquake", "--instances", "2"]) == 0
    assert "recall@10" in capsys.readouterr().out
    assert main(["bench", "--mquake", "--track", "text"]) == 2
