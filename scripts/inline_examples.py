"""Copy the example files into the pages that show them.

A page shows a file of the repository between two markers, which neither the repository's page
nor the site displays::

    <!-- inline: examples/tutorial.py -->
    ```python
    (the file, copied here by this script)
    ```
    <!-- /inline -->

A Python file comes in a ``python`` fence, a Markdown file as it is. So every page reads whole
where it is read, on the repository's site as well as in the documentation site, and the
example files stay the one source: ``tests/test_examples.py`` runs them and checks what they
print, and ``tests/test_docs.py`` fails when a page no longer shows a file as it is. After
editing an example::

    python scripts/inline_examples.py            # rewrite the pages that show it
    python scripts/inline_examples.py --check    # exit 1, naming the pages out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MARKED = re.compile(r"^<!-- inline: (\S+) -->\n.*?^<!-- /inline -->$", re.M | re.S)

FENCES = {".py": "python", ".lp": "prolog", ".yaml": "yaml", ".json": "json"}


def pages() -> list[Path]:
    """The README and every page of the documentation."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def shown(name: str) -> str:
    """What a page holds between the markers for one file."""
    path = ROOT / name
    text = path.read_text(encoding="utf-8").rstrip("\n") + "\n"
    if path.suffix != ".md":
        fence = "````" if "```" in text else "```"
        text = f"{fence}{FENCES.get(path.suffix, 'text')}\n{text}{fence}\n"
    return f"<!-- inline: {name} -->\n{text}<!-- /inline -->"


def render(page: str) -> str:
    """A page with each marked file copied in as it is now."""
    return MARKED.sub(lambda m: shown(m.group(1)), page)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args()
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = render(text)
        if new != text:
            stale.append(page.relative_to(ROOT))
            if not args.check:
                page.write_text(new, encoding="utf-8")
    for page in stale:
        print(f"{page}: {'out of date' if args.check else 'rewritten'}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
