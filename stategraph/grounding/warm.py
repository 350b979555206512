"""The warm grounder: one background process that keeps the rule grounder's pipelines built,
for commands that ground a few texts and exit.

Building the pipelines costs seconds (importing spaCy about one, its patterns and jieba's
dictionary the rest), and a command that grounds one text (``stategraph ground``, ``add
--text`` on a store with a grounder) pays that every time it starts. ``stategraph grounder
start`` starts a process that builds them once and answers on a Unix socket that only this
user can open. While it runs, any process of this user's that grounds with the rule grounder
(every command; a script) sends it its texts and takes the readings back, until it has sent
:data:`BUDGET` of them or built pipelines of its own (:func:`use_when_running` turns that off
for one process).

The readings are the same either way. The server runs this very source tree: each request
carries the client's :func:`fingerprint` (where the package is, and its files' sizes and
modification times), and a server that differs answers nothing. A client that cannot use
the server for any reason (none running, another checkout or version, a socket someone else could
open, an error) grounds in its own process, as it would without one, and tries the server
no more.

The protocol is one JSON line each way per connection: ``{"op": "ground", "fingerprint",
"text", "lang", "year"}`` answered by ``{"grounding": record}``
(:meth:`~stategraph.grounding.result.Grounding.to_record`), ``{"op": "status"}`` by what
:func:`status` returns, ``{"op": "stop"}`` by ``{"stopping": true}``. The server exits
after ``idle`` seconds without a request, and removes its socket.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import socketserver
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from stategraph.errors import StategraphError
from stategraph.grounding.result import Grounding
from stategraph.grounding.segment import search_words

__all__ = [
    "SOCKET_ENV",
    "WarmGrounderError",
    "fingerprint",
    "ground_warm",
    "socket_path",
    "start",
    "status",
    "stop",
    "use_when_running",
    "words_warm",
]

SOCKET_ENV = "STATEGRAPH_GROUNDER_SOCKET"
"""The environment variable naming the socket, in place of :func:`socket_path`'s default."""

IDLE = 1800.0
"""Seconds without a request after which the server exits, by default."""

BUDGET = 500
"""Requests a process sends at most: one that grounds more texts than this loads its own
pipelines and dictionary once, and then grounds faster than through a socket."""

_MAX_LINE = 64 * 1024 * 1024
"""The longest request or answer line read, in bytes (a text and its reading, JSON)."""

_ROOT = Path(__file__).resolve().parents[2]
_PACKAGE = _ROOT / "stategraph"
_SUFFIXES = frozenset({".py", ".jsonl", ".json", ".lp", ".txt", ".utf8"})

_log = logging.getLogger(__name__)


class WarmGrounderError(StategraphError):
    """The warm grounder could not be started or reached.

    Attributes:
        path: the socket's path.
        reason: what went wrong and what to do.
    """

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"warm grounder at {path}: {reason}")


def socket_path() -> Path:
    """Where the server listens: ``$STATEGRAPH_GROUNDER_SOCKET``, else ``grounder.sock`` in a
    directory of this user's (``$XDG_RUNTIME_DIR/stategraph``, or ``stategraph-UID`` in the
    temporary directory)."""
    named = os.environ.get(SOCKET_ENV)
    if named:
        return Path(named)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = (
        Path(runtime) / "stategraph"
        if runtime
        else Path(tempfile.gettempdir()) / f"stategraph-{os.getuid()}"
    )
    return folder / "grounder.sock"


def _private(folder: Path) -> str | None:
    """Why ``folder`` may not hold the socket (it is not a directory of this user's that no
    one else can enter), or None when it may."""
    try:
        info = folder.lstat()
    except OSError as exc:
        return f"cannot read {folder}: {exc.strerror}"
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder} is not a directory"
    if info.st_uid != os.getuid():
        return f"{folder} belongs to another user"
    if info.st_mode & 0o077:
        return f"others may enter {folder} (chmod 700 it)"
    return None


def fingerprint() -> str:
    """What the source tree's readings depend on: where it is, and its files' sizes and
    modification times. A server answers only a client with its own."""
    digest = hashlib.sha256(str(_ROOT).encode())
    for folder, dirs, files in os.walk(_PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if Path(name).suffix in _SUFFIXES:
                info = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:32]


def _ask(path: Path, request: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Send one request and read its answer.

    Raises:
        OSError: no server answers at ``path`` (nothing there, a stale socket, a timeout).
        ValueError: the answer is not one JSON object.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(path))
        conn.sendall(json.dumps(request).encode() + b"\n")
        with conn.makefile("rb") as stream:
            line = stream.readline(_MAX_LINE)
    answer = json.loads(line)
    if not isinstance(answer, dict):
        raise ValueError("the answer is not a JSON object")
    return answer


class _Client:
    """This process's use of the server: off for good at the first request the server cannot
    answer, after :data:`BUDGET` requests, or by :func:`use_when_running`."""

    def __init__(self) -> None:
        self.enabled = True
        self.sent = 0
        self._fingerprint: str | None = None

    def ask(self, op: str, key: str, **request: Any) -> Any:
        """The server's answer under ``key`` to ``op``, or None (the caller does it itself)."""
        if not self.enabled or self.sent >= BUDGET:
            return None
        path = socket_path()
        if not path.exists():  # nothing to try: checked again at the next request
            return None
        why = _private(path.parent)
        if why is not None:
            self.give_up(path, why)
            return None
        if self._fingerprint is None:
            self._fingerprint = fingerprint()
        self.sent += 1
        try:
            answer = _ask(path, {"op": op, "fingerprint": self._fingerprint, **request}, 60.0)
        except (OSError, ValueError) as exc:
            self.give_up(path, f"{type(exc).__name__}: {exc}")
            return None
        if key not in answer:
            self.give_up(path, str(answer.get("error", f"no {key} in the answer")))
            return None
        return answer[key]

    def give_up(self, path: Path, why: str) -> None:
        """Stop using the server, and say why once."""
        self.enabled = False
        _log.warning("not using the warm grounder at %s (%s); grounding here", path, why)


def _built_here() -> bool:
    """True once this process has built a pipeline of its own: it grounds faster itself."""
    pipeline = sys.modules.get("stategraph.grounding.pipeline")
    return pipeline is not None and pipeline.get_pipeline.cache_info().currsize > 0


_CLIENT = _Client()


def use_when_running(enabled: bool = True) -> None:
    """Whether this process's rule grounder sends its texts to a running warm grounder (by
    default it does, until :data:`BUDGET` texts or its own pipelines)."""
    _CLIENT.enabled = enabled


def ground_warm(text: str, lang: str, reference_year: int | None) -> Grounding | None:
    """The warm grounder's reading of ``text``, or None when this process does not use one,
    has built its own pipelines, or none can answer (the caller then grounds it itself)."""
    if _built_here():
        return None
    record = _CLIENT.ask("ground", "grounding", text=text, lang=lang, year=reference_year)
    if record is None:
        return None
    try:
        return Grounding.from_record(record)
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        _CLIENT.give_up(socket_path(), f"an unreadable reading: {exc}")
        return None


def words_warm(run: str) -> list[str] | None:
    """:func:`stategraph.grounding.segment.search_words` of a run of Han characters from the
    warm grounder, which has jieba's dictionary loaded; None as :func:`ground_warm`."""
    words = _CLIENT.ask("words", "words", run=run)
    if words is None:
        return None
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        _CLIENT.give_up(socket_path(), "unreadable words")
        return None
    return words


def status(path: Path | None = None) -> dict[str, Any] | None:
    """What the server at ``path`` (default :func:`socket_path`) says of itself: ``pid``,
    ``root`` (its source tree), ``fingerprint``, ``since`` (Unix time),
    ``grounded`` (texts answered) and ``idle`` (seconds it waits); None when none answers."""
    where = socket_path() if path is None else path
    try:
        return _ask(where, {"op": "status"}, timeout=5.0)
    except (OSError, ValueError):
        return None


def stop(path: Path | None = None) -> bool:
    """Ask the server at ``path`` to exit; False when none was running."""
    where = socket_path() if path is None else path
    try:
        _ask(where, {"op": "stop"}, timeout=5.0)
    except (OSError, ValueError):
        return False
    deadline = time.monotonic() + 10.0
    while where.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return True


def start(idle: float = IDLE, path: Path | None = None, wait: float = 120.0) -> dict[str, Any]:
    """Start a server in the background (or find the one running) and return its
    :func:`status` once it answers.

    Args:
        idle: seconds without a request after which it exits.
        path: its socket (default :func:`socket_path`).
        wait: seconds to wait for it to build its pipelines.

    Raises:
        WarmGrounderError: the socket's directory is not private to this user, or the server
            exited or did not answer in time (its log is named).
    """
    where = socket_path() if path is None else path
    running = status(where)
    if running is not None:
        return running
    where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    why = _private(where.parent)
    if why is not None:
        raise WarmGrounderError(where, why)
    log = where.with_suffix(".log")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_ROOT), env.get("PYTHONPATH")]))
    with open(log, "wb") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(where), repr(float(idle))],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            env=env,
            start_new_session=True,  # outlives the command that started it, and its Ctrl-C
        )
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        answer = status(where)
        if answer is not None:
            return answer
        if proc.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-1:]
            raise WarmGrounderError(where, f"the server exited ({'; '.join(tail)}; see {log})")
        time.sleep(0.1)
    proc.kill()
    raise WarmGrounderError(where, f"the server did not answer within {wait:.0f} s (see {log})")


_SERVER = "import sys; from stategraph.grounding.warm import serve; serve(sys.argv[1], sys.argv[2])"


class _Server(socketserver.UnixStreamServer):
    """One request at a time: spaCy's pipelines are not shared between threads."""

    def __init__(self, path: str, idle: float) -> None:
        self.fingerprint = fingerprint()
        self.since = time.time()
        self.last = time.monotonic()
        self.grounded = 0
        self.idle = idle
        self.stopping = False
        super().__init__(path, _Handler)
        self.timeout = min(5.0, idle)

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        from stategraph.grounding.grounder import RuleGrounder

        op = request.get("op")
        if op == "status":
            return {
                "pid": os.getpid(),
                "root": str(_ROOT),
                "fingerprint": self.fingerprint,
                "since": self.since,
                "grounded": self.grounded,
                "idle": self.idle,
            }
        if op == "stop":
            self.stopping = True
            return {"stopping": True}
        if op not in ("ground", "words"):
            return {"error": f"unknown op {op!r}"}
        if request.get("fingerprint") != self.fingerprint:
            return {
                "error": f"another source tree or version of it (this server runs {_ROOT}; "
                "restart it: stategraph grounder stop, then start)"
            }
        if op == "words":
            run = request.get("run")
            if not isinstance(run, str):
                return {"error": "a words request needs a run"}
            return {"words": search_words(run)}
        year = request.get("year")
        lang = request.get("lang")
        if not isinstance(request.get("text"), str) or lang not in ("en", "zh"):
            return {"error": "a ground request needs a text and a language"}
        if year is not None and not isinstance(year, int):
            return {"error": "year must be an integer"}
        try:
            result = RuleGrounder().ground(request["text"], lang=lang, reference_year=year)
        except StategraphError as exc:
            return {"error": str(exc)}
        self.grounded += 1
        return {"grounding": result.to_record()}


class _Handler(socketserver.StreamRequestHandler):
    timeout = 30.0  # a client that connects and says nothing does not hold the server

    def handle(self) -> None:
        server = self.server
        assert isinstance(server, _Server)
        try:
            request = json.loads(self.rfile.readline(_MAX_LINE))
            if not isinstance(request, dict):
                raise ValueError("not a JSON object")
            answer = server.answer(request)
        except (ValueError, UnicodeDecodeError) as exc:
            answer = {"error": f"unreadable request: {exc}"}
        self.wfile.write(json.dumps(answer).encode() + b"\n")
        server.last = time.monotonic()


def serve(path: str, idle: str | float = IDLE) -> None:
    """Run the server in this process: build the pipelines, listen at ``path`` (a stale
    socket there is replaced; a live one is left alone), answer until ``idle`` seconds pass
    without a request or a stop arrives, then remove the socket."""
    from stategraph.grounding.grounder import RuleGrounder

    use_when_running(False)  # the server grounds itself, never through another
    where = Path(path)
    grounder = RuleGrounder()
    grounder.ground("The user flies to Tokyo on 2026-05-10", lang="en")
    grounder.ground("用户计划 2026-12 从上海搬到深圳", lang="zh")
    search_words("用户计划从上海搬到深圳")
    if status(where) is not None:
        raise WarmGrounderError(where, "another server already listens there")
    with contextlib.suppress(FileNotFoundError):
        where.unlink()
    old = os.umask(0o177)  # the socket itself is this user's alone, too
    try:
        server = _Server(str(where), float(idle))
    finally:
        os.umask(old)
    mine = where.stat().st_ino
    try:
        with server:
            while not server.stopping and time.monotonic() - server.last < server.idle:
                server.handle_request()
    finally:
        with contextlib.suppress(OSError):
            if where.stat().st_ino == mine:
                where.unlink()
