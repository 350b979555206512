"""Run the HTTP API on uvicorn: one process, or N worker processes that each listen on the port.

Why not ``uvicorn.run(..., workers=N)``, which shares one listening socket among the workers:

- **Connections pile up on one worker.** Every worker waits on the same socket, and the one
  whose event loop wakes first accepts every connection waiting (asyncio accepts up to the
  backlog at once). In the load test, one worker of four held all 32 client connections while
  three idled. Here each worker has its own socket on the port (``SO_REUSEPORT``), and the
  kernel spreads new connections over them.
- **Nagle's algorithm was left on.** uvicorn binds its shared socket as ``socket.socket(family)``,
  whose protocol number is 0, and asyncio turns off Nagle only on connections of sockets that
  say ``IPPROTO_TCP``: a response goes out in two writes (headers, body), the second waited for
  the client's delayed ACK, and every request took 45 ms on loopback instead of 2. Here the
  sockets say ``TCP_NODELAY`` themselves, which Linux passes on to what they accept.

The supervisor starts the workers, starts a new one whenever one dies (a ``kill -9`` loses
only the requests that worker had in hand), and stops them all on SIGINT or SIGTERM.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import signal
import socket
import sys
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

from stategraph.service.errors import ServiceConfigError

__all__ = ["listening_socket", "run"]


def listening_socket(host: str, port: int, *, reuse_port: bool) -> socket.socket:
    """A TCP socket listening on ``host:port``, with Nagle off on what it accepts.

    Args:
        reuse_port: join the port's ``SO_REUSEPORT`` group (each worker binds its own).

    Raises:
        ServiceConfigError: another process listens on the port (a line, not a traceback).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno != errno.EADDRINUSE:
            raise
        raise ServiceConfigError(
            "--port",
            f"port {port} on {host} is already in use (another server listens there): stop "
            "it, or give another --port",
        ) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _worker(app: str, host: str, port: int, options: dict[str, Any]) -> None:
    """One worker process: its own socket in the port's group, its own uvicorn server."""
    sock = listening_socket(host, port, reuse_port=True)
    config = uvicorn.Config(app, host=host, port=port, **options)
    uvicorn.Server(config).run(sockets=[sock])


def run(app: Any, *, host: str, port: int, workers: int, **options: Any) -> None:
    """Serve ``app`` (an import string; ``factory=True`` allowed) until SIGINT or SIGTERM.

    Args:
        app: the application's import string; each worker imports it (with one worker, an
            application object will do).
        host: the address to listen on.
        port: the port (a fixed one: every worker binds it).
        workers: worker processes (1: serve in this process).
        options: the rest of :class:`uvicorn.Config`.
    """
    if workers <= 1:
        sock = listening_socket(host, port, reuse_port=False)
        config = uvicorn.Config(app, host=host, port=port, **options)
        uvicorn.Server(config).run(sockets=[sock])
        return
    # Bound once here, so that a port in use fails at once and in the foreground; closed at
    # once, because a listening member of the group that nobody accepts on would still get its
    # share of the connections.
    listening_socket(host, port, reuse_port=True).close()
    context = multiprocessing.get_context("spawn")
    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}

    def start() -> BaseProcess:
        p = context.Process(target=_worker, args=(app, host, port, options), daemon=False)
        p.start()
        return p

    procs = [start() for _ in range(workers)]
    try:
        while not stopping:
            wait([p.sentinel for p in procs], timeout=0.5)
            for i, p in enumerate(procs):
                if not p.is_alive() and not stopping:
                    if p.exitcode == STARTUP_FAILURE:  # the app cannot start: it never will
                        raise SystemExit(STARTUP_FAILURE)
                    print(
                        f"stategraph: worker {p.pid} exited ({p.exitcode}); starting another",
                        file=sys.stderr,
                    )
                    procs[i] = start()
    finally:
        for p in procs:
            if p.pid is not None and p.is_alive():
                os.kill(p.pid, signal.SIGTERM)
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
                p.join()
        for s, handler in previous.items():
            signal.signal(s, handler)
