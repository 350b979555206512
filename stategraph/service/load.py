"""The load test on loopback: ``stategraph serve`` with N workers, writers across many tenants
and within one, a worker killed mid-run, then every tenant checked.

It is a command, not a unit test (``scripts/load_test.py``; a short run is the opt-in test
``tests/reliability/test_service_load.py``), bounded in time and sending traffic to 127.0.0.1
only. What it does:

1. makes a tokens file with one token per tenant (``t000``... and a ``hot`` tenant) and starts
   ``stategraph serve --workers N`` on a free loopback port;
2. runs writers for ``--seconds``: some pick a random tenant for every revision (across
   tenants), others all write to ``hot`` (within one tenant). Each writer adds facts, adds
   beliefs that rest on its own facts, and supersedes its own facts (which invalidates the
   beliefs on them); every new state has a fresh id, so an operation is recognisable after
   the fact;
3. ``kill -9``'s one worker process part-way (uvicorn starts another); a request that loses
   its connection is *in doubt*: the writer asks whether its new state exists (then it was
   committed: acknowledged late) or sends it again; a 503 is retried after ``Retry-After``;
4. stops the server and checks every tenant's store directly, not through the server: the hash
   chain verifies; the log has exactly one entry per acknowledged operation (none lost, none
   duplicated) and the states are exactly what was acknowledged (ids, active or superseded,
   truth); and replaying the log's changes in order on an empty memory gives every logged
   report again, byte for byte, so no revision was computed from a view another writer had
   already changed (none interleaved).

On PostgreSQL (``--postgres URL``) the run makes a database of its own; on the coordinator of
a Citus cluster, a Citus database across the same nodes. ``--kill-node`` and
``--restart-node`` (shell commands: ``bash .ci/citus kill DIR worker1``, ``... restart ...``)
also kill a database node part-way and start it again ``--node-down`` seconds later: the
tenants it holds answer 503 meanwhile, and a revision refused so is in doubt like one whose
connection was lost. The CPU each database node used is read from ``/proc`` (servers on this
machine only).

Figures: acknowledged revisions per second, p50/p99 latency as the client saw it (retries
included), and the anomaly counts, which must all be 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from stategraph.errors import StoreNotFoundError
from stategraph.memory import Memory
from stategraph.model import Truth
from stategraph.service.auth import add_token
from stategraph.service.load_client import Connection, ConnectionLost
from stategraph.store.open import open_store
from stategraph.store.sqlite import SQLiteStore

__all__ = ["LoadConfig", "LoadResult", "main", "run", "scratch_database"]


@dataclass(frozen=True)
class LoadConfig:
    """What one run does."""

    workers: int = 4
    tenants: int = 100
    writers: int = 24
    """Writers across tenants (each revision to a random tenant)."""
    hot_writers: int = 8
    """Writers that all write to one tenant."""
    seconds: float = 20.0
    kill_after: float | None = 0.4
    """When to kill -9 a worker, as a share of ``seconds``; None: no kill."""
    seed: int = 16
    kill_node: str | None = None
    """A shell command that kills a database node (a Citus worker: ``bash .ci/citus kill DIR
    worker1``), run at ``kill_after``; None: no node is killed."""
    restart_node: str | None = None
    """The shell command that starts it again, run ``node_down`` seconds later."""
    node_down: float = 5.0


@dataclass
class Op:
    """One revision a writer sends."""

    tenant: str
    kind: str
    """``fact``, ``belief`` (rests on ``premise``) or ``supersede`` (replaces ``premise``)."""
    new_id: str
    premise: str | None = None

    def request(self) -> tuple[str, dict[str, Any]]:
        if self.kind == "fact":
            return "/v1/states", {"id": self.new_id, "text": f"fact {self.new_id}"}
        if self.kind == "belief":
            body = {"id": self.new_id, "kind": "belief", "because": [self.premise]}
            return "/v1/states", {**body, "text": f"belief on {self.premise}"}
        with_ = {"id": self.new_id, "text": f"replaces {self.premise}"}
        return "/v1/revise", {"supersede": {"id": self.premise, "with": with_}}


@dataclass
class LoadResult:
    """What a run measured and found."""

    config: LoadConfig
    machine: str
    duration: float = 0.0
    acknowledged: int = 0
    acknowledged_late: int = 0
    """In doubt after a lost connection, and found committed."""
    resent: int = 0
    """In doubt, found not committed, and sent again."""
    busy_retries: int = 0
    unavailable: int = 0
    """Answers 503 ``StoreUnavailableError``: the tenant's database node was down."""
    node_events: list[str] = field(default_factory=list)
    """When the database node was killed and restarted (seconds into the timed run)."""
    errors: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    hot_latencies_ms: list[float] = field(default_factory=list, repr=False)
    """Those of the writers on the hot tenant (also in ``latencies_ms``)."""
    client_cpu: float = 0.0
    warm_up: int = 0
    """Operations sent before the timed run (one fact per tenant, creating its store)."""
    server_cpu: float = 0.0
    database_cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds each database node's processes used during the timed run (PostgreSQL: one
    node; Citus: the coordinator and each worker), read from ``/proc``."""
    killed: list[int] = field(default_factory=list)
    killed_connections: int = 0
    """Client connections the killed worker held when it was killed."""
    restarted: bool = False
    lost: int = 0
    duplicated: int = 0
    unexpected: int = 0
    interleaved: int = 0
    chain_failures: int = 0
    log_entries: int = 0

    @property
    def anomalies(self) -> int:
        return (
            self.lost
            + self.duplicated
            + self.unexpected
            + self.interleaved
            + self.chain_failures
            + len(self.errors)
        )

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        hot = sorted(self.hot_latencies_ms)

        def pct(p: float, lat: list[float] = lat) -> float:
            return round(lat[min(len(lat) - 1, int(p * len(lat)))], 1) if lat else 0.0

        return {
            "machine": self.machine,
            "config": asdict(self.config),
            "revisions_per_second": round((self.acknowledged - self.warm_up) / self.duration, 1)
            if self.duration
            else 0.0,
            "p50_ms": pct(0.50),
            "p99_ms": pct(0.99),
            "mean_ms": round(statistics.fmean(lat), 1) if lat else 0.0,
            "hot_tenant_p50_ms": pct(0.50, hot),
            "hot_tenant_p99_ms": pct(0.99, hot),
            "cpu_seconds": {
                "client": round(self.client_cpu, 1),
                "server": round(self.server_cpu, 1),
                **{f"database {k}": round(v, 1) for k, v in self.database_cpu.items()},
            },
            "acknowledged": self.acknowledged,
            "acknowledged_late": self.acknowledged_late,
            "resent": self.resent,
            "busy_retries": self.busy_retries,
            "node_unavailable_answers": self.unavailable,
            "node_events": self.node_events,
            "killed_workers": self.killed,
            "killed_worker_connections": self.killed_connections,
            "worker_restarted": self.restarted,
            "log_entries": self.log_entries,
            "anomalies": {
                "lost": self.lost,
                "duplicated": self.duplicated,
                "unexpected": self.unexpected,
                "interleaved": self.interleaved,
                "chain_failures": self.chain_failures,
                "errors": len(self.errors),
            },
            "first_errors": self.errors[:5],
        }


class _Run:
    """The shared state of one run's writers."""

    def __init__(self, port: int, tokens: dict[str, str], config: LoadConfig, result: LoadResult):
        self.host, self.port = "127.0.0.1", port
        self.tokens = tokens
        self.config = config
        self.result = result
        self.acked: list[Op] = []
        self.deadline = 0.0
        self.nodes: dict[str, int] = {}
        """The database nodes' postmasters (:func:`database_nodes`)."""
        self.nodes_at_kill: dict[str, float] = {}
        """Their CPU seconds just before a node was killed."""

    def headers(self, tenant: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[tenant]}"}

    async def exists(self, conn: Connection, op: Op) -> bool:
        """Whether an in-doubt operation was committed (its new state exists)."""
        for _ in range(600):
            try:
                r = await conn.request("GET", f"/v1/states/{op.new_id}", self.headers(op.tenant))
            except ConnectionLost:
                await asyncio.sleep(0.05)
                continue
            if r.status in (200, 404):
                return r.status == 200
            await asyncio.sleep(0.05)
        raise RuntimeError(f"could not learn whether {op.new_id} was committed")

    async def send(self, conn: Connection, op: Op) -> bool:
        """Send one operation until it is acknowledged; False if the server refused it."""
        path, body = op.request()
        started = time.perf_counter()
        while True:
            try:
                r = await conn.request("POST", path, self.headers(op.tenant), body)
            except ConnectionLost:
                if await self.exists(conn, op):
                    self.result.acknowledged_late += 1
                    break
                self.result.resent += 1
                continue
            if r.status == 503 and b"StoreUnavailableError" in r.body:
                # The tenant's node went away: the revision is in doubt (its commit may have
                # been under way); wait, then ask, as after a lost connection.
                self.result.unavailable += 1
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                if await self.exists(conn, op):
                    self.result.acknowledged_late += 1
                    break
                self.result.resent += 1
                continue
            if r.status == 503:
                self.result.busy_retries += 1
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                continue
            if r.status not in (200, 201):
                self.result.errors.append(f"{op.kind} {op.new_id}: {r.status} {r.body[:200]!r}")
                return False
            break
        took = (time.perf_counter() - started) * 1000
        self.result.latencies_ms.append(took)
        if op.tenant == "hot":
            self.result.hot_latencies_ms.append(took)
        self.acked.append(op)
        return True

    async def writer(self, name: str, tenants: list[str]) -> None:
        conn = Connection(self.host, self.port)
        rng = random.Random(f"{self.config.seed}-{name}")
        mine: dict[str, list[str]] = {t: [] for t in tenants}  # my active facts per tenant
        n = 0
        while time.monotonic() < self.deadline:
            tenant = rng.choice(tenants)
            facts = mine[tenant]
            n += 1
            new_id = f"{name}-{n}"
            roll = rng.random()
            if not facts or roll < 0.5:
                op = Op(tenant, "fact", new_id)
            elif roll < 0.8:
                op = Op(tenant, "belief", new_id, rng.choice(facts))
            else:
                op = Op(tenant, "supersede", new_id, facts.pop(rng.randrange(len(facts))))
            if await self.send(conn, op) and op.kind != "belief":
                facts.append(new_id)
        conn.close()


def _worker_pids(server: int) -> list[int]:
    """The worker processes of a uvicorn supervisor (its children that serve)."""
    try:
        children = Path(f"/proc/{server}/task/{server}/children").read_text().split()
    except OSError:
        return []
    pids = []
    for pid in map(int, children):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" not in cmdline:
            pids.append(pid)
    return sorted(pids)


def _established(port: int) -> set[str]:
    """Socket inodes of the established TCP connections to ``port`` on this machine."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if int(cols[1].rsplit(":", 1)[1], 16) == port and cols[3] == "01":
                found.add(cols[9])
    return found


def _connections_of(pid: int, inodes: set[str]) -> int:
    """How many of those connections the process holds open."""
    count = 0
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return 0
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            count += 1
    return count


async def _killer(run: _Run, server: int, at: float) -> None:
    """Kill -9 the worker holding the most client connections (the kernel may hand most
    connections to one worker: killing an idle one would test nothing)."""
    await asyncio.sleep(at)
    before = _worker_pids(server)
    if not before:
        run.result.errors.append("no worker process found to kill")
        return
    inodes = _established(run.port)
    held = {pid: _connections_of(pid, inodes) for pid in before}
    victim = max(before, key=lambda pid: held[pid])
    os.kill(victim, signal.SIGKILL)
    run.result.killed.append(victim)
    run.result.killed_connections = held[victim]
    for _ in range(400):
        await asyncio.sleep(0.05)
        now = _worker_pids(server)
        if victim not in now and len(now) >= len(before):
            run.result.restarted = True
            return


async def _shell(command: str) -> int:
    process = await asyncio.create_subprocess_shell(command)
    return await process.wait()


async def _node_killer(run: _Run, at: float, started: float) -> None:
    """Kill a database node (``kill_node``), and after ``node_down`` seconds start it again
    (``restart_node``): the writers of its tenants get 503s meanwhile, the others none."""
    c = run.config
    await asyncio.sleep(at)
    assert c.kill_node is not None
    run.nodes_at_kill = {name: _postmaster_cpu(pid) for name, pid in run.nodes.items()}
    if await _shell(c.kill_node) != 0:
        run.result.errors.append(f"the command that kills a node failed: {c.kill_node}")
        return
    run.result.node_events.append(f"killed at {time.perf_counter() - started:.1f} s")
    if c.restart_node is None:
        return
    await asyncio.sleep(c.node_down)
    if await _shell(c.restart_node) != 0:
        run.result.errors.append(f"the command that restarts the node failed: {c.restart_node}")
        return
    run.result.node_events.append(f"restarted at {time.perf_counter() - started:.1f} s")


async def _drive(run: _Run, server: int) -> None:
    c = run.config
    tenants = [f"t{i:03d}" for i in range(c.tenants)]
    # every tenant's store is created first (a one-time cost, not a revision's), then timed
    warm = [Op(t, "fact", "warm-up") for t in [*tenants, "hot"]]

    async def lane(ops: list[Op]) -> None:  # a connection carries one request at a time
        conn = Connection(run.host, run.port)
        for op in ops:
            await run.send(conn, op)
        conn.close()

    await asyncio.gather(*(lane(warm[i::8]) for i in range(8)))
    run.result.latencies_ms.clear()
    run.result.hot_latencies_ms.clear()
    run.result.warm_up = len(warm)
    run.deadline = time.monotonic() + c.seconds
    started = time.perf_counter()
    tasks = [run.writer(f"x{i}", tenants) for i in range(c.writers)]
    tasks += [run.writer(f"h{i}", ["hot"]) for i in range(c.hot_writers)]
    if c.kill_after is not None:
        tasks.append(_killer(run, server, c.seconds * c.kill_after))
    if c.kill_node is not None:
        tasks.append(_node_killer(run, c.seconds * (c.kill_after or 0.4), started))
    await asyncio.gather(*tasks)
    run.result.duration = time.perf_counter() - started


def _expected(acked: list[Op]) -> tuple[dict[str, bool], dict[str, Truth]]:
    """The states the acknowledged operations leave: active, and truth, by id."""
    active: dict[str, bool] = {}
    premise: dict[str, str] = {}
    for op in acked:
        active[op.new_id] = True
        if op.kind == "supersede" and op.premise is not None:
            active[op.premise] = False
        if op.kind == "belief" and op.premise is not None:
            premise[op.new_id] = op.premise
    truth = {
        sid: Truth.true if (active[premise[sid]] if sid in premise else on) else Truth.false
        for sid, on in active.items()
    }
    return active, truth


def _check_tenant(store: SQLiteStore, acked: list[Op], result: LoadResult) -> None:
    """Compare one tenant's store with what was acknowledged, and replay its log."""
    with Memory(store=store) as mem:
        try:
            entries = mem.verify_log()
        except Exception as exc:
            result.chain_failures += 1
            result.errors.append(f"{store.path}: {exc}")
            return
        result.log_entries += entries
        asserted: dict[str, int] = {}
        with Memory() as replay:
            for entry in mem.store.iter_history():
                if entry.report is None:
                    continue
                for c in entry.report.changed:
                    if c.action == "asserted":
                        asserted[c.id] = asserted.get(c.id, 0) + 1
                again = replay._apply(entry.report.change)  # as applied: the engine's path
                if again.to_json() != entry.report.to_json():
                    result.interleaved += 1
        active, truth = _expected(acked)
        stored = {s.id for s in mem.states()}
        result.lost += len(set(active) - stored)
        result.unexpected += len(stored - set(active))
        twice = sum(n - 1 for n in asserted.values() if n > 1)
        result.duplicated += max(twice, entries - len(acked))
        holding, undefined = mem.holding(), mem.undefined()
        for sid in stored & set(active):
            now = Truth.true if sid in holding else Truth.undefined if sid in undefined else None
            if mem.is_active(sid) != active[sid] or (now or Truth.false) != truth[sid]:
                result.unexpected += 1


def _cpu_of_tree(server: int) -> float:
    """CPU seconds used so far by the server and its live workers (a killed worker's share
    is lost, so this is a lower bound after a kill)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in [server, *_worker_pids(server)]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def _process_cpu(pid: int, waited: bool = False) -> float:
    """CPU seconds of one process (with ``waited``, also those of its children that have
    exited and been waited for); 0 for one that is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    if waited:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _postmaster_cpu(postmaster: int) -> float:
    """CPU seconds used so far by a PostgreSQL server: the postmaster, the backends it has
    reaped (each connection is a process that ends with it), and those still running."""
    try:
        children = Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split()
    except OSError:
        return 0.0
    return _process_cpu(postmaster, waited=True) + sum(_process_cpu(int(c)) for c in children)


def database_nodes(url: str) -> dict[str, int]:
    """The postmaster process of each node of the database at ``url``, by name (``postgres``
    for one server; ``coordinator`` and ``worker host:port`` for Citus), found from a backend's
    parent: only for servers on this machine (empty where ``/proc`` does not show them)."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    def postmaster(conninfo: str) -> int | None:
        try:
            with psycopg.connect(conninfo, autocommit=True) as conn:
                row = conn.execute("SELECT pg_backend_pid()").fetchone()
        except psycopg.OperationalError:
            return None  # a node down
        try:
            status = Path(f"/proc/{row[0] if row else 0}/status").read_text()
        except OSError:
            return None
        ppid = [line.split()[1] for line in status.splitlines() if line.startswith("PPid:")]
        return int(ppid[0]) if ppid else None

    found: dict[str, int | None] = {}
    with psycopg.connect(url, autocommit=True) as conn:
        nodes = _citus_nodes(conn)
    if nodes is None:
        found["postgres"] = postmaster(url)
    else:
        found["coordinator"] = postmaster(url)
        for host, port in nodes[1]:
            found[f"worker {host}:{port}"] = postmaster(make_conninfo(url, host=host, port=port))
    return {name: pid for name, pid in found.items() if pid is not None}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def scratch_database(server: str, prefix: str = "stategraph_load") -> Iterator[str]:
    """A new PostgreSQL database on ``server`` (a ``postgresql://`` URL of a server one may
    create databases on), as a URL, dropped when the block ends.

    On the coordinator of a Citus cluster the new database is a Citus database across the
    same nodes (Citus keeps its cluster's metadata per database): it is created on every node,
    gets the extension on each, and the coordinator adds the workers, so that the store
    distributes its tables there as it would on the cluster's own database.
    """
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"  # a generated name, safe to interpolate
    with psycopg.connect(server, autocommit=True) as conn:
        nodes = _citus_nodes(conn)
        if nodes is not None:
            conn.execute("SET citus.enable_create_database_propagation TO on")
        conn.execute(f"CREATE DATABASE {name}")
    url = server.rsplit("/", 1)[0] + f"/{name}"
    try:
        if nodes is not None:
            _join_citus(url, nodes)
        yield url
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            if nodes is not None:
                conn.execute("SET citus.enable_create_database_propagation TO on")
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def _citus_nodes(conn: Any) -> tuple[tuple[str, int], list[tuple[str, int]]] | None:
    """The coordinator's and the workers' (host, port) of a Citus database; None without
    Citus."""
    from stategraph.store.pgschema import is_citus

    if not is_citus(conn):
        return None
    rows = conn.execute(
        "SELECT nodename, nodeport, groupid FROM pg_dist_node WHERE noderole = 'primary' "
        "ORDER BY groupid, nodeport"
    ).fetchall()
    coordinator = next(
        ((h, int(p)) for h, p, g in rows if g == 0), (conn.info.host, int(conn.info.port))
    )
    return coordinator, [(h, int(p)) for h, p, g in rows if g != 0]


def _join_citus(url: str, nodes: tuple[tuple[str, int], list[tuple[str, int]]]) -> None:
    """Make the new database ``url`` a Citus database over the nodes of the one it was
    created from: the extension on each worker, then on the coordinator, which adds them."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    coordinator, workers = nodes
    for host, port in workers:
        with psycopg.connect(make_conninfo(url, host=host, port=port), autocommit=True) as w:
            w.execute("CREATE EXTENSION IF NOT EXISTS citus")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS citus")
        conn.execute("SELECT citus_set_coordinator_host(%s, %s)", coordinator)
        for host, port in workers:
            conn.execute("SELECT citus_add_node(%s, %s)", (host, port))


def run(config: LoadConfig, folder: Path | None = None, postgres: str | None = None) -> LoadResult:
    """One load run in ``folder`` (a new temporary folder by default) or, given ``postgres``
    (a ``postgresql://`` URL of a server the run may create a database on), in a database of
    its own there, dropped after the run."""
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, " + (
        f"Python {platform.python_version()}"
    )
    result = LoadResult(config=config, machine=machine)
    with (
        tempfile.TemporaryDirectory(prefix="stategraph-load-") as tmp,
        scratch_database(postgres) if postgres else nullcontext() as database,
    ):
        base = folder or Path(tmp)
        store = database or f"sqlite:///{base}/data"
        if database is not None:
            import psycopg

            with psycopg.connect(database, autocommit=True) as conn:
                nodes_ = _citus_nodes(conn)
            result.machine += (
                ", PostgreSQL"
                if nodes_ is None
                else f", Citus (a coordinator and {len(nodes_[1])} workers)"
            )
        tokens_file = base / "tokens.json"
        names = [f"t{i:03d}" for i in range(config.tenants)] + ["hot"]
        tokens = {t: add_token(tokens_file, t) for t in names}
        port = _free_port()
        server = subprocess.Popen(
            [
                *(sys.executable, "-m", "stategraph", "serve", "--store", store),
                *("--tokens", str(tokens_file), "--port", str(port)),
                *("--workers", str(config.workers), "--no-access-log", "--log-level", "error"),
            ],
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        run_ = _Run(port, tokens, config, result)
        try:
            _wait_ready(url, config.workers, server.pid)
            nodes = database_nodes(database) if database is not None else {}
            run_.nodes = nodes
            client_before = resource.getrusage(resource.RUSAGE_SELF)
            server_before = _cpu_of_tree(server.pid)
            nodes_before = {name: _postmaster_cpu(pid) for name, pid in nodes.items()}
            asyncio.run(_drive(run_, server.pid))
            client_after = resource.getrusage(resource.RUSAGE_SELF)
            result.server_cpu = _cpu_of_tree(server.pid) - server_before
            now = database_nodes(database) if database is not None else {}
            for name, pid in nodes.items():
                if now.get(name) == pid:
                    used = _postmaster_cpu(pid) - nodes_before[name]
                else:  # killed (and started again): its use up to the kill, and since
                    used = run_.nodes_at_kill.get(name, 0.0) - nodes_before[name]
                    used += _postmaster_cpu(now[name]) if name in now else 0.0
                result.database_cpu[name] = used
            result.client_cpu = (client_after.ru_utime + client_after.ru_stime) - (
                client_before.ru_utime + client_before.ru_stime
            )
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=60)
        result.acknowledged = len(run_.acked)
        by_tenant: dict[str, list[Op]] = {t: [] for t in names}
        for op in run_.acked:
            by_tenant[op.tenant].append(op)
        for tenant, acked in by_tenant.items():
            try:
                opened = (
                    open_store(database, tenant=tenant, create=False)
                    if database is not None
                    else SQLiteStore(base / "data" / f"{tenant}.db", create=False)
                )
            except StoreNotFoundError:
                result.lost += len(acked)
                continue
            _check_tenant(opened, acked, result)
    return result


def _wait_ready(url: str, workers: int, server: int) -> None:
    with httpx.Client(base_url=url) as c:
        for _ in range(1200):
            try:
                started = c.get("/healthz").status_code == 200
                if started and (workers == 1 or len(_worker_pids(server)) >= workers):
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
    raise RuntimeError("the server did not start")


def main(argv: list[str] | None = None) -> int:
    """``scripts/load_test.py``: run, print the figures, exit 1 on any anomaly."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    d = LoadConfig()
    p.add_argument("--workers", type=int, default=d.workers, help="uvicorn worker processes")
    p.add_argument("--tenants", type=int, default=d.tenants)
    p.add_argument("--writers", type=int, default=d.writers, help="writers across tenants")
    p.add_argument("--hot-writers", type=int, default=d.hot_writers, help="writers on one tenant")
    p.add_argument("--seconds", type=float, default=d.seconds, help="how long to write")
    p.add_argument("--no-kill", action="store_true", help="kill no worker")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument(
        "--kill-node",
        metavar="COMMAND",
        help="a shell command that kills a database node mid-run (a Citus worker: "
        "'bash .ci/citus kill DIR worker1')",
    )
    p.add_argument(
        "--restart-node",
        metavar="COMMAND",
        help="the shell command that starts it again, --node-down seconds later",
    )
    p.add_argument("--node-down", type=float, default=d.node_down, help="seconds the node is down")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--postgres",
        metavar="URL",
        help="serve from PostgreSQL: a server (postgresql://...) the run may create a "
        "database of its own on (dropped after); default: SQLite files",
    )
    args = p.parse_args(argv)
    config = LoadConfig(
        workers=args.workers,
        tenants=args.tenants,
        writers=args.writers,
        hot_writers=args.hot_writers,
        seconds=args.seconds,
        kill_after=None if args.no_kill else d.kill_after,
        seed=args.seed,
        kill_node=args.kill_node,
        restart_node=args.restart_node,
        node_down=args.node_down,
    )
    summary = run(config, postgres=args.postgres).summary()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        a = summary["anomalies"]
        print(f"machine: {summary['machine']}")
        print(
            f"{config.workers} workers, {config.tenants} tenants + 1 hot, {config.writers} "
            f"writers across tenants + {config.hot_writers} on the hot one, {config.seconds:g} s"
        )
        print(
            f"revisions/s: {summary['revisions_per_second']}  p50: {summary['p50_ms']} ms  "
            f"p99: {summary['p99_ms']} ms  (acknowledged {summary['acknowledged']}, "
            f"late {summary['acknowledged_late']}, resent {summary['resent']}, "
            f"busy retries {summary['busy_retries']}, node unavailable "
            f"{summary['node_unavailable_answers']})"
        )
        print(
            f"hot tenant: p50 {summary['hot_tenant_p50_ms']} ms, p99 "
            f"{summary['hot_tenant_p99_ms']} ms; CPU seconds: {summary['cpu_seconds']}"
        )
        print(
            f"killed workers: {summary['killed_workers']}, holding "
            f"{summary['killed_worker_connections']} connections (restarted: "
            f"{summary['worker_restarted']}); log entries checked: {summary['log_entries']}"
        )
        if summary["node_events"]:
            print("database node: " + ", ".join(summary["node_events"]))
        print("anomalies: " + ", ".join(f"{k} {v}" for k, v in a.items()))
        for line in summary["first_errors"]:
            print(f"  {line}")
    return 0 if sum(summary["anomalies"].values()) == 0 else 1
