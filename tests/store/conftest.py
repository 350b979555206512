"""Fixtures of the store tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import Place, make_place, postgres_url

from .logged import logged_store


@pytest.fixture(scope="session")
def logged_templates(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, dict[str, Place]]]:
    """One :func:`~.logged.logged_store` per backend (per server: PostgreSQL and Citus), made
    when first asked for."""
    made: dict[str, Place] = {}
    yield tmp_path_factory.mktemp("logged"), made
    for p in made.values():
        p.drop()


@pytest.fixture
def logged_path(
    backend: str, logged_templates: tuple[Path, dict[str, Place]], tmp_path: Path
) -> Iterator[Place]:
    """A fresh copy of :func:`~.logged.logged_store` (closed cleanly, so the file is whole),
    on each backend in turn."""
    folder, made = logged_templates
    key = backend if backend == "sqlite" else postgres_url()  # PostgreSQL or Citus
    template = made.get(key)
    if template is None:
        template = made[key] = make_place(backend, folder, "logged")
        logged_store(template.url)
    place = make_place(backend, tmp_path)
    template.copy_to(place)
    try:
        yield place
    finally:
        place.drop()
