"""Run the HTTP API on uvicorn, with one process or several.

Why not ``uvicorn.run``: with ``workers > 1`` uvicorn binds the listening socket itself as
``socket.socket(family)``, whose protocol number is 0, and asyncio then does not turn off
Nagle's algorithm on the connections it accepts (it does only for sockets that say
``IPPROTO_TCP``). A response goes out in two writes (headers, then body), the second waits for
the client's delayed ACK, and every request took 45 ms on loopback with two workers instead of
2 ms with one. Here the listening socket has ``TCP_NODELAY`` set, which Linux passes on to the
sockets it accepts; the rest is what ``uvicorn.run`` does.
"""

from __future__ import annotations

import inspect
import socket
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess

__all__ = ["run"]


class _Config(uvicorn.Config):
    def bind_socket(self) -> socket.socket:
        sock = super().bind_socket()
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock


def run(app: str, *, workers: int, **options: Any) -> None:
    """Serve ``app`` (an import string, ``factory=True`` allowed) until stopped.

    Args:
        app: the application's import string; each worker process imports it.
        workers: worker processes (1: serve in this process).
        options: the rest of :class:`uvicorn.Config`.
    """
    config = _Config(app, workers=workers, **options)
    server = uvicorn.Server(config)
    if workers <= 1:
        server.run()
        return
    sock = config.bind_socket()
    if "target" in inspect.signature(Multiprocess).parameters:  # older uvicorn
        Multiprocess(config, target=server.run, sockets=[sock]).run()  # type: ignore[call-arg]
    else:
        Multiprocess(config, sockets=[sock]).run()
