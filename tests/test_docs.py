"""The documentation's code is code that runs: every included file is an example the examples
test runs, every inline Python block of a how-to or the tutorial runs, and every
``stategraph ...`` command line in the docs and the README parses with the real parser."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from stategraph.cli.main import build_parser
from tests.test_examples import EXPECTED

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
GUIDES = [
    DOCS / "tutorial.md",
    *sorted((DOCS / "how-to").glob("*.md")),
    DOCS / "reference" / "python.md",
]
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def blocks(page: Path, language: str) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [body for lang, body in BLOCK.findall(text) if lang == language]


def test_every_included_file_exists_and_every_included_example_runs() -> None:
    included = [m for page in PAGES for m in SNIPPET.findall(page.read_text(encoding="utf-8"))]
    assert included, "no page includes a file"
    for name in included:
        assert (ROOT / name).is_file(), name
        if name.startswith("examples/") and name.endswith(".py"):
            assert Path(name).name in EXPECTED, f"{name} is included but no test runs it"


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.name)
def test_inline_python_blocks_run(page: Path, tmp_path: Path) -> None:
    code = [b for b in blocks(page, "python") if not SNIPPET.search(b)]
    if not code:
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    # A judge configured from the environment is built, never asked: no server is contacted.
    env |= {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "STATEGRAPH_JUDGE_MODEL": "any"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", "\n".join(code)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def command_lines() -> list[tuple[str, str]]:
    found = []
    for page in [*PAGES, ROOT / "README.md"]:
        for body in blocks(page, "sh"):
            for line in body.replace("\\\n", " ").splitlines():
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
