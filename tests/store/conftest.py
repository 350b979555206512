"""Fixtures of the store tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .logged import logged_store


@pytest.fixture(scope="session")
def logged_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("logged") / "m.db"
    logged_store(path)
    return path


@pytest.fixture
def logged_path(logged_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of :func:`~.logged.logged_store` (closed cleanly, so the file is whole)."""
    path = tmp_path / "m.db"
    shutil.copy(logged_template, path)
    return path
