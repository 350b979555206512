"""An agent that writes what it concludes while it works, and revises when the user changes
their mind; what logic cannot decide goes to an LLM judge.

With ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``STATEGRAPH_JUDGE_MODEL`` set, the judge is
that model. Without them, this example starts a tiny scripted chat-completions server on
loopback (a stand-in, not a model: it says a plan rests on a fact when they share a city) so
that it runs anywhere, offline.

Run: ``python examples/agent_loop.py``
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from stategraph import Memory
from stategraph.judge import OpenAIJudge

CITIES = ("tokyo", "osaka", "kyoto")


def decide(memories: dict[str, Any], question: dict[str, Any]) -> dict[str, Any]:
    """One rule: a plan rests on a memory that changed if both name a city."""
    head = memories[question["HEAD"]]["text"].lower()
    changed = [memories[c["id"]]["text"].lower() for c in question["CHANGED"]]
    if any(c in head and c in text for text in changed for c in CITIES):
        return {"still_holds": False, "support": [], "reason": "it was about that trip"}
    return {"still_holds": True, "support": question["HOLDING"][:1], "reason": "not that trip"}


class Scripted(BaseHTTPRequestHandler):
    """Answers every question of a request by :func:`decide`."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        prompt = body["messages"][-1]["content"]
        doc = json.loads(prompt[prompt.index("{") :])
        answer = {
            "answers": [{"head": q["HEAD"], **decide(doc["MEMORIES"], q)} for q in doc["QUESTIONS"]]
        }
        reply = {
            "id": "scripted",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": json.dumps(answer)},
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:  # quiet
        pass


def judge() -> OpenAIJudge:
    if all(
        os.environ.get(v) for v in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "STATEGRAPH_JUDGE_MODEL")
    ):
        return OpenAIJudge.from_env()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return OpenAIJudge("scripted", base_url=f"http://{host!s}:{port}/v1", api_key="none")


mem = Memory(judge=judge())

# The agent works: the user tells it things, it writes what it concludes.
mem.fact("u1", "The user flies to Tokyo on 2027-04-10 for a conference")
mem.fact("u2", "The user is vegetarian")
mem.plan("a1", "Book a hotel in Tokyo near the conference venue", because=["u1"])
mem.plan("a2", "Find vegetarian restaurants in Tokyo", context=["u1", "u2"])
mem.action("a3", "Buy a Tokyo metro pass before 2027-04-10", context=["u1"])
mem.belief("a4", "The user prefers vegetarian meals on flights", context=["u2"])

# The user changes their mind: the trip is off.
report = mem.retract("u1")
for e in report.entries:
    print(f"{e.id}: {e.verdict.value} (decided by {e.decided_by.value})")
for edge in report.edges:
    print(f"  {edge.head} <- {edge.premise}: {edge.decided_by}: {edge.note}")
print("consequences:", report.consequences)
