"""Start-up stays light: commands that need no grounding do not import spaCy, jieba or openai.

Importing spaCy (with jieba for Chinese) took about 0.5 s of every command, ``--help``
included, and the openai SDK another tenth: the engine imports them only where a memory is
grounded or a model judge is built. Checked through ``sys.modules`` in a fresh interpreter,
not by timing (``stategraph --help``, ``show`` and ``why`` measured 0.15-0.23 s after, 0.6-0.8 s
before).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from stategraph import Memory
from stategraph.cli import build_parser

HEAVY = ("spacy", "jieba", "openai", "fastapi", "starlette", "uvicorn", "mcp")
"""Also the service's frameworks: only ``serve`` and ``mcp`` import them."""

_PROGRAM = """
import contextlib, io, json, sys
import stategraph
from stategraph import Memory
from stategraph.cli import build_parser, main

build_parser()  # what --help builds: every command, the plugins' included
with Memory(sys.argv[1]) as mem:
    mem.fact("m1", "The user lives in Shanghai")
    mem.belief("m2", "Commute times are computed for Shanghai", because=["m1"])
with contextlib.redirect_stdout(io.StringIO()):
    codes = [main(["show", sys.argv[1]]), main(["why", sys.argv[1], "m2"])]
heavy = sorted(m.split(".")[0] for m in sys.modules if m.split(".")[0] in {heavy!r})
print(json.dumps({{"codes": codes, "heavy": sorted(set(heavy))}}))
"""


def run_fresh(program: str, store: Path) -> Any:
    """Run ``program`` in a new interpreter (nothing imported yet) with ``store`` as its
    argument; returns the JSON it prints."""
    done = subprocess.run(
        [sys.executable, "-c", program, str(store)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_commands_that_need_no_grounding_import_no_spacy_jieba_or_openai(
    tmp_path: Path,
) -> None:
    result = run_fresh(_PROGRAM.format(heavy=set(HEAVY)), tmp_path / "m.db")
    assert result["codes"] == [0, 0]
    assert result["heavy"] == []


_CORE_COMMAND = """
import contextlib, io, json, sys
from stategraph.cli import main

with contextlib.redirect_stdout(io.StringIO()):
    codes = [main(["add", sys.argv[1], "--id", "m1"]), main(["why", sys.argv[1], "m1"])]
plugins = sorted(m for m in sys.modules if m.split(".")[1:2] in (["bench"], ["service"]))
print(json.dumps({"codes": codes, "plugins": plugins}))
"""


def test_a_core_command_leaves_the_feature_packages_commands_unloaded(tmp_path: Path) -> None:
    """``why`` needs only its own parser: the benchmark's and the service's commands (and all
    they import) are loaded for ``--help`` or for one of their commands, not for it."""
    result = run_fresh(_CORE_COMMAND, tmp_path / "m.db")
    assert result == {"codes": [0, 0], "plugins": []}


_HELP = """
import contextlib, io, json, sys
from stategraph.cli import main

with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main(["--help"])
    except SystemExit as exc:
        code = exc.code
loaded = sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "clingo", "yaml"})
own = sorted(m for m in sys.modules if m.startswith("stategraph."))
print(json.dumps({"code": code, "loaded": loaded, "own": own, "text": out.getvalue()}))
"""


def test_help_lists_every_command_without_importing_models_clingo_or_yaml(tmp_path: Path) -> None:
    """``stategraph --help`` is a listing: it loads no pydantic model, no clingo, no YAML
    parser and none of the feature packages, yet names every command."""
    result = run_fresh(_HELP, tmp_path / "unused.db")
    assert result["code"] == 0
    assert result["loaded"] == []
    assert set(result["own"]) <= {
        "stategraph.cli",
        "stategraph.cli.demo",
        "stategraph.cli.main",
        "stategraph.errors",
        "stategraph.escaping",
        "stategraph.urls",
    }
    for command in build_parser()._subparsers._group_actions[0].choices:  # type: ignore[union-attr]
        assert f"\n    {command}" in result["text"], command


def test_the_listing_shows_the_help_line_each_feature_module_registers() -> None:
    """The lines ``--help`` shows without loading the feature packages are the ones their
    modules register (an edit to one and not the other fails here)."""
    full = {a.dest: a.help for a in _commands(build_parser())}
    listed = {a.dest: a.help for a in _commands(build_parser(listing=True))}
    assert listed == full


def _commands(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    sub = next(a for a in parser._actions if a.dest == "command")
    return list(sub._choices_actions)  # type: ignore[attr-defined]


def test_the_reversal_policies_the_command_line_offers_are_the_model_s() -> None:
    from stategraph.cli.main import REVERSALS
    from stategraph.values import ReversalPolicy

    assert tuple(p.value for p in ReversalPolicy) == REVERSALS


_GROUNDED = """
import contextlib, io, json, sys
from stategraph.cli import main

heavy = lambda: sorted({m.split(".")[0] for m in sys.modules} & {"spacy", "jieba"})
seen = {}
with contextlib.redirect_stdout(io.StringIO()):
    seen["recall an English query"] = (main(["recall", sys.argv[1], "Tokyo dog"]), heavy())
    seen["recall a Chinese query"] = (main(["recall", sys.argv[1], "我们家的狗"]), heavy())
    seen["ground an English text"] = (main(["ground", "The user moves to Shenzhen"]), heavy())
print(json.dumps(seen))
"""


def test_recall_and_ground_load_only_what_the_text_needs(tmp_path: Path) -> None:
    """On a store with a grounder, recalling an English query loaded spaCy and jieba (4-10 s
    on a busy machine): the built-in grounder's lexicons now say what the query names. A
    Chinese query loaded jieba's dictionary (about a second): its runs are now looked for as
    their short parts. Grounding an English text loads spaCy only; jieba comes with the first
    Chinese text (``scripts/startup.py`` measures the start-up side by side with an earlier
    checkout)."""
    path = tmp_path / "m.db"
    with Memory(path, grounder="stategraph.rule_grounder.v1") as mem:  # written here: it
        mem.fact("m1", "The user flies to Tokyo on May 10")  # loads what grounding needs
        mem.fact("m2", "豆豆是我们家的狗")
    assert run_fresh(_GROUNDED, path) == {
        "recall an English query": [0, []],
        "recall a Chinese query": [0, []],
        "ground an English text": [0, ["spacy"]],
    }
