"""Golden files: the seed scenario drawn as DOT and as Mermaid, byte for byte.

The files were checked by eye (and the Mermaid one rendered with Mermaid 11) when written.
When a deliberate change alters a picture, run with ``STATEGRAPH_REGEN_GOLDEN=1`` to rewrite
them, and review the diff before committing it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from stategraph.pictures import Picture, build_picture, to_dot, to_mermaid
from stategraph.store import SQLiteStore
from tests.pictures.scenes import seed

GOLDEN = Path(__file__).parent / "golden"
RENDERERS: dict[str, Callable[[Picture], str]] = {"dot": to_dot, "mmd": to_mermaid}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("suffix", sorted(RENDERERS))
def test_seed_scenario(tmp_path: Path, lang: str, suffix: str) -> None:
    path = seed(tmp_path / "demo.db", lang)
    store = SQLiteStore(path, create=False)
    try:
        text = RENDERERS[suffix](build_picture(store, name=str(path), revision=5))
    finally:
        store.close()
    golden = GOLDEN / f"demo-{lang}.{suffix}"
    if os.environ.get("STATEGRAPH_REGEN_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")
