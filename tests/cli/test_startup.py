"""Start-up stays light: commands that need no grounding do not import spaCy, jieba or openai.

Importing spaCy (with jieba for Chinese) took about 0.5 s of every command, ``--help``
included, and the openai SDK another tenth: the engine imports them only where a memory is
grounded or a model judge is built. Checked through ``sys.modules`` in a fresh interpreter,
not by timing (``stategraph --help``, ``show`` and ``why`` measured 0.15-0.23 s after, 0.6-0.8 s
before).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


def test_commands_that_need_no_grounding_import_no_spacy_jieba_or_openai(
    tmp_path: Path,
) -> None:
    program = _PROGRAM.format(heavy=set(HEAVY))
    done = subprocess.run(
        [sys.executable, "-c", program, str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["codes"] == [0, 0]
    assert result["heavy"] == []
