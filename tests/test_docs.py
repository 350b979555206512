"""The documentation runs as printed, read from the files the site and the repository show.

- Every page shows the example files it names as they are (``scripts/inline_examples.py``
  copies them in; the examples test runs each file and checks what it prints).
- Every ``python`` and ``sh`` block of every page and of the README runs, in the order of the
  page, each on its own (a block that needs a name made by another block fails), in one
  working directory per page (a file a block makes is there for the blocks after it). A block
  that cannot run here says so on the line before it, ``<!-- not run: WHY -->`` (it starts a
  server, needs PostgreSQL or a model, installs packages): those are the only ones skipped.
- Every ``stategraph ...`` command line, run or not, parses with the real parser.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from stategraph.cli.main import build_parser
from stategraph.grounding import warm
from tests.test_examples import EXPECTED

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^(`{3,})(\w*)\n(.*?)^\1$", re.M | re.S)
NOT_RUN = re.compile(r"<!-- not run: ([^>]+) -->")
SHOWS = re.compile(r"<!-- inline: (\S+) -->")
RUN = ("python", "sh")


@dataclass(frozen=True)
class Block:
    language: str
    body: str
    line: int
    not_run: str | None
    shows: str | None
    """The file the block shows (``<!-- inline: FILE -->``): it runs as that file, which
    knows where it is (``__file__``)."""


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, in order, each with the reason it is not run, if any."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        before = text[text.rfind("\n", 0, max(m.start() - 1, 0)) + 1 : m.start()].strip()
        skip = NOT_RUN.fullmatch(before)
        shows = SHOWS.fullmatch(before)
        out.append(
            Block(
                m.group(2),
                m.group(3),
                text.count("\n", 0, m.start()) + 1,
                skip.group(1) if skip is not None else None,
                shows.group(1) if shows is not None else None,
            )
        )
    return out


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "inline_examples", ROOT / "scripts" / "inline_examples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pages_show_the_example_files_as_they_are() -> None:
    script = _script()
    shown = [m.group(1) for page in PAGES for m in script.MARKED.finditer(page.read_text())]
    assert shown, "no page shows a file"
    for name in shown:
        assert (ROOT / name).is_file(), name
        if name.startswith("examples/") and name.endswith(".py"):
            assert Path(name).name in EXPECTED, f"{name} is shown but no test runs it"
    stale = [
        str(page.relative_to(ROOT))
        for page in PAGES
        if script.render(page.read_text(encoding="utf-8")) != page.read_text(encoding="utf-8")
    ]
    assert not stale, f"run python scripts/inline_examples.py: {stale} show an old copy"


def test_the_pages_include_nothing_the_repository_page_shows_as_raw_text() -> None:
    """``--8<--`` (the site's snippet syntax) showed on the repository's page as it is."""
    for page in PAGES:
        assert '--8<-- "' not in page.read_text(encoding="utf-8"), page


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    # A judge configured from the environment is built, never asked: no server is contacted.
    env |= {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "STATEGRAPH_JUDGE_MODEL": "any"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


SIGNATURES = ROOT / "docs" / "api.md"
"""Rendered from the docstrings by ``scripts/api_docs.py``: its blocks are signatures."""
RUNNABLE = [
    p
    for p in PAGES
    if p != SIGNATURES and any(b.language in RUN and not b.not_run for b in blocks(p))
]


@pytest.mark.parametrize("page", RUNNABLE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_the_page_runs_as_printed(page: Path, tmp_path: Path) -> None:
    env = _environment()
    # a warm grounder a page starts is its own, and stopped after it (a short path: a Unix
    # socket's is at most 107 bytes)
    sockets = Path(tempfile.mkdtemp(prefix="sg-"))
    env[warm.SOCKET_ENV] = str(sockets / "grounder.sock")
    try:
        _run_blocks(page, tmp_path, env)
    finally:
        warm.stop(sockets / "grounder.sock")
        shutil.rmtree(sockets, ignore_errors=True)


def _run_blocks(page: Path, tmp_path: Path, env: dict[str, str]) -> None:
    for block in blocks(page):
        if block.language not in RUN or block.not_run:
            continue
        if block.shows is not None:  # the page shows the file as it is (the test above)
            argv = [sys.executable, str(ROOT / block.shows)]
        elif block.language == "python":
            argv = [sys.executable, "-c", block.body]
        else:
            argv = ["bash", "-e", "-o", "pipefail", "-c", block.body]
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        where = f"{page.relative_to(ROOT)}:{block.line}"
        assert done.returncode == 0, f"{where} failed:\n{done.stdout}\n{done.stderr}"


def test_a_block_that_is_not_run_says_why() -> None:
    for page in PAGES:
        for block in blocks(page):
            if block.not_run is not None:
                assert block.language in RUN, f"{page}:{block.line}: only code blocks are run"
                assert len(block.not_run.strip()) > 5, f"{page}:{block.line}: say why"


def command_lines() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for block in blocks(page):
            if block.language != "sh":
                continue
            for line in block.body.replace("\\\n", " ").splitlines():
                line = line.split("  #")[0].strip()
                if line.startswith("stategraph "):
                    found.append((page.name, line))
    return found


@pytest.mark.parametrize("where,line", command_lines())
def test_documented_command_lines_parse(where: str, line: str) -> None:
    args = shlex.split(line.split(">")[0])[1:]
    try:
        build_parser().parse_args(args)
    except SystemExit as exc:  # argparse's way of refusing a command line
        pytest.fail(f"{where}: {line!r} does not parse (exit {exc.code})")
