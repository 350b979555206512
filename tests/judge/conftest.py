"""Fixtures of the judge tests: a scripted chat-completions server on loopback.

Tests marked ``llm`` (declared in pyproject.toml) need a real model server (see
tests/judge/test_llama_server.py) and skip without one.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .chat_server import ChatServer


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A real HTTP server on 127.0.0.1 speaking the chat-completions API; install a script."""
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()
