"""docs/api.md is what scripts/api_docs.py renders from the docstrings, now."""

from __future__ import annotations

import difflib
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("api_docs", ROOT / "scripts" / "api_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_api_reference_is_up_to_date() -> None:
    committed = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    rendered = _script().render()
    diff = "".join(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            rendered.splitlines(keepends=True),
            "docs/api.md (committed)",
            "docs/api.md (rendered now)",
        )
    )
    assert not diff, (
        "docs/api.md is out of date: run python scripts/api_docs.py and commit the result\n" + diff
    )


def test_the_reference_covers_every_public_name_and_nothing_of_this_machine() -> None:
    api = _script()
    text = api.render()
    assert text == api.render()  # deterministic
    assert not re.search(r"0x[0-9a-f]{6,}", text), "a memory address leaked into the reference"
    assert str(ROOT) not in text
    for module in api.MODULES:
        for name in importlib.import_module(module).__all__:
            assert f"### `{module}.{name}`" in text, f"{module}.{name} is not documented"
    assert "### `stategraph.testing.check_locality`" in text
    assert "**Args:**\n\n- `scenario`: the memory to build" in text


def test_check_mode_fails_on_a_stale_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = _script()
    stale = tmp_path / "api.md"
    stale.write_text("# API reference\n", encoding="utf-8")
    monkeypatch.setattr(api, "OUT", stale)
    assert api.main(["--check"]) == 1
    assert "run python scripts/api_docs.py" in capsys.readouterr().err
    assert api.main([]) == 0
    assert api.main(["--check"]) == 0
