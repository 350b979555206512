"""A real chat-completions (and embeddings) server on loopback, scripted per test.

It speaks just enough of the OpenAI API (``POST /v1/chat/completions``, and
``POST /v1/embeddings`` for recall's rerank) for the official
``openai`` client: OpenAI-shaped JSON with ``usage``, error bodies, headers such as
``retry-after``, and answers that arrive late. Each test installs a script: a function from the
request received (and how many came before it) to the :class:`Reply` to send. Every request is
recorded, so tests assert on what actually went over the wire.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "ChatServer",
    "Received",
    "Reply",
    "answer_json",
    "answering",
    "completion",
    "embeddings",
    "error_body",
    "memory_document",
]


@dataclass(frozen=True)
class Received:
    """A request as the server saw it.

    Attributes:
        index: its position among all requests (0 first).
        path: the request path.
        headers: the request headers, names lower-cased.
        body: the JSON body.
    """

    index: int
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def response_format(self) -> str | None:
        """The ``response_format`` type asked for, or None when none was sent."""
        fmt = self.body.get("response_format")
        return None if fmt is None else str(fmt["type"])

    @property
    def document(self) -> dict[str, Any]:
        """The memory document of the user message."""
        return memory_document(self.body["messages"])

    @property
    def asked(self) -> list[dict[str, Any]]:
        """The questions of the request, each memory quoted in full: ``HEAD`` and
        ``HOLDING`` as ``{"id", "kind", "text"}``, and ``CHANGED`` with its ``CHANGE``."""
        doc = self.document
        memories = doc["MEMORIES"]

        def quote(sid: str) -> dict[str, str]:
            return {"id": sid, **memories[sid]}

        return [
            {
                "HEAD": quote(q["HEAD"]),
                "CHANGED": [{**quote(c["id"]), "CHANGE": c["CHANGE"]} for c in q["CHANGED"]],
                "HOLDING": [quote(h) for h in q["HOLDING"]],
            }
            for q in doc["QUESTIONS"]
        ]

    @property
    def heads(self) -> list[str]:
        """The heads the request asks about, in order."""
        return [q["HEAD"] for q in self.document["QUESTIONS"]]


@dataclass(frozen=True)
class Reply:
    """What the server sends back.

    Attributes:
        status: the HTTP status.
        body: a JSON value, or a string or bytes sent as they are; or a function of the
            request giving one (an answer naming the heads it was asked about).
        headers: extra headers.
        delay: seconds to wait before answering (the client may time out first).
        drip: seconds between bytes: the whole response (status line and headers too) is
            sent one byte at a time, so no read ever waits long (0: all at once).
        repeat: the body is sent this many times over (a huge answer without holding it).
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drip: float = 0.0
    repeat: int = 1


Script = Callable[[Received], Reply]


def answer_json(
    still_holds: bool,
    support: list[str] | None = None,
    reason: str = "ok",
    heads: list[str] | tuple[str, ...] = ("b1",),
) -> str:
    """The text of a reply answering each of ``heads`` the same way, as a model following
    the schema would write it."""
    answers = [
        {"head": h, "still_holds": still_holds, "support": support or [], "reason": reason}
        for h in heads
    ]
    return json.dumps({"answers": answers})


def answering(
    still_holds: bool,
    support: list[str] | None = None,
    reason: str = "ok",
    *,
    delay: float = 0.0,
    drip: float = 0.0,
    **usage: Any,
) -> Reply:
    """A reply answering every question of the request it answers the same way."""
    return Reply(
        body=lambda request: completion(
            answer_json(still_holds, support, reason, request.heads), **usage
        ),
        delay=delay,
        drip=drip,
    )


def completion(
    content: str | None,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
    prompt_tokens: int = 120,
    completion_tokens: int = 17,
    model: str = "scripted",
) -> dict[str, Any]:
    """An OpenAI-shaped chat completion with one choice and usage."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def embeddings(vectors: list[list[float]], model: str = "scripted") -> dict[str, Any]:
    """An OpenAI-shaped embeddings reply, one vector per input in order."""
    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)
        ],
        "model": model,
        "usage": {"prompt_tokens": 3 * len(vectors), "total_tokens": 3 * len(vectors)},
    }


def error_body(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """An OpenAI-shaped error body."""
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


_PREFIX = "Memory document (data only):\n"


def memory_document(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON document the user message carries (the prompt's only place for memory text)."""
    user = [m["content"] for m in messages if m["role"] == "user"]
    assert len(user) == 1 and user[0].startswith(_PREFIX), user
    document: dict[str, Any] = json.loads(user[0][len(_PREFIX) :])
    return document


class ChatServer:
    """A threaded HTTP server on 127.0.0.1 that answers by the installed script."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._script: Script = lambda _request: Reply(500, error_body("no script installed"))
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """The endpoint to give the client, ``http://127.0.0.1:PORT/v1``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, script: Script) -> None:
        """Answer every following request with ``script(request)``."""
        self._script = script

    def replies(self, *replies: Reply) -> None:
        """Answer the following requests with these replies in turn, the last one repeated."""
        start = len(self.requests)

        def scripted(request: Received) -> Reply:
            return replies[min(request.index - start, len(replies) - 1)]

        self._script = scripted

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes the handlers that are holding a slow answer
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def _receive(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[Received, Reply]:
        with self._lock:
            request = Received(len(self.requests), path, headers, json.loads(raw or b"{}"))
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return request, self._script(request)
        except Exception as exc:  # a broken script shows up as a 500 the test can see
            return request, Reply(500, error_body(f"script failed: {exc!r}", "server_error"))

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def wait(self, seconds: float) -> None:
        """Hold an answer back for ``seconds``, or until the server stops."""
        self._stopping.wait(seconds)


def _handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 10  # a client that vanished must not hold a thread past the test

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            headers = {key.lower(): value for key, value in self.headers.items()}
            request, reply = server._receive(self.path, headers, raw)
            try:
                if request.path not in ("/v1/chat/completions", "/v1/embeddings"):
                    reply = Reply(404, error_body(f"no route {request.path}"))
                if reply.delay:
                    server.wait(reply.delay)
                if callable(reply.body):
                    reply = replace(reply, body=reply.body(request))
                if isinstance(reply.body, bytes):
                    data = reply.body
                else:
                    body = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                    data = body.encode("utf-8")
                text = isinstance(reply.body, (str, bytes))
                sent = {
                    "content-type": "text/plain" if text else "application/json",
                    "content-length": str(len(data) * reply.repeat),
                    **reply.headers,
                }
                if reply.drip:
                    self._drip(reply, sent, data)
                    return
                self.send_response(reply.status)
                for name, value in sent.items():
                    self.send_header(name, value)
                self.end_headers()
                for _ in range(reply.repeat):
                    self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left; that is the point of a slow reply
            finally:
                server._done()

        def _drip(self, reply: Reply, headers: dict[str, str], data: bytes) -> None:
            lines = [f"HTTP/1.1 {reply.status} Dripping"]
            lines += [f"{name}: {value}" for name, value in headers.items()]
            raw = ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + data
            for i in range(len(raw)):
                if server._stopping.is_set():
                    return
                self.wfile.write(raw[i : i + 1])
                self.wfile.flush()
                server.wait(reply.drip)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
