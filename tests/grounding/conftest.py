"""Shared fixtures: the grounding pipelines load once per test session (jieba is slow)."""

from __future__ import annotations

import pytest

from stategraph.grounding.pipeline import get_pipeline


@pytest.fixture(scope="session", autouse=True)
def warm_pipelines() -> None:
    """Build both cached pipelines before the first test, so timings stay honest per test."""
    get_pipeline("en")
    get_pipeline("zh")
