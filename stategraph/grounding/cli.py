"""The ``stategraph ground`` command: show the atoms a text grounds to, and why.

The main CLI calls :func:`register` with its subparsers; the command itself is a thin layer
over :func:`stategraph.grounding.ground`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from stategraph.errors import InvalidInputError
from stategraph.grounding.grounder import DEFAULT_GROUNDER, ground, registered_grounders
from stategraph.grounding.result import Grounding
from stategraph.grounding.warm import IDLE, SOCKET_ENV, socket_path, start, status, stop

__all__ = ["format_grounding", "register", "run_ground", "run_grounder"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``ground`` command to a CLI's subparsers.

    Args:
        subparsers: what ``ArgumentParser.add_subparsers()`` returned.

    Returns:
        The new subparser (its default ``func`` runs the command).
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "ground",
        help="show the atoms a memory's text grounds to",
        description=(
            "Ground TEXT into clingo atoms with the rule-based pipeline and print each atom "
            "with the text spans that produced it. Prints the reason when no atom is found. "
            "Start-up: building the pipeline loads spaCy (about a second), and for a text "
            "with Chinese characters jieba's dictionary too (about half a second more); a "
            "process that grounds many texts pays it once (the Python API, import --memories), "
            "and a warm grounder ('stategraph grounder start') pays it for every command."
        ),
    )
    parser.add_argument("text", help="the memory text (English or Chinese)")
    parser.add_argument(
        "--lang", choices=["en", "zh"], default=None, help="language (default: detect)"
    )
    parser.add_argument(
        "--year",
        type=int,
        default=None,
        dest="reference_year",
        help="reference year for dates that name no year (12月, 'in December')",
    )
    parser.add_argument(
        "--grounder",
        default=DEFAULT_GROUNDER,
        choices=registered_grounders(),
        help=f"grounder to use (default: {DEFAULT_GROUNDER})",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run_ground)

    warm = subparsers.add_parser(
        "grounder",
        help="start, stop or look at the warm grounder (commands that ground text start fast)",
        description=(
            "A warm grounder is a background process of this user's that keeps the rule "
            "grounder's pipelines built and answers on a private Unix socket "
            f"(${SOCKET_ENV}, default {socket_path()}). While it runs, every stategraph "
            "command (and Python process of this user's) sends it the texts it grounds "
            "(ground, add --text, supersede, revise on a store with a grounder) and starts in "
            "a fraction of a second instead of seconds; "
            "the readings are the same, and a command grounds itself whenever the server "
            "cannot answer (none running, another version or source tree)."
        ),
    )
    warm.add_argument("action", choices=["start", "stop", "status"])
    warm.add_argument(
        "--idle",
        type=float,
        default=IDLE,
        metavar="SECONDS",
        help=f"with start: exit after this long without a request (default {IDLE:.0f})",
    )
    warm.add_argument("--json", action="store_true", help="print the server's status as JSON")
    warm.set_defaults(func=run_grounder)
    return parser


def format_grounding(result: Grounding) -> str:
    """The human-readable report: one atom a line, its spans indented below it."""
    if not result.atoms:
        return f"{result.reason}\n"
    lines: list[str] = []
    for atom in result.atoms:
        lines.append(atom.text)
        lines.extend(
            f"  {span.role:<12} {span.start:>3}-{span.end:<3} {span.text}" for span in atom.spans
        )
    return "\n".join(lines) + "\n"


def run_ground(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the ``ground`` command with parsed arguments; returns the exit status (0)."""
    stream = sys.stdout if out is None else out
    result = ground(
        args.text, lang=args.lang, reference_year=args.reference_year, grounder=args.grounder
    )
    if args.json:
        stream.write(json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n")
    else:
        stream.write(format_grounding(result))
    return 0


def run_grounder(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the ``grounder`` command; returns the exit status (0, or 1 when ``status`` or
    ``stop`` finds no server running).

    Raises:
        WarmGrounderError: ``start`` could not start one.
    """
    stream = sys.stdout if out is None else out
    path = socket_path()
    if args.action == "stop":
        stopped = stop(path)
        stream.write(f"stopped the warm grounder at {path}\n" if stopped else "none running\n")
        return 0 if stopped else 1
    if args.action == "start":
        if args.idle <= 0:
            raise InvalidInputError("grounder", [("--idle", "must be more than 0 seconds")])
        info: dict[str, Any] | None = start(args.idle, path)
    else:
        info = status(path)
    if args.json:
        stream.write(json.dumps(info) + "\n")
    elif info is None:
        stream.write(f"none running at {path}\n")
    else:
        stream.write(
            f"warm grounder at {path}: pid {info['pid']}, stategraph from {info['root']}, "
            f"{info['grounded']} texts grounded, exits after "
            f"{info['idle']:.0f} s idle\n"
        )
    return 0 if info is not None else 1
