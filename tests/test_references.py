"""Every dotted ``stategraph.…`` name the docs and docstrings give still imports.

Modules moved into packages by layer (docs/architecture.md keeps the map of old to new names);
a docstring or page that still names the old place sends a reader, and the API docs' links,
nowhere. Versioned plugin names (``stategraph.rule_grounder.v1``) and the SQL names of the
PostgreSQL schema are names, not imports, and are left out.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
_DOTTED = re.compile(r"(?<![\w/.-])stategraph(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_NAMES = re.compile(r"\.v\d+$")
"""A versioned name of a pluggable part (grounder, judge, linker, store, proposer)."""
_NOT_IMPORTS = {
    "stategraph.stategraph_schema",  # the PostgreSQL schema's version table
    "stategraph.tenants",  # the PostgreSQL schema's tenants table
    "stategraph.reference_year",  # a metadata key
}


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            if hasattr(obj, part):
                obj = getattr(obj, part)
            else:
                return isinstance(obj, type) and _instance_attribute(obj, part)
        return True
    return False


def _instance_attribute(cls: type, name: str) -> bool:
    """A field of a dataclass or an attribute ``__init__`` sets: documented on the class,
    present only on its instances."""
    if name in getattr(cls, "__annotations__", {}):
        return True
    init = cls.__dict__.get("__init__")
    return init is not None and f"self.{name}" in inspect.getsource(init)


def _sources() -> list[Path]:
    pages = [p for p in (ROOT / "docs").rglob("*.md") if p.name != "architecture.md"]
    return [*(ROOT / "stategraph").rglob("*.py"), *pages, *(ROOT / "examples").glob("*.py")]


def test_every_dotted_name_in_docs_and_docstrings_imports() -> None:
    stale: dict[str, str] = {}
    for path in _sources():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in _DOTTED.finditer(line):
                name = match.group(0)
                if _NAMES.search(name) or name in _NOT_IMPORTS or name in stale:
                    continue
                if not _resolves(name):
                    stale[name] = f"{path.relative_to(ROOT)}:{n}"
    assert stale == {}, "names that no longer import (moved? see docs/architecture.md)"
