"""The PostgreSQL store on a real Citus cluster: the schema distributed by tenant, one tenant's
rows on one worker, and every statement of a tenant's work a router query.

Every test here needs the coordinator ``STATEGRAPH_TEST_CITUS`` names (``tests/backends.py``;
``bash .ci/citus build && bash .ci/citus start DIR`` prints it). The store tests that run on every
backend also run on Citus where their module is marked ``citus``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from backends import Place, citus_url, make_place

from stategraph import Memory
from stategraph.importing import import_memories
from stategraph.store.pgschema import SCHEMA, TENANT_TABLES

FAN_OUT = "-c citus.multi_task_query_log_level=error"
"""libpq options under which Citus refuses any statement that runs on more than one shard."""


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    """A fresh tenant on the Citus coordinator."""
    monkeypatch.setenv("STATEGRAPH_TEST_POSTGRES", citus_url())
    found = make_place("postgres", tmp_path)
    try:
        yield found
    finally:
        found.drop()


def _coordinator() -> psycopg.Connection[Any]:
    return psycopg.connect(citus_url(), autocommit=True)


def _scenario(mem: Memory) -> None:
    """A tenant's every kind of write: states, a cascade, a bulk load, links and candidates, a
    review, a setting."""
    mem.fact("m1", "The user moves from Shanghai to Shenzhen in December 2026")
    mem.belief("m2", "commute in Shenzhen", because=["m1"])
    mem.action("m3", "cancel broadband before the move", because=["m1"], status="pending")
    mem.plan("m5", "weekend activities in Shenzhen", context=["m1"])
    mem.bulk_load(
        [{"id": "hub", "kind": "fact"}, *({"id": f"b{i}", "kind": "belief"} for i in range(5))],
        [{"head": f"b{i}", "premises": ["hub"]} for i in range(5)],
    )
    mem.supersede("m1", {"id": "m1b", "text": "The user stays in Shanghai"})
    mem.store.set_setting("note", {"owner": "this tenant"})


def test_every_table_is_distributed_by_tenant_and_colocated(place: Place) -> None:
    place.open().close()  # the schema exists, distributed (this may be the first store here)
    with _coordinator() as conn:
        rows = conn.execute(
            "SELECT c.relname, p.partmethod, p.repmodel, p.colocationid, "
            "column_to_column_name(p.logicalrelid, p.partkey) "
            "FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s",
            (SCHEMA,),
        ).fetchall()
    found = {r[0]: r[1:] for r in rows}
    assert set(found) == {"stategraph_schema", *TENANT_TABLES}
    method, model, _, _ = found["stategraph_schema"]
    assert (method, model) == ("n", "t")  # a reference table: a copy on every node
    tenant_tables = {t: found[t] for t in TENANT_TABLES}
    assert {t: (m, col) for t, (m, _, _, col) in tenant_tables.items()} == {
        t: ("h", "tenant") for t in TENANT_TABLES
    }
    assert len({colocation for _, _, colocation, _ in tenant_tables.values()}) == 1


def test_a_table_left_local_is_distributed_when_a_store_opens(place: Place) -> None:
    """As on a database that got Citus after its tables were made: a store distributes what
    is not distributed yet, rows and all, before it reads or writes."""
    with place.memory() as mem:
        mem.fact("m1", "The user likes tea")
    table = f"{SCHEMA}.review_queue"
    with _coordinator() as conn:
        conn.execute("SELECT undistribute_table(%s)", (table,))
        conn.execute(
            f"INSERT INTO {table} (tenant, id, seq, entry) VALUES (%s, 'r1', 1, '{{}}')",
            (place.tenant,),
        )
        assert conn.execute(
            "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = %s::regclass", (table,)
        ).fetchone() == (0,)
    with place.memory() as mem:
        assert mem.state("m1").id == "m1"
    with _coordinator() as conn:
        colocated = conn.execute(
            "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = %s::regclass "
            "AND colocationid = (SELECT colocationid FROM pg_dist_partition "
            "WHERE logicalrelid = %s::regclass)",
            (table, f"{SCHEMA}.tenants"),
        ).fetchone()
        kept = conn.execute(
            f"SELECT count(*) FROM {table} WHERE tenant = %s", (place.tenant,)
        ).fetchone()
    assert colocated == (1,)  # distributed again, with the tenants
    assert kept == (1,)  # the row moved to the shards


def test_a_tenants_rows_all_live_on_one_worker(place: Place) -> None:
    with place.memory(rules="all") as mem:
        _scenario(mem)
        mem.confirm(mem.pending_review()[0].id, by="alice", note="checked")
    placed: dict[str, tuple[str, int, int]] = {}
    with _coordinator() as conn:
        for table in TENANT_TABLES:
            name = f"{SCHEMA}.{table}"
            shard, host, port = conn.execute(
                "SELECT s.shardid, s.nodename, s.nodeport FROM citus_shards s "
                "WHERE s.shardid = get_shard_id_for_distribution_column(%s, %s::text)",
                (name, place.tenant),
            ).fetchone() or (None, None, None)
            assert shard is not None, table
            placed[table] = (host, port, shard)
        counts = {
            t: conn.execute(
                f"SELECT count(*) FROM {SCHEMA}.{t} WHERE tenant = %s", (place.tenant,)
            ).fetchone()[0]
            for t in TENANT_TABLES
        }
        coordinator_port = conn.info.port
    assert len({(host, port) for host, port, _ in placed.values()}) == 1
    host, port, _ = next(iter(placed.values()))
    assert port != coordinator_port  # on a worker, not kept on the coordinator
    # The worker's own shard tables hold every row the coordinator shows for the tenant.
    worker_url = citus_url().replace(f":{coordinator_port}/", f":{port}/")
    with psycopg.connect(worker_url, autocommit=True) as worker:
        on_worker = {
            t: worker.execute(
                f"SELECT count(*) FROM {SCHEMA}.{t}_{shard} WHERE tenant = %s", (place.tenant,)
            ).fetchone()[0]
            for t, (_, _, shard) in placed.items()
        }
    assert on_worker == counts
    assert counts["states"] > 10 and counts["revisions"] > 5 and counts["tenants"] == 1


def test_a_tenants_work_is_router_queries_only(
    place: Place, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Write, read, verify and import for one tenant on connections where Citus refuses any
    statement that runs on more than one shard: each must name its tenant's one shard group."""
    place.open().close()  # the schema is made (its DDL runs on every shard, as it must)
    with monkeypatch.context() as patched:
        patched.setenv("PGOPTIONS", FAN_OUT)
        # The gate is on: a statement on all shards is refused.
        with _coordinator() as gate, pytest.raises(psycopg.Error, match="multi-task query"):
            gate.execute(f"SELECT count(*) FROM {SCHEMA}.states").fetchone()
        with place.memory(rules="all") as mem:
            _scenario(mem)
            review = mem.pending_review()
            assert review
            mem.confirm(review[0].id, by="alice", note="checked")
            assert mem.state("m2").id == "m2"
            assert mem.why("b0") is not None
            assert mem.why_not("m2") is not None
            assert len(mem.history()) > 5
            assert mem.verify_log(deep=True) > 5
            rows = [
                (f"import:{i}", {"id": f"i{i}", "kind": "fact", "text": f"imported {i}"})
                for i in range(5)
            ]
            assert import_memories(mem, rows, ground_ahead_after=None)["imported"] == 5
        with place.memory() as mem:  # a fresh open reads the tenant back
            assert mem.state("i4").id == "i4"
            assert mem.verify_log() > 5


def test_writers_through_different_nodes_take_turns(place: Place) -> None:
    """Citus lets a client write through a worker as through the coordinator; advisory locks
    are per node, so the tenant's row lock is what makes such writers take turns: no writer
    fails and the chain is one line."""
    place.open().close()
    with _coordinator() as conn:
        coordinator_port = conn.info.port
        (worker_port,) = conn.execute(
            "SELECT nodeport FROM pg_dist_node WHERE groupid <> 0 ORDER BY nodeport LIMIT 1"
        ).fetchone() or (None,)
    through_worker = place.url.replace(f":{coordinator_port}/", f":{worker_port}/")
    errors: list[BaseException] = []

    def write(url: str, k: int) -> None:
        try:
            with Memory(url, busy_timeout=30) as mem:
                for i in range(10):
                    mem.fact(f"w{k}_{i}", f"writer {k}, memory {i}")
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(url, k))
        for k, url in enumerate((place.url, through_worker))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with place.memory() as mem:
        assert mem.store.head()[0] == 20
        assert mem.verify_log(deep=True) == 20
