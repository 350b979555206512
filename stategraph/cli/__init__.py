"""The ``stategraph`` command line: argument parsing, commands, file loaders' use, the demo.

Owns the entry point (:mod:`.main`, ``stategraph = "stategraph.cli:main"``), the review and audit
commands (:mod:`.review`) and the seed demo (:mod:`.demo`).

May import: every layer below it. Heavy imports (pictures, text import, the judge's SDK) stay
inside the commands that need them, so ``stategraph --help`` starts fast.
"""

from stategraph.cli.main import EXIT_CODES, build_parser, main, render_report

__all__ = ["EXIT_CODES", "build_parser", "main", "render_report"]
