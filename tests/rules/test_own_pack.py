"""A rule pack of the user's own, given by path, links memories like a shipped one."""

from __future__ import annotations

from pathlib import Path

import pytest

from stategraph import Memory
from stategraph.grounding.errors import RulePackError

PACK = """\
%*! subscribed(P,S): P subscribes to service S. *%
%*! cancelled(P,S): P cancelled service S. *%
%*! renew(P,S): renew P's subscription to S. *%
renew(P,S) :- subscribed(P,S), not cancelled(P,S).
"""


def test_a_pack_file_links_and_revises(tmp_path: Path) -> None:
    pack = tmp_path / "subscriptions.lp"
    pack.write_text(PACK, encoding="utf-8")
    mem = Memory(rules=[str(pack)], candidates=None)
    mem.add({"id": "f1", "kind": "fact", "atoms": ["subscribed(u,tv)"]})
    mem.add({"id": "a1", "kind": "action", "status": "pending", "atoms": ["renew(u,tv)"]})
    (j,) = mem.justifications("a1")
    assert j.premises == ("rule:renew(u,tv)",)
    (firing,) = mem.justifications("rule:renew(u,tv)")
    assert (firing.premises, firing.rules) == (("atom:subscribed(u,tv)",), ("subscriptions:4",))
    report = mem.add({"id": "f2", "kind": "fact", "atoms": ["cancelled(u,tv)"]})
    assert report.invalidated == ["a1"] and report.consequences == {"a1": "cancel"}
    assert mem.retract("f2").restored == ["a1"]


def test_a_missing_or_malformed_pack_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match="cannot read the file"):
        Memory(rules=[str(tmp_path / "missing.lp")])
    bad = tmp_path / "bad.lp"
    bad.write_text("renew(P,S) :- subscribed(P,S\n", encoding="utf-8")
    with pytest.raises(RulePackError, match="bad"):
        Memory(rules=[str(bad)])
