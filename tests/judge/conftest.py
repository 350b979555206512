"""Fixtures of the judge tests: a scripted chat-completions server on loopback.

The ``llm`` marker is registered here until pyproject.toml carries it: tests marked with it need
a real model server (see tests/judge/test_llama_server.py) and skip without one.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .chat_server import ChatServer


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "llm: needs a real model server (STATEGRAPH_LLAMA_SERVER or a built llama-server)",
    )


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A real HTTP server on 127.0.0.1 speaking the chat-completions API; install a script."""
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()
