"""Serve memories over HTTP, one per tenant, and use one as an agent would.

The same two commands as in the how-to: a token for a tenant, then ``stategraph serve`` (here
on a free loopback port, for as long as the example runs). Give the store as
``postgresql://host/db`` instead of ``sqlite:///DIR`` to keep every tenant in PostgreSQL
(``STATEGRAPH_EXAMPLE_STORE`` overrides it here).

Run: ``python examples/serve_http.py`` (needs the service extra: ``pip install -e ".[service]"``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

STATEGRAPH = [sys.executable, "-m", "stategraph"]

with tempfile.TemporaryDirectory() as tmp:
    tokens = Path(tmp) / "tokens.json"
    store = os.environ.get("STATEGRAPH_EXAMPLE_STORE", f"sqlite:///{tmp}/data")

    # 1. A token for tenant alice: printed once, stored only as its SHA-256.
    added = [*STATEGRAPH, "serve", "--tokens", str(tokens), "--add-token", "alice"]
    token = subprocess.run(added, capture_output=True, text=True, check=True).stdout.strip()

    # 2. The server, on a free port of the loopback interface.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    serve = [*STATEGRAPH, "serve", "--store", store, "--tokens", str(tokens), "--port", str(port)]
    serve.append("--no-access-log")
    server = subprocess.Popen(serve, stderr=subprocess.DEVNULL)
    try:
        api = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {token}"},
        )
        for _ in range(300):  # wait until it listens
            try:
                api.get("/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.1)

        # 3. The seed scenario, over HTTP.
        api.post("/v1/states", json={"id": "m1", "kind": "fact", "text": "Moving to Shenzhen"})
        api.post(
            "/v1/states",
            json={"id": "m3", "kind": "action", "text": "Cancel the broadband", "because": ["m1"]},
        )
        change = {"supersede": {"id": "m1", "with": {"id": "m1b", "text": "The user stays"}}}
        report = api.post("/v1/revise", json=change).json()
        print("verdicts:", {e["id"]: e["verdict"] for e in report["entries"]})
        print("consequences:", {e["id"]: e["consequence"] for e in report["entries"]})
        print("m3:", api.get("/v1/states/m3").json()["truth"])
        print("head:", api.get("/v1/head").json()["seq"])
        print("unknown id:", api.get("/v1/states/ghost").status_code)
    finally:
        server.terminate()
        server.wait(timeout=30)
