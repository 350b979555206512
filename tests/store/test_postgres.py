"""What the PostgreSQL backend promises beyond the shared store tests: tenants that cannot see
or change each other, a tenant's writes in turn and other tenants' in parallel, one hash chain
per tenant, keys that lead with the tenant, and versioned schemas.

Every test here needs the server ``STATEGRAPH_TEST_POSTGRES`` names (``tests/backends.py``), and
runs again on the Citus coordinator ``STATEGRAPH_TEST_CITUS`` names (``[citus]``).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from backends import POSTGRES_ENV, Place, citus_url, fresh_tenant, make_place, postgres_url

from stategraph import Change, Memory, Truth
from stategraph.errors import (
    ConcurrentChangeError,
    LogIntegrityError,
    StoreBusyError,
    StoreError,
    StoreNotFoundError,
    StoreUnavailableError,
    TamperedStoreError,
)
from stategraph.store.open import open_store
from stategraph.store.pgschema import SCHEMA_VERSION

pytestmark = pytest.mark.usefixtures("_server")


@pytest.fixture(params=["postgres", "citus"])
def _server(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test on the PostgreSQL server, then on the Citus coordinator (its tables distributed
    by tenant), which must keep the same promises."""
    if request.param == "citus":
        monkeypatch.setenv(POSTGRES_ENV, citus_url())
    postgres_url()


@pytest.fixture
def place(tmp_path: Path) -> Iterator[Place]:
    """A fresh tenant (this module's tests are PostgreSQL's only)."""
    found = make_place("postgres", tmp_path)
    try:
        yield found
    finally:
        found.drop()


@pytest.fixture
def two() -> Iterator[tuple[Place, Place]]:
    """Two tenants of the same database."""
    url = postgres_url()
    a, b = fresh_tenant("alice"), fresh_tenant("bob")
    places = (Place("postgres", f"{url}?tenant={a}", a), Place("postgres", f"{url}?tenant={b}", b))
    try:
        yield places
    finally:
        for p in places:
            p.drop()


def _pg() -> Any:
    import psycopg

    return psycopg.connect(postgres_url(), autocommit=True)


def _scenario(mem: Memory) -> None:
    """Every kind of write: states, a cascade, a bulk load, candidates and the term index,
    a review, settings, rule-pack atoms."""
    mem.fact("m1", "The user moves from Shanghai to Shenzhen in December 2026")
    mem.belief("m2", "commute in Shenzhen", because=["m1"])
    mem.action("m3", "cancel broadband before the move", because=["m1"], status="pending")
    mem.plan("m5", "weekend activities in Shenzhen", context=["m1"])
    mem.bulk_load(
        [{"id": "hub", "kind": "fact"}, *({"id": f"b{i}", "kind": "belief"} for i in range(20))],
        [{"head": f"b{i}", "premises": ["hub"]} for i in range(20)],
    )
    mem.supersede("m1", {"id": "m1b", "text": "The user stays in Shanghai"})
    mem.store.set_setting("note", {"owner": "this tenant"})


def in_threads(work: Callable[[int], None], n: int) -> list[BaseException]:
    """Run ``work(0)`` ... ``work(n - 1)`` in ``n`` threads at once; what they raised."""
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            work(k)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_every_key_and_index_leads_with_the_tenant(place: Place) -> None:
    """What a database sharded by tenant (Citus) needs to take the schema unchanged."""
    place.open().close()  # the schema exists (this test may be the first to reach the server)
    with _pg() as conn:
        rows = conn.execute(
            "SELECT t.relname, i.relname, a.attname FROM pg_index x "
            "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid "
            "JOIN pg_namespace n ON n.oid = t.relnamespace "
            "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0] "
            "WHERE n.nspname = 'stategraph'"
        ).fetchall()
        primary = conn.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'stategraph' AND c.relkind = 'r' AND NOT EXISTS ("
            "SELECT 1 FROM pg_index x WHERE x.indrelid = c.oid AND x.indisprimary)"
        ).fetchall()
    assert primary == []  # every table has a primary key
    assert len(rows) >= 20
    leading = {(table, index): column for table, index, column in rows}
    assert {k: c for k, c in leading.items() if k[0] != "stategraph_schema"} == {
        k: "tenant" for k in leading if k[0] != "stategraph_schema"
    }


def test_nothing_one_tenant_does_can_be_read_or_changed_by_another(
    two: tuple[Place, Place],
) -> None:
    alice, bob = two
    with Memory(bob.url) as mem:
        mem.fact("m1", "Bob's own m1: likes tea")
        mem.belief("m2", "Bob's tea shop", because=["m1"])
    bob_before = bob.dump()
    with Memory(bob.url) as mem:
        bob_head = mem.store.head()

    with Memory(alice.url, rules="all") as mem:
        _scenario(mem)
        pending = mem.pending_review()
        assert pending, "the scenario leaves something for review"
        mem.confirm(pending[0].id, by="alice", note="checked")
        assert mem.store.verify() >= 7
    # alice wrote the same ids bob has, and many more: bob's rows are as they were
    assert bob.dump() == bob_before
    with Memory(bob.url) as mem:
        assert mem.holding() == {"m1", "m2"}
        assert {s.id for s in mem.states()} == {"m1", "m2"}
        assert mem.state("m1").text == "Bob's own m1: likes tea"
        assert mem.store.head() == bob_head and mem.verify_log() == 2
        assert [e.seq for e in mem.history()] == [1, 2]
        assert mem.pending_review() == []
        assert mem.store.get_setting("note") is None and mem.rules == ()
        assert mem.store.doc_count() == 2
        assert mem.store.postings("g:shenzhen", 10) == []
        assert mem.store.justifications("b1") == []
        assert mem.store.ids_with_truth(Truth.true) == frozenset({"m1", "m2"})
        assert mem.store.heads_citing(["hub", "m1b"]) == set()
        assert mem.store.cached_calls(["anything"]) == {}

    # a tampered log of one tenant refuses that tenant's writes only
    report = alice.log_row(2)["report"]
    alice.update_log(2, report=report.replace("m2", "mX"))
    with Memory(alice.url) as mem, pytest.raises(LogIntegrityError):
        mem.verify_log()
    with Memory(alice.url) as mem, pytest.raises(TamperedStoreError):
        mem.fact("x")
    with Memory(bob.url) as mem:
        mem.fact("m9")
        assert mem.verify_log() == 3


def test_a_reader_never_creates_a_tenant() -> None:
    tenant = fresh_tenant("nobody")
    with pytest.raises(StoreNotFoundError):
        open_store(postgres_url(), tenant=tenant, create=False)
    with _pg() as conn:
        found = conn.execute("SELECT 1 FROM stategraph.tenants WHERE tenant = %s", (tenant,))
        assert found.fetchone() is None


def test_a_tenants_writers_take_turns_and_its_chain_stays_one_line(place: Place) -> None:
    """Eight threads, each with its own connection, write to one tenant at once: every write
    is there once, and the log is one chain with an entry per write."""

    def writer(k: int) -> None:
        with Memory(place.url) as mem:
            for i in range(6):
                mem.fact(f"w{k}-{i}")
                mem.belief(f"b{k}-{i}", because=[f"w{k}-{i}"])

    assert in_threads(writer, 8) == []
    with Memory(place.url) as mem:
        assert mem.verify_log() == 8 * 12
        assert len(mem.holding()) == 8 * 12
        assert [e.seq for e in mem.history()] == list(range(1, 8 * 12 + 1))


def test_other_tenants_write_while_one_tenant_is_locked(two: tuple[Place, Place]) -> None:
    """A long transaction of alice's holds alice's turn: bob writes meanwhile, and a writer
    of alice's waits at most its busy timeout, then says busy, having written nothing."""
    alice, bob = two
    Memory(alice.url).close()
    Memory(bob.url).close()
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with Memory(alice.url) as mem, mem.atomic():
            mem.fact("held")
            holding.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(30)
        start = time.monotonic()
        with Memory(bob.url) as mem:
            for i in range(5):
                mem.fact(f"f{i}")
        assert time.monotonic() - start < 5
        waiting = Memory(store=open_store(alice.url, busy_timeout=0.2))
        with pytest.raises(StoreBusyError):
            waiting.fact("late")
        waiting.close()
    finally:
        release.set()
        holder.join()
    with Memory(alice.url) as mem:
        assert {s.id for s in mem.states()} == {"held"}
        assert mem.verify_log() == 1
    with Memory(bob.url) as mem:
        assert mem.verify_log() == 5


def test_the_optimistic_head_check_works_across_connections(place: Place) -> None:
    """A commit checks, under the tenant's lock, that the head it computed from is still the
    head; Memory.revise recomputes when another connection committed in between."""
    with place.memory() as first, place.memory() as second:
        first.fact("a")
        head = first.store.head()
        second.fact("b")  # another connection commits
        assert first.store.head() != head
        with pytest.raises(ConcurrentChangeError):
            first._revise(  # one attempt, as revise makes it
                Change.model_validate({"assert": [{"id": "c", "kind": "fact"}]}), None, head
            )
        assert "c" not in {s.id for s in first.states()}
        assert first.belief("d", because=["a", "b"]).changed[0].id == "d"
        assert first.holding() == {"a", "b", "d"} and first.verify_log() == 3


@pytest.fixture
def database() -> Iterator[str]:
    """A database of its own, for schema versions."""
    name = f"sg_{uuid.uuid4().hex[:10]}"
    with _pg() as conn:
        conn.execute(f"CREATE DATABASE {name}")  # a generated name, no input
    base = postgres_url()
    url = base.rsplit("/", 1)[0] + f"/{name}"
    try:
        yield url
    finally:
        with _pg() as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_a_version_1_database_is_migrated_to_atom_nodes_and_links(database: str) -> None:
    import psycopg

    from stategraph.grounding.packs import list_packs
    from stategraph.store.pgschema import MIGRATIONS

    with psycopg.connect(database, autocommit=True) as conn:
        for statement in MIGRATIONS[1]:
            conn.execute(statement)
        conn.execute("INSERT INTO stategraph.stategraph_schema (one, version) VALUES (TRUE, 1)")
    with Memory(database + "?tenant=t1", rules=list_packs(), candidates=None) as mem:
        mem.add({"id": "f", "kind": "fact", "atoms": ['moves(user,beijing,shenzhen,"2026-12")']})
        mem.add({"id": "b", "kind": "belief", "atoms": ["commute_city(user,shenzhen)"]})
        mem.add({"id": "g", "kind": "fact", "atoms": ['moves(user,shanghai,shenzhen,"2027-01")']})
        assert {j.premises for j in mem.justifications("b")} == {
            ("rule:commute_city(user,shenzhen)",)
        }
        assert len(mem.justifications("rule:home_city(user,shenzhen)")) == 2
    with psycopg.connect(database, autocommit=True) as conn:
        (version,) = conn.execute("SELECT version FROM stategraph.stategraph_schema").fetchone()
        assert version == SCHEMA_VERSION


def test_a_version_3_database_gets_the_embedding_cache(database: str) -> None:
    import psycopg

    from stategraph.store.pgschema import MIGRATIONS

    with psycopg.connect(database, autocommit=True) as conn:
        for step in (1, 2, 3):
            for statement in MIGRATIONS[step]:
                conn.execute(statement)
        conn.execute("INSERT INTO stategraph.stategraph_schema (one, version) VALUES (TRUE, 3)")
    with Memory(database + "?tenant=t1") as mem:
        mem.fact("a", "the user drinks tea")
        assert [r.id for r in mem.recall("tea")] == ["a"]
    with psycopg.connect(database, autocommit=True) as conn:
        (version,) = conn.execute("SELECT version FROM stategraph.stategraph_schema").fetchone()
        assert version == SCHEMA_VERSION
        found = conn.execute("SELECT to_regclass('stategraph.embedding_cache')").fetchone()
        assert found is not None and found[0] is not None


def test_schemas_are_versioned_and_a_newer_one_is_refused(database: str) -> None:
    import psycopg

    with pytest.raises(StoreError, match="holds no stategraph store"):
        open_store(database, create=False)
    with Memory(database + "?tenant=t1") as mem:
        mem.fact("a")
    with psycopg.connect(database, autocommit=True) as conn:
        (version,) = conn.execute("SELECT version FROM stategraph.stategraph_schema").fetchone()
        assert version == SCHEMA_VERSION
        conn.execute("UPDATE stategraph.stategraph_schema SET version = 99")
    with pytest.raises(StoreError, match="schema version 99"):
        open_store(database + "?tenant=t1")


def test_servers_starting_together_create_the_schema_once(database: str) -> None:
    def start(k: int) -> None:
        with Memory(f"{database}?tenant=t{k}") as mem:
            mem.fact("a")

    assert in_threads(start, 4) == []


def test_a_connection_the_server_drops_is_unavailable_not_damage(place: Place) -> None:
    """A server that goes away (here: it ends the store's session) is StoreUnavailableError,
    the error to retry after, not a StoreError that reads like a broken store; nothing of the
    revision is written (before: StoreError "PostgreSQL: terminating connection ...")."""
    mem = place.memory()
    mem.fact("m1", "The user likes tea")
    with _pg() as admin:
        admin.execute("SELECT pg_terminate_backend(%s::int)", (mem.store.pg.info.backend_pid,))
    with pytest.raises(StoreUnavailableError, match="cannot be reached") as err:
        mem.fact("m2", "The user likes coffee")
    assert "127.0.0.1" not in str(err.value).split(": ", 1)[1]  # no host beyond the store's URL
    mem.close()
    with place.memory() as again:
        assert again.verify_log(deep=True) == 1
        assert [s.id for s in again.states()] == ["m1"]


def test_a_statement_without_a_postgres_form_is_refused(place: Place) -> None:
    store = place.open()
    with pytest.raises(StoreError, match="no PostgreSQL form"):
        store.conn.execute("SELECT * FROM states")
    store.close()


def test_a_hub_report_is_stored_compressed_and_long_keys_fit(place: Place) -> None:
    premises = [f"premise-{'x' * 60}-{i}" for i in range(200)]  # a key of 14 kB
    with Memory(place.url) as mem:
        mem.bulk_load(
            [
                {"id": "hub", "kind": "fact"},
                *({"id": f"b{i}", "kind": "belief"} for i in range(500)),
            ],
            [{"head": f"b{i}", "premises": ["hub"]} for i in range(500)],
        )
        for p in premises:
            mem.fact(p)
        mem.belief("many", because=[premises])
        report = mem.retract("hub")
        assert len(report.invalidated) == 500
        assert mem.retract(premises[0]).invalidated == ["many"]
        assert mem.verify_log() == 2 + len(premises) + 2
    stored = place.log_row(2 + len(premises) + 1)["report"]
    assert isinstance(stored, bytes) and stored[0] == 0x01


def test_the_command_line_takes_a_tenants_url(
    place: Place, capsys: pytest.CaptureFixture[str]
) -> None:
    from stategraph.cli.main import main

    url = place.url
    assert main(["add", url, "--id", "m1", "--text", "moves to Shenzhen"]) == 0
    assert main(["add", url, "--id", "m2", "--kind", "belief", "--because", "m1"]) == 0
    assert main(["revise", url, "--retract", "m1"]) == 0
    capsys.readouterr()
    assert main(["history", url, "--verify"]) == 0
    assert "log verified: 3 entries" in capsys.readouterr().out
    missing = f"{postgres_url()}?tenant={fresh_tenant('none')}"
    assert main(["show", missing]) == 3  # a reader creates no tenant
