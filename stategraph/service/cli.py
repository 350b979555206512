"""The ``serve`` and ``mcp`` commands.

``register(subparsers)`` adds them to the main ``stategraph`` parser. Nothing here imports
FastAPI, uvicorn or the MCP SDK until one of the commands runs: every other command starts as
fast as it did before the service existed (``tests/cli/test_startup.py``).
"""

from __future__ import annotations

import argparse
import importlib
import ipaddress
import json
import os
import sys
from typing import Any

from stategraph.service.errors import ServiceConfigError
from stategraph.urls import redact_logs
from stategraph.values import ReversalPolicy

__all__ = ["register"]

TOKENS_ENV = "STATEGRAPH_TOKENS"
"""Where ``serve`` and ``mcp --http`` look for the tokens file when ``--tokens`` is not given."""


def _require(*modules: str) -> None:
    """Fail with an instruction, not a traceback, when the ``service`` extra is missing."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            raise ServiceConfigError(
                name,
                "this command needs the optional 'service' packages: "
                "pip install 'stategraph[service]'",
            ) from None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _tokens_path(args: argparse.Namespace, needed_for: str) -> str:
    path = args.tokens or os.environ.get(TOKENS_ENV)
    if not path:
        raise ServiceConfigError(
            "--tokens",
            f"{needed_for} needs a tokens file (or {TOKENS_ENV}); make one with "
            "'stategraph serve --tokens FILE --add-token TENANT'",
        )
    return str(path)


def _warn_if_exposed(host: str) -> None:
    if not _is_loopback(host):
        print(
            f"stategraph: warning: listening on {host}, beyond this machine, without TLS: "
            "tokens and memories cross the network in clear text; put a TLS-terminating proxy "
            "in front, or listen on 127.0.0.1",
            file=sys.stderr,
        )


def _announce(store: str, host: str, port: int, path: str = "") -> None:
    """Check that the port is free, then say on stderr where the tenants are and where to
    connect: a port in use is a one-line error (exit 2) before anything claims to listen.

    Args:
        store: the ``--store`` URL; a SQLite folder is shown as its absolute, resolved path,
            any other URL without its credentials.
    """
    from stategraph.service import serving
    from stategraph.service.tenants import SQLiteTenants, open_tenants
    from stategraph.urls import redact

    serving.listening_socket(host, port, reuse_port=False).close()
    tenants = open_tenants(store)
    try:
        where = (
            f"one SQLite file per tenant in {tenants.folder.resolve()}"
            if isinstance(tenants, SQLiteTenants)
            else redact(store, store)
        )
    finally:
        tenants.close()
    shown = f"[{host}]" if ":" in host else host
    print(f"stategraph: tenants stored: {where}", file=sys.stderr)
    print(f"stategraph: listening on http://{shown}:{port}{path}", file=sys.stderr)


def memory_config(args: argparse.Namespace) -> dict[str, Any]:
    """The tenants' memory settings given on the command line, as JSON (handed to
    ``serve``'s worker processes through the environment): ``--rules`` read as the CLI's
    write commands read it, ``--grounder``, ``--reversals``, which judge to ask (``--judge``)
    and its deadline (``--judge-seconds``)."""
    rules = args.rules
    packs: str | list[str] | None = rules if rules in (None, "all") else rules.split(",")
    if args.judge_seconds is not None and not args.judge_seconds > 0:
        raise ServiceConfigError("--judge-seconds", "must be > 0 seconds")
    return {
        "rules": packs,
        "grounder": args.grounder,
        "reversals": args.reversals,
        "judge": args.judge,
        "judge_seconds": args.judge_seconds,
    }


def _checked_settings(args: argparse.Namespace) -> dict[str, Any]:
    """:func:`memory_config`, checked once before anything listens: an unknown pack or
    grounder, or ``--judge`` without its environment, is a one-line error."""
    from stategraph.service.settings import MemorySettings

    config = memory_config(args)
    settings = MemorySettings.from_config(config)
    settings.check()
    close = getattr(settings.judge, "close", None)
    if close is not None:
        close()
    return config


def _cmd_serve(args: argparse.Namespace) -> int:
    from stategraph.service.auth import Tokens, add_token

    if args.add_token:
        if not args.tokens:
            raise ServiceConfigError("--add-token", "give the tokens file with --tokens FILE")
        token = add_token(args.tokens, args.add_token, args.label)
        print(token)
        print(
            f"stategraph: added a token for tenant {args.add_token!r} to {args.tokens}; it is "
            "shown once and stored only as its hash",
            file=sys.stderr,
        )
        return 0
    if args.store is None:
        raise ServiceConfigError("--store", "give the store URL, e.g. sqlite:///data")
    if args.workers < 1 or args.threads < 1 or args.max_body < 1 or args.max_page < 1:
        raise ServiceConfigError(
            "serve", "--workers, --threads, --max-body and --max-page must be >= 1"
        )
    _require("fastapi", "uvicorn")
    from stategraph.service import serving
    from stategraph.service.http import CONFIG_ENV
    from stategraph.service.tenants import open_tenants

    redact_logs(args.store)
    tokens = _tokens_path(args, "serve")
    Tokens.from_file(tokens)  # refuse a bad file here, once, not in every worker
    memory = _checked_settings(args)
    open_tenants(args.store, busy_timeout=args.busy_timeout).close()
    os.environ[CONFIG_ENV] = json.dumps(
        {
            "store": args.store,
            "memory": memory,
            "tokens": os.path.abspath(tokens),
            "max_body": args.max_body,
            "busy_timeout": args.busy_timeout,
            "threads": args.threads,
            "max_page": args.max_page,
        }
    )
    _warn_if_exposed(args.host)
    _announce(args.store, args.host, args.port)
    serving.run(
        "stategraph.service.http:app_from_env",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        access_log=args.access_log,
        **_guards(args),
    )
    return 0


def _guards(args: argparse.Namespace) -> dict[str, Any]:
    """uvicorn's options for the connection limits (:mod:`stategraph.service.guards`)."""
    from stategraph.service.guards import uvicorn_options

    if args.header_timeout <= 0 or (args.max_connections is not None and args.max_connections < 1):
        raise ServiceConfigError("serve", "--header-timeout must be > 0 and --max-connections >= 1")
    return uvicorn_options(header_timeout=args.header_timeout, max_connections=args.max_connections)


def _cmd_mcp(args: argparse.Namespace) -> int:
    if args.store is None:
        raise ServiceConfigError("--store", "give the store URL, e.g. sqlite:///data")
    _require("mcp")
    from stategraph.service.mcp_server import serve
    from stategraph.service.settings import MemorySettings

    memory = _checked_settings(args)
    tokens = (args.tokens or os.environ.get(TOKENS_ENV)) if args.http else None
    if args.http:
        _warn_if_exposed(args.host)
        if not _is_loopback(args.host) and tokens is None:
            raise ServiceConfigError(
                "--tokens", "mcp --http beyond loopback needs --tokens (each token one tenant)"
            )
        _announce(args.store, args.host, args.port, "/mcp")
    serve(
        args.store,
        tenant=args.tenant,
        http=args.http,
        host=args.host,
        port=args.port,
        tokens=tokens,
        busy_timeout=args.busy_timeout,
        uvicorn_options=_guards(args) if args.http else None,
        settings=MemorySettings.from_config(memory),
    )
    return 0


def _common(
    p: argparse.ArgumentParser, port: int, tokens: str, judges: tuple[str, ...], judge: str
) -> None:
    """The options ``serve`` and ``mcp`` share: where the memories are, where to listen, who
    may reach them, which judge to ask (one of ``judges``, described by ``judge``)."""
    p.add_argument(
        "--store",
        metavar="URL",
        help="where the tenants' memories are: sqlite:///DIR (one SQLite file per tenant in DIR)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--busy-timeout",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="how long a write waits for another process's lock on the same tenant before "
        "answering busy (HTTP 503 with Retry-After; default 5)",
    )
    p.add_argument("--port", type=int, default=port, help=f"port (default {port})")
    p.add_argument("--tokens", metavar="FILE", help=f"{tokens} (default ${TOKENS_ENV})")
    p.add_argument(
        "--rules",
        metavar="PACKS",
        help="rule packs that link text memories through their atoms: 'all' or comma-separated "
        "names, as 'stategraph add --rules' takes them; kept in each tenant's store by its "
        "writes (default: what each store keeps)",
    )
    p.add_argument(
        "--grounder",
        metavar="NAME",
        help="ground memory text into atoms, e.g. stategraph.rule_grounder.v1; kept in each "
        "tenant's store by its writes (default: what each store keeps)",
    )
    p.add_argument(
        "--reversals",
        choices=[r.value for r in ReversalPolicy],
        help="a new fact that reads as reversing or replacing a holding one: 'supersede' it "
        "when read cleanly, else ask, or always 'ask'; kept in each tenant's store by its "
        "writes (default: what each store keeps; a new store's is 'supersede')",
    )
    p.add_argument(
        "--judge",
        nargs="?",
        const="openai",
        choices=judges,
        default=None,
        help=judge,
    )
    p.add_argument(
        "--judge-seconds",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --judge: the wall-clock time one revision may spend asking the judge; "
        "what is not answered by then goes to confirmation (default 120)",
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="HTTP: a connection that has not sent a whole request line and headers this long "
        "after it opened, or after its last answer, is closed (default 10)",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        default=None,
        metavar="N",
        help="HTTP: connections each worker holds at most; past it the one waiting longest "
        "for its headers is closed (default: a quarter of the descriptor limit, at most 1000)",
    )


def register(subparsers: Any) -> None:
    """Add ``serve`` and ``mcp`` to the main parser's sub-commands."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="serve the HTTP API (FastAPI on uvicorn), one memory per tenant",
        description="Serve the HTTP API: each bearer token acts as one tenant. The OpenAPI "
        "schema is at /openapi.json, browsable at /docs.",
    )
    _common(
        p,
        8080,
        "the tokens file: token hashes and their tenants",
        ("openai",),
        "ask the judge configured by the environment (STATEGRAPH_JUDGE_MODEL, and "
        "OPENAI_BASE_URL or OPENAI_API_KEY) about what logic leaves undecided, on every write",
    )
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--add-token",
        metavar="TENANT",
        help="add a new token for TENANT to --tokens FILE, print it once, and exit",
    )
    p.add_argument("--label", default="", help="with --add-token: a note kept with the token")
    p.add_argument(
        "--max-body",
        type=int,
        default=1 << 20,
        metavar="BYTES",
        help="largest request body accepted (413 past it; default 1 MiB)",
    )
    p.add_argument(
        "--max-page",
        type=int,
        default=4 << 20,
        metavar="BYTES",
        help="a listing's page size (/v1/states, /v1/history): the page ends past it and "
        "its Link header names the next (default 4 MiB)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=16,
        help="operations run at once in each worker (default 16)",
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=("critical", "error", "warning", "info", "debug"),
    )
    p.add_argument(
        "--no-access-log", dest="access_log", action="store_false", help="no line per request"
    )
    p.set_defaults(func=_cmd_serve)

    p = subparsers.add_parser(
        "mcp",
        help="serve the memory to agents over the Model Context Protocol (stdio by default)",
        description="An MCP server with tools to remember a memory with its basis, revise, "
        "explain and list what needs review. Over stdio it serves one tenant (--tenant); over "
        "streamable HTTP (--http) each bearer token of --tokens acts as its tenant.",
    )
    _common(
        p,
        8081,
        "with --http: each token acts as its tenant (else --tenant, loopback only)",
        ("openai", "sampling", "auto"),
        "ask a judge about what logic leaves undecided, on every write: 'openai' (--judge "
        "alone), the judge the environment configures (STATEGRAPH_JUDGE_MODEL, and "
        "OPENAI_BASE_URL or OPENAI_API_KEY); 'sampling', the model of the MCP client that "
        "calls the tool, when it declares sampling (otherwise no judge, and the server logs "
        "why once); 'auto', the client's model when it declares sampling, else the "
        "environment's judge when one is configured",
    )
    p.add_argument(
        "--tenant", default="default", help="the tenant served over stdio (default 'default')"
    )
    p.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    p.set_defaults(func=_cmd_mcp)
