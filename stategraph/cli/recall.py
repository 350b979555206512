"""``stategraph recall STORE "QUERY"``: the memories that answer a question, with whether each
can be relied on (:mod:`stategraph.recall`). Registered by :mod:`stategraph.cli` like the other
feature commands, with the same error handling and exit codes."""

from __future__ import annotations

import argparse
import json
from typing import Any

from stategraph.cli.main import EXIT_BUSY, _open, as_of_argument, store_arguments
from stategraph.errors import InvalidInputError
from stategraph.escaping import LINE_ESCAPES
from stategraph.recall import MAX_K

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``recall`` to a CLI's subparsers."""
    p = subparsers.add_parser(
        "recall",
        help="the memories that best match a question: what holds, what to ask first",
        description="The memories that best match QUERY, best first, each with whether it "
        "holds, why it was found, and for one in doubt the question to ask first. The query "
        "also looks for the other names, in English and Chinese, of the things it names "
        "('dog' looks for 狗 too). Start-up: with the built-in grounder, a query in either "
        "language takes a fraction of a second (a Chinese one of over 256 characters loads "
        "jieba's dictionary, about a second more); another grounder, or --embed-model, may "
        "take seconds.",
    )
    store_arguments(
        p, busy=f"how long the first recall of an older store waits to index it (exit {EXIT_BUSY})"
    )
    p.add_argument("query", help="the question or words to look for")
    p.add_argument(
        "-k", type=int, default=10, metavar="N", help=f"at most N memories (1..{MAX_K}, default 10)"
    )
    p.add_argument("--kind", action="append", metavar="KIND", help="only this kind (repeatable)")
    p.add_argument(
        "--no-doubtful",
        action="store_true",
        help="leave out memories in doubt (by default they come with the question to ask first)",
    )
    p.add_argument(
        "--invalidated",
        action="store_true",
        help="also memories that no longer hold, each with why not",
    )
    as_of_argument(p)
    p.add_argument(
        "--embed-model",
        metavar="MODEL",
        help="rerank the lexical best by this embedding model's similarity to the query, over "
        "an OpenAI-compatible /embeddings endpoint (--embed-url, else OPENAI_BASE_URL; the key "
        "only from OPENAI_API_KEY); vectors are cached in the store; if the endpoint fails, "
        "the lexical order stands and each reason says why",
    )
    p.add_argument(
        "--embed-url",
        metavar="URL",
        help="the embeddings endpoint, e.g. http://127.0.0.1:8080/v1 (with --embed-model)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="machine-readable output, with each memory's score (the full-text rank: it orders "
        "one recall's results and means nothing across recalls)",
    )
    p.set_defaults(func=_cmd_recall)


def _cmd_recall(args: argparse.Namespace) -> int:
    embedder = None
    if args.embed_url and not args.embed_model:
        raise InvalidInputError("recall", [("--embed-url", "is read only with --embed-model")])
    if args.embed_model:
        from stategraph.embedder import OpenAIEmbedder

        embedder = OpenAIEmbedder.from_env(args.embed_model, base_url=args.embed_url)
    try:
        with _open(args) as mem:
            found = mem.recall(
                args.query,
                args.k,
                kinds=args.kind,
                include_doubtful=not args.no_doubtful,
                include_invalidated=args.invalidated,
                as_of=args.as_of,
                embedder=embedder,
            )
    finally:
        if embedder is not None:
            embedder.close()
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in found], ensure_ascii=False))
        return 0
    if not found:
        print("nothing recalled")
        return 0
    for r in found:
        print(f"{r.id}  {r.kind}  {r.status}: {r.text}".translate(LINE_ESCAPES))
        print(f"    {r.reason}".translate(LINE_ESCAPES))
        if r.ask_first:
            print(f"    ask first: {r.ask_first}".translate(LINE_ESCAPES))
    return 0
