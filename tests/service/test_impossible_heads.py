"""A head no log can have never verifies (issue 42, finding 7): ``GET
/v1/verify?expect_seq=-1&expect_hash=<any>`` and ``Memory.verify_log(expect_head=(-1, h))``
answered "verified" (no entry has the number -1 to differ from it). Now it is bad input (400,
``InvalidInputError``) on every surface, both backends, and flags nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from backends import Place
from fastapi.testclient import TestClient

from stategraph import Memory
from stategraph.audit import export, verify_export
from stategraph.cli.main import EXIT_INPUT, main
from stategraph.errors import InvalidInputError

from .conftest import Setup
from .test_http import error, seed

HASH = "a" * 64

IMPOSSIBLE: list[Any] = [
    (-1, HASH),
    (-(2**70), HASH),
    (2**63, HASH),
    (True, HASH),
    (1, "A" * 64),
    (1, "a" * 63),
    (1, None),
    ("1", HASH),
    (1,),
]


@pytest.mark.parametrize("head", IMPOSSIBLE, ids=repr)
def test_an_impossible_head_is_bad_input_and_flags_nothing(place: Place, head: Any) -> None:
    with place.memory() as mem:
        mem.fact("a", "x")
        for deep in (False, True):
            with pytest.raises(InvalidInputError, match="invalid head"):
                mem.verify_log(head, deep=deep)
        mem.fact("b", "writes go on")
        assert mem.verify_log(mem.head(), deep=True) == 2


@pytest.mark.parametrize("seq", ["-1", "-9223372036854775808", "9223372036854775808"])
def test_an_impossible_head_over_http_is_400(client: TestClient, setup: Setup, seq: str) -> None:
    h = setup.headers("alice")
    seed(client, h)
    r = client.get("/v1/verify", params={"expect_seq": seq, "expect_hash": HASH}, headers=h)
    assert r.status_code == 400 and error(r)["type"] == "InvalidInputError", r.text
    assert client.post("/v1/states", json={"id": "x"}, headers=h).status_code == 201


def test_an_impossible_head_for_an_export_or_the_cli_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    assert main(["demo", "--store", str(path)]) == 0
    with Memory(str(path)) as mem:
        export(mem.store, tmp_path / "log.jsonl")
    with pytest.raises(InvalidInputError, match="invalid head"):
        verify_export(tmp_path / "log.jsonl", expect_head=(-1, HASH))
    assert main(["history", str(path), "--verify", f"--expect-head=-1:{HASH}"]) == EXIT_INPUT
    assert main(["audit", "verify", str(tmp_path / "log.jsonl"), f"--expect-head=-1:{HASH}"]) == (
        EXIT_INPUT
    )
