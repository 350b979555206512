"""``stategraph serve`` and ``stategraph mcp --http`` before they serve: a port in use is a
one-line error, and on start they say where the tenants are and where to connect."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from stategraph.cli.main import main
from stategraph.service.auth import add_token


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http"]])
def test_a_port_in_use_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    tokens = tmp_path / "tokens.json"
    add_token(tokens, "alice")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        argv = [*command, "--store", f"sqlite:///{tmp_path}/data", "--tokens", str(tokens)]
        code = main([*argv, "--port", port])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("stategraph: error: --port:") and port in err and "in use" in err
    assert "Traceback" not in err and "listening on" not in err
