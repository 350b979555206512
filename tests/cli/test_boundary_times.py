"""``--as-of`` and ``history --since`` at the edges of what a datetime holds, with a time zone
(issue 42, finding 6): ``0001-01-01T00:00:00+14:00`` and ``9999-12-31T23:59:59-14:00`` raised
``OverflowError`` (exit 1, "internal error"); now exit 2, with the range."""

from __future__ import annotations

from pathlib import Path

import pytest

from stategraph.cli.main import EXIT_INPUT, main

EDGES = ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00")


@pytest.mark.parametrize("when", EDGES)
def test_an_edge_time_exits_2_with_the_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], when: str
) -> None:
    path = str(tmp_path / "m.db")
    assert main(["demo", "--store", path]) == 0
    capsys.readouterr()
    for argv in (
        ["show", path, "--as-of", when],
        ["why", path, "m3", "--as-of", when],
        ["recall", path, "broadband", "--as-of", when],
    ):
        assert main(argv) == EXIT_INPUT, argv
        err = capsys.readouterr().err
        assert "give a revision from 1 to 5, or a time from then on" in err, err
    assert main(["history", path, "--since", when]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "from 0001-01-01T00:00:00+00:00 to 9999-12-31T23:59:59.999999+00:00" in err
