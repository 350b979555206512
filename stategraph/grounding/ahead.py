"""Grounding ahead: a bulk import's texts grounded in a worker process while it links.

Grounding a memory's text (spaCy, jieba, the frames) is about a sixth of what writing it costs
with rule packs on, and it reads nothing from the store. So a bulk import
(:func:`stategraph.importing.import_memories`) hands the texts it has read but not written yet
to one worker process, a chunk at a time, and the memory takes their readings (the atoms of a
clean reading, or the atoms it withholds: :mod:`stategraph.grounding.reading`) from there
(:attr:`Preparer.grounded_ahead <stategraph.prepare.Preparer.grounded_ahead>`). A chunk the
worker has not finished (it is starting, or behind) is grounded in the importing process as
``Memory.add`` always does; so is a text the worker could not ground, which then fails there,
in order, with its line named.

The readings are the same either way: grounding is a function of the text, the reference year
and the grounder. The worker loads the grounder by name, so only the built-in grounders are
grounded ahead (a grounder registered at run time, or a double standing in under a built-in
name, exists only in the importing process).

The worker is a fresh Python (``python -c``) running :func:`_serve`, speaking JSON lines on
its standard streams: it prints ``"ready"`` once its pipelines are built, then for each line of
texts ``[[text, year], ...]`` one line of their readings (``null`` for a text that failed). Not
:mod:`multiprocessing`: its ``spawn`` runs the caller's main module again in the worker, and a
script without a ``__main__`` guard would then open the store and import a second time there.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from stategraph.grounding.grounder import ground, is_builtin
from stategraph.grounding.reading import Reading, read

__all__ = ["GroundingAhead", "Text", "can_ground_ahead"]

Text = tuple[str, int | None]
"""A text to ground and its reference year (:func:`stategraph.grounding.ground`)."""

_log = logging.getLogger(__name__)

_IN_FLIGHT = 2
"""Chunks sent and not yet answered, at most: the worker is never far behind the importer,
and what is sent past it would be grounded twice."""


def can_ground_ahead(grounder: str) -> bool:
    """True when a worker process would ground as this process does, and run beside it: a
    built-in grounder, at least two CPUs this process may use, and a Python to start (an
    embedded interpreter may have none: ``sys.executable`` empty)."""
    return is_builtin(grounder) and _cpus() >= 2 and bool(sys.executable)


def _cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


class GroundingAhead:
    """One worker process grounding chunks of texts with one grounder.

    :meth:`submit` a chunk, later :meth:`take` its atoms: neither ever waits for the worker.

    Args:
        grounder: a built-in grounder's name (:func:`can_ground_ahead`).
    """

    def __init__(self, grounder: str) -> None:
        # the worker imports this very package, wherever this process found it
        root = str(Path(__file__).resolve().parents[2])
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER, root, grounder],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            encoding="ascii",  # JSON escapes the rest, and any newline in a text
        )
        self._lock = threading.Condition()
        self._ready = threading.Event()
        self._sent = 0
        self._answered = 0
        self._answers: dict[int, list[Any]] = {}
        self._abandoned: set[int] = set()
        self._closed = False
        self.grounded = 0
        """Texts whose atoms were taken from the worker."""
        assert self._proc.stdout is not None
        threading.Thread(target=self._read, args=(self._proc.stdout,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        """Collect the worker's answers, in order, until it exits."""
        try:
            for line in stream:
                if line.strip() == '"ready"':  # past anything printed while importing
                    self._ready.set()
                    break
            else:
                return
            for line in stream:
                answer = json.loads(line)
                with self._lock:
                    ticket = self._answered
                    self._answered += 1
                    if ticket in self._abandoned:
                        self._abandoned.discard(ticket)
                    else:
                        self._answers[ticket] = answer
                    self._lock.notify_all()
        except (OSError, ValueError):  # the worker died mid-line: nothing more comes
            return

    def submit(self, texts: Sequence[Text]) -> int | None:
        """Send a chunk to the worker; its ticket, or None when the worker is not ready, is
        busy enough, or is gone (the importer grounds that chunk itself)."""
        stdin = self._proc.stdin
        if not texts or stdin is None or self._closed or not self._ready.is_set():
            return None
        with self._lock:
            if self._sent - self._answered >= _IN_FLIGHT:
                return None
            ticket = self._sent
            self._sent += 1
        try:
            stdin.write(json.dumps([list(t) for t in texts]) + "\n")
            stdin.flush()
        except (OSError, ValueError):
            self.close()
            return None
        return ticket

    def wait(self, ticket: int | None = None, timeout: float = 60.0) -> bool:
        """Wait until the worker is ready (or has answered ``ticket``); False on timeout.
        The importer never does; a caller that would rather wait than ground may."""
        if not self._ready.wait(timeout):
            return False
        if ticket is None:
            return True
        with self._lock:
            return self._lock.wait_for(lambda: ticket < self._answered, timeout)

    def take(self, texts: Sequence[Text], ticket: int | None) -> dict[Text, Reading]:
        """The readings of a submitted chunk if the worker has answered, else none (its
        answer is dropped when it comes): the importer grounds what is missing itself."""
        if ticket is None:
            return {}
        with self._lock:
            answer = self._answers.pop(ticket, None)
            if answer is None:
                self._abandoned.add(ticket)
                return {}
        found = {
            t: Reading.from_json(r) for t, r in zip(texts, answer, strict=True) if r is not None
        }
        self.grounded += len(found)
        return found

    def close(self) -> None:
        """Stop the worker: it exits at the end of its input (a chunk in progress is
        abandoned); one still starting is killed. Logs (at INFO) how many texts it grounded
        and its peak resident memory (``extra``: ``grounded``, ``peak_rss_kb``)."""
        if self._closed:
            return
        self._closed = True
        peak = _peak_rss_kb(self._proc.pid)
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):  # the worker already gone
                self._proc.stdin.close()
        if not self._ready.is_set():
            self._proc.kill()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        _log.info(
            "grounding worker stopped: %d texts grounded ahead, peak RSS %s kB",
            self.grounded,
            peak,
            extra={"grounded": self.grounded, "peak_rss_kb": peak},
        )


def _peak_rss_kb(pid: int) -> int | None:
    """A live process's peak resident memory since it started its program (Linux:
    ``VmHWM``; not ``ru_maxrss``, which counts the parent's pages it saw before ``exec``)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _ground_all(grounder: str, texts: Sequence[Sequence[object]]) -> list[list[Any] | None]:
    """The reading of each text (:meth:`Reading.to_json`), or None where grounding raised."""
    out: list[list[Any] | None] = []
    for text, year in texts:
        try:
            grounding = ground(str(text), reference_year=_year(year), grounder=grounder)
            out.append(read(grounding).to_json())
        except Exception:
            out.append(None)
    return out


def _year(value: object) -> int | None:
    return value if isinstance(value, int) else None


_WORKER = (
    "import sys\n"
    "root, grounder = sys.argv[1:]\n"
    "if root not in sys.path:\n"
    "    sys.path.insert(0, root)\n"
    "from stategraph.grounding.ahead import _serve\n"
    "raise SystemExit(_serve(grounder))\n"
)
"""The worker's program (``python -c``): nothing of the caller's runs there."""


def _serve(grounder: str) -> int:
    """The worker: build the pipelines, then answer chunk after chunk until stdin ends."""
    from stategraph.grounding.warm import use_when_running

    use_when_running(False)  # it grounds thousands of texts: faster with its own pipelines
    ground("The user flies to Tokyo on 2026-05-10", grounder=grounder)
    ground("用户计划 2026-12 从上海搬到深圳", grounder=grounder)
    out = sys.stdout
    out.write('"ready"\n')
    out.flush()
    for line in sys.stdin:
        out.write(json.dumps(_ground_all(grounder, json.loads(line))) + "\n")
        out.flush()
    return 0
