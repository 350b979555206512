"""The package layout holds: no package imports one above it, and no two import each other.

The layers are written once, in :data:`LAYERS` (``docs/architecture.md`` shows the same table).
The test reads every module's imports from its source (top-level, inside functions, and under
``TYPE_CHECKING`` alike: a lazy import upward is still an import upward), so it needs nothing
imported and holds for optional extras too.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "stategraph"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "errors",
            "escaping",
            "values",
            "nodes",
            "model",
            "shapes",
            "resources",
            "urls",
            "loaders",
        ),
    ),
    ("engine", ("engine",)),
    ("grounding", ("grounding",)),
    ("text", ("text",)),
    ("judge", ("judge",)),
    ("store", ("store", "stores")),
    ("review", ("review",)),
    (
        "memory",
        (
            "memory",
            "prepare",
            "reversal",
            "importing",
            "recall",
            "asof",
            "rerank",
            "embedder",
            "__init__",
        ),
    ),
    ("integrations", ("integrations",)),
    ("audit", ("audit",)),
    ("pictures", ("pictures",)),
    ("testing", ("testing",)),
    ("service", ("service",)),
    ("bench", ("bench",)),
    ("cli", ("cli", "__main__")),
]
"""Lowest first. A module may import from its own layer and the layers before it, never after.
A unit is a subpackage of ``stategraph`` or a module at its root (``__init__`` is the package's
own ``stategraph`` namespace: ``Memory``, ``Policy``, the model)."""

LAYER_OF = {unit: i for i, (_, units) in enumerate(LAYERS) for unit in units}


def _unit(path: Path) -> str:
    """The layout unit a source file belongs to (its subpackage, or itself at the root)."""
    parts = path.relative_to(ROOT).parts
    return parts[0] if len(parts) > 1 else Path(parts[0]).stem


def _imported_units(path: Path) -> set[str]:
    """The units a module imports from, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ["stategraph", *path.relative_to(ROOT).parts[:-1]]
    found: set[str] = set()

    def add(dotted: str) -> None:
        parts = dotted.split(".")
        if parts[0] != "stategraph":
            return
        if len(parts) == 1:
            found.add("__init__")
        else:
            found.add(parts[1])

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module == "stategraph":
                for alias in node.names:  # `from stategraph import errors` names a unit
                    add(f"stategraph.{alias.name}" if alias.name in LAYER_OF else "stategraph")
            else:
                add(module)
    return found


def _graph() -> dict[str, dict[str, list[str]]]:
    """unit -> imported unit -> the files whose imports make that edge."""
    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(ROOT.rglob("*.py")):
        unit = _unit(path)
        for other in _imported_units(path) - {unit}:
            edges[unit][other].append(str(path.relative_to(ROOT.parent)))
    return edges


def test_every_unit_has_a_layer() -> None:
    units = {_unit(path) for path in ROOT.rglob("*.py")}
    missing = sorted(units - set(LAYER_OF))
    assert not missing, f"give these a layer in LAYERS (and docs/architecture.md): {missing}"


def test_no_unit_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{unit} ({LAYERS[LAYER_OF[unit]][0]}) imports {other} "
        f"({LAYERS[LAYER_OF[other]][0]}) in {', '.join(files)}"
        for unit, targets in sorted(_graph().items())
        for other, files in sorted(targets.items())
        if other in LAYER_OF and unit in LAYER_OF and LAYER_OF[other] > LAYER_OF[unit]
    ]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_no_two_units_import_each_other_even_through_others() -> None:
    edges = {unit: set(targets) for unit, targets in _graph().items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(unit: str, path: list[str]) -> None:
        state[unit] = 1
        for other in sorted(edges.get(unit, ())):
            if state.get(other) == 1:
                cycles.append([*path[path.index(other) :], other])
            elif other not in state:
                visit(other, [*path, other])
        state[unit] = 2

    for unit in sorted(edges):
        if unit not in state:
            visit(unit, [unit])
    assert not cycles, "import circles between units:\n" + "\n".join(
        " -> ".join(cycle) for cycle in cycles
    )


def test_the_service_backends_import_one_way() -> None:
    """``service.tenants`` chooses ``service.pg_tenants``; the backend never imports back."""
    pg = ROOT / "service" / "pg_tenants.py"
    tree = ast.parse(pg.read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "stategraph.service.tenants" not in modules


def test_the_docs_show_the_same_layers() -> None:
    doc = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for name, units in LAYERS:
        row = next((line for line in doc.splitlines() if line.startswith(f"| {name} |")), None)
        assert row is not None, f"docs/architecture.md has no row for the {name} layer"
        for unit in units:
            assert f"`{unit}`" in row, f"docs/architecture.md's {name} row does not name {unit}"
