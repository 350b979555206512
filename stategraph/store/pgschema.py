"""The PostgreSQL schema of the store, and its versioned migrations.

The tables are the SQLite store's (:mod:`stategraph.store`, :mod:`stategraph.text.atom_index`,
:mod:`stategraph.store.review_queue`), shared by every tenant, with the tenant id leading
every primary key and every index. That is what a distributed PostgreSQL (Citus) needs to
shard the schema by
tenant unchanged: distribute every table on ``tenant``, and each statement, which always names
one tenant (:mod:`stategraph.store.pgdialect`), runs on the one node that holds it; joins are on
keys that include the tenant, so they stay on that node too. ``stategraph_schema`` alone has no
tenant: one row per database, the schema's version (a Citus reference table).

Every key column is ``COLLATE "C"``: rows come back in code point order, as Python sorts and
SQLite's BINARY collation compares, whatever the database's locale (ids are sorted for
determinism, and ``link_watches`` is read by key range).

A migration is a list of statements applied in one transaction under an advisory lock, so
that servers starting together migrate once; the version is recorded in the same
transaction. A database of a newer version is refused, never misread.

On a database with the ``citus`` extension the schema is distributed when it is created or
migrated, in the same transaction (:func:`distribute`): ``stategraph_schema`` becomes a reference
table, every other table is distributed on ``tenant`` and colocated with ``tenants``, so all of
one tenant's rows live in one shard group on one worker. A database that got the extension after
its tables were made is distributed the next time a store opens it (Citus moves the rows).
"""

from __future__ import annotations

from typing import Any

import psycopg

from stategraph.errors import StoreError

__all__ = [
    "MIGRATIONS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "TENANT_TABLES",
    "distribute",
    "ensure_schema",
    "is_citus",
    "schema_version",
]

SCHEMA = "stategraph"
"""The PostgreSQL schema (namespace) the tables live in; the connection's ``search_path``."""

_T = 'tenant text COLLATE "C" NOT NULL'
_ID = 'text COLLATE "C" NOT NULL'

_V1 = [
    f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}",
    f"""CREATE TABLE {SCHEMA}.stategraph_schema (
        one boolean PRIMARY KEY DEFAULT TRUE CHECK (one),
        version integer NOT NULL
    )""",
    f"""CREATE TABLE {SCHEMA}.tenants (
        {_T},
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant)
    )""",
    f"CREATE TABLE {SCHEMA}.meta ({_T}, key {_ID}, value text NOT NULL, PRIMARY KEY (tenant, key))",
    f"""CREATE TABLE {SCHEMA}.states (
        {_T},
        id {_ID},
        kind text NOT NULL,
        status text,
        active integer NOT NULL,
        superseded_by text,
        truth text NOT NULL,
        has_atoms integer NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (tenant, id)
    )""",
    f"CREATE INDEX states_with_atoms ON {SCHEMA}.states (tenant, id) WHERE has_atoms = 1",
    f"CREATE INDEX states_undefined ON {SCHEMA}.states (tenant, id) WHERE truth = 'undefined'",
    # The identity of a justification is (head, premises, unless); premises and unless are
    # JSON arrays that may be longer than a B-tree entry allows, so the key holds their digest.
    f"""CREATE TABLE {SCHEMA}.justifications (
        {_T},
        head {_ID},
        premises text NOT NULL,
        unless text NOT NULL,
        origin text NOT NULL,
        extra text NOT NULL,
        ident text COLLATE "C" GENERATED ALWAYS AS (md5(premises) || md5(unless)) STORED,
        PRIMARY KEY (tenant, head, ident)
    )""",
    f"""CREATE TABLE {SCHEMA}.edges (
        {_T}, src {_ID}, head {_ID}, follow integer NOT NULL,
        PRIMARY KEY (tenant, src, head)
    )""",
    f"""CREATE TABLE {SCHEMA}.docs (
        {_T}, seq bigint NOT NULL, state_id {_ID}, size integer NOT NULL,
        kind text COLLATE "C" NOT NULL DEFAULT '',
        PRIMARY KEY (tenant, seq)
    )""",
    f"CREATE INDEX docs_by_kind ON {SCHEMA}.docs (tenant, kind, seq)",
    f"""CREATE TABLE {SCHEMA}.terms (
        {_T}, term {_ID}, doc bigint NOT NULL, PRIMARY KEY (tenant, term, doc)
    )""",
    f"""CREATE TABLE {SCHEMA}.term_df (
        {_T}, term {_ID}, df integer NOT NULL, PRIMARY KEY (tenant, term)
    )""",
    f"""CREATE TABLE {SCHEMA}.revisions (
        {_T},
        seq bigint NOT NULL,
        at text NOT NULL,
        change bytea NOT NULL,
        report bytea NOT NULL,
        config text NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        calls bytea NOT NULL,
        PRIMARY KEY (tenant, seq)
    )""",
    f"""CREATE TABLE {SCHEMA}.judge_cache (
        {_T}, key {_ID}, call text NOT NULL, PRIMARY KEY (tenant, key)
    )""",
    f"""CREATE TABLE {SCHEMA}.atoms (
        {_T}, atom {_ID}, state_id {_ID}, PRIMARY KEY (tenant, atom, state_id)
    )""",
    f"CREATE INDEX atoms_by_state ON {SCHEMA}.atoms (tenant, state_id)",
    f"""CREATE TABLE {SCHEMA}.atom_keys (
        {_T}, key {_ID}, atom {_ID}, PRIMARY KEY (tenant, key, atom)
    )""",
    f"""CREATE TABLE {SCHEMA}.input_dates (
        {_T}, predicate {_ID}, date {_ID}, PRIMARY KEY (tenant, predicate, date)
    )""",
    f"CREATE INDEX input_dates_by_date ON {SCHEMA}.input_dates (tenant, date)",
    f"""CREATE TABLE {SCHEMA}.link_watches (
        {_T}, key {_ID}, head {_ID}, PRIMARY KEY (tenant, key, head)
    )""",
    f"CREATE INDEX link_watches_by_head ON {SCHEMA}.link_watches (tenant, head)",
    f"""CREATE TABLE {SCHEMA}.review_queue (
        {_T}, id {_ID}, seq bigint NOT NULL, entry text NOT NULL, PRIMARY KEY (tenant, id)
    )""",
]

_V2 = [
    # issue 23: linked memories grouped by their atoms, watches kept per group
    f"""CREATE TABLE {SCHEMA}.link_groups (
        {_T}, grp {_ID}, head {_ID}, PRIMARY KEY (tenant, grp, head)
    )""",
    f"""CREATE TABLE {SCHEMA}.group_watches (
        {_T}, key {_ID}, grp {_ID}, PRIMARY KEY (tenant, key, grp)
    )""",
]

_V3 = [
    # issue 25: recall's full-text index (stategraph.text.fulltext), tokenised in Python
    f"""CREATE TABLE {SCHEMA}.recall_docs (
        {_T}, id {_ID}, body tsvector NOT NULL, PRIMARY KEY (tenant, id)
    )""",
    # btree_gin (a contrib extension, trusted since PostgreSQL 13) lets the GIN index lead
    # with the tenant, as every index here does (Citus shards by it)
    "CREATE EXTENSION IF NOT EXISTS btree_gin",
    f"CREATE INDEX recall_docs_body ON {SCHEMA}.recall_docs USING GIN (tenant, body)",
]

_V4 = [
    # issue 25: the versions revisions replaced (stategraph.store.past), for Memory.as_of
    f"""CREATE TABLE {SCHEMA}.states_past (
        {_T}, id {_ID}, until bigint NOT NULL, active integer, superseded_by text, truth text,
        PRIMARY KEY (tenant, id, until)
    )""",
    f"CREATE INDEX states_past_until ON {SCHEMA}.states_past (tenant, until)",
    f"""CREATE TABLE {SCHEMA}.justifications_past (
        {_T},
        head {_ID},
        premises text NOT NULL,
        unless text NOT NULL,
        until bigint NOT NULL,
        origin text,
        extra text,
        ident text COLLATE "C" GENERATED ALWAYS AS (md5(premises) || md5(unless)) STORED,
        PRIMARY KEY (tenant, head, ident, until)
    )""",
    f"""CREATE TABLE {SCHEMA}.review_past (
        {_T}, id {_ID}, until bigint NOT NULL, seq bigint, entry text,
        PRIMARY KEY (tenant, id, until)
    )""",
    f"CREATE INDEX review_past_until ON {SCHEMA}.review_past (tenant, until)",
    # the tenants written before: their past is kept from their head on
    f"""INSERT INTO {SCHEMA}.meta (tenant, key, value)
        SELECT tenant, 'past:since', max(seq)::text FROM {SCHEMA}.revisions GROUP BY tenant
        ON CONFLICT (tenant, key) DO NOTHING""",
]

_EMBEDDING_CACHE = [
    # issue 25: recall's embedding rerank caches each memory's vector per model
    # (stategraph.store.vectors); a step of its own, whatever number it lands on
    f"""CREATE TABLE {SCHEMA}.embedding_cache (
        {_T}, model {_ID}, id {_ID}, hash {_ID}, vector bytea NOT NULL,
        PRIMARY KEY (tenant, model, id, hash)
    )""",
]

_ATOM_NODES = [
    # issue 40: rule links through atom nodes; the atom index keeps the demanded atoms and
    # their watches, and a tenant linked memory to memory is relinked at its next change
    f"""CREATE TABLE {SCHEMA}.link_atoms (
        {_T}, atom {_ID}, PRIMARY KEY (tenant, atom)
    )""",
    f"""CREATE TABLE {SCHEMA}.atom_watches (
        {_T}, key {_ID}, atom {_ID}, PRIMARY KEY (tenant, key, atom)
    )""",
    f"CREATE INDEX atom_watches_by_atom ON {SCHEMA}.atom_watches (tenant, atom)",
    f"DROP TABLE IF EXISTS {SCHEMA}.link_groups",
    f"DROP TABLE IF EXISTS {SCHEMA}.group_watches",
    f"DELETE FROM {SCHEMA}.meta WHERE key = 'setting:link_groups'",
]
"""Version 7: rule links through atom nodes (issue 40)."""

_SESSIONS = [
    f'ALTER TABLE {SCHEMA}.docs ADD COLUMN session text COLLATE "C"',
    f"CREATE INDEX docs_by_session ON {SCHEMA}.docs (tenant, session, kind, seq) "
    "WHERE session IS NOT NULL",
]
"""Version 6: the session each indexed memory was written in (``State.session``; NULL for
those written before), and the index candidate proposal reads a session's memories by."""

MIGRATIONS: dict[int, list[str]] = {
    1: _V1,
    2: _V2,
    3: _V3,
    4: _V4,
    5: _EMBEDDING_CACHE,
    6: _SESSIONS,
    7: _ATOM_NODES,
}
"""The statements that bring a database from the version before to this one."""

SCHEMA_VERSION = max(MIGRATIONS)
"""The version this stategraph writes and reads."""

TENANT_TABLES = (
    "states",
    "justifications",
    "edges",
    "docs",
    "terms",
    "term_df",
    "revisions",
    "judge_cache",
    "atoms",
    "atom_keys",
    "input_dates",
    "link_watches",
    "link_atoms",
    "atom_watches",
    "review_queue",
    "recall_docs",
    "states_past",
    "justifications_past",
    "review_past",
    "embedding_cache",
    "meta",
    "tenants",
)
"""Every table that holds tenants' rows (all but ``stategraph_schema``)."""

_LOCK = 0x53744772  # "StGr": the advisory lock key of migrations (one per database)


def schema_version(conn: psycopg.Connection[Any]) -> int | None:
    """The database's schema version, or None if stategraph has never written to it."""
    found = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.stategraph_schema",)).fetchone()
    if found is None or found[0] is None:
        return None
    row = conn.execute(f"SELECT version FROM {SCHEMA}.stategraph_schema").fetchone()
    return None if row is None else int(row[0])


def ensure_schema(conn: psycopg.Connection[Any], where: str, create: bool = True) -> int:
    """Bring the database to :data:`SCHEMA_VERSION` (only reads when it is there already).

    Args:
        conn: a connection in autocommit mode.
        where: how errors name the database.
        create: create the schema in a database that has none (False: refuse).

    Returns:
        The version the database now has.

    Raises:
        StoreError: the database has a newer schema, or none and ``create`` is False.
    """
    version = schema_version(conn)
    if version == SCHEMA_VERSION and not _undistributed(conn):
        return version
    _check(version, where, create)
    # A session lock taken before the transaction, not a transaction lock inside it: a
    # transaction that began before another process created the tables would not see them
    # (its catalog cache is refreshed when it begins, not after an advisory lock's wait).
    conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
    try:
        with conn.transaction():
            version = schema_version(conn)  # another process may have migrated meanwhile
            _check(version, where, create)
            for step in range((version or 0) + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[step]:
                    conn.execute(statement)  # DDL of constants only
            distribute(conn)
            conn.execute(
                f"INSERT INTO {SCHEMA}.stategraph_schema (one, version) VALUES (TRUE, %s) "
                "ON CONFLICT (one) DO UPDATE SET version = excluded.version",
                (SCHEMA_VERSION,),
            )
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
    return SCHEMA_VERSION


def is_citus(conn: psycopg.Connection[Any]) -> bool:
    """Whether the database has the Citus extension (a distributed PostgreSQL)."""
    row = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone()
    return row is not None


def _undistributed(conn: psycopg.Connection[Any]) -> list[str]:
    """The store's tables a Citus database has not distributed yet (none without Citus)."""
    if not is_citus(conn):
        return []
    # ``tenants`` first: the others are colocated with it.
    tables = ("stategraph_schema", "tenants", *(t for t in TENANT_TABLES if t != "tenants"))
    found = conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_dist_partition p ON p.logicalrelid = c.oid "
        "WHERE n.nspname = %s AND c.relname = ANY(%s)",
        (SCHEMA, list(tables)),
    ).fetchall()
    done = {r[0] for r in found}
    return [t for t in tables if t not in done]


def distribute(conn: psycopg.Connection[Any]) -> list[str]:
    """Distribute the store's tables on a Citus database (nothing without Citus).

    ``stategraph_schema`` becomes a reference table (a copy on every node); every other table
    is distributed on ``tenant`` and colocated with ``tenants``, so that a statement naming
    one tenant is a router query that runs on the one worker holding the tenant, and a join
    on keys that include the tenant stays there too. Tables already distributed are left as
    they are, so this may run again after a migration adds tables.

    Args:
        conn: a connection to the coordinator; the caller holds the migration lock.

    Returns:
        The tables distributed now.
    """
    missing = _undistributed(conn)
    if not missing:
        return []
    # DDL on shards after other statements in the same transaction: Citus needs one
    # connection per worker for all of it, or it refuses the transaction.
    conn.execute("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'")
    for table in missing:
        name = f"{SCHEMA}.{table}"
        if table == "stategraph_schema":
            conn.execute("SELECT create_reference_table(%s)", (name,))
        elif table == "tenants":
            conn.execute("SELECT create_distributed_table(%s, 'tenant')", (name,))
        else:
            conn.execute(
                "SELECT create_distributed_table(%s, 'tenant', colocate_with => %s)",
                (name, f"{SCHEMA}.tenants"),
            )
    return missing


def _check(version: int | None, where: str, create: bool) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            where,
            f"schema version {version}, this stategraph reads version {SCHEMA_VERSION}: "
            "upgrade stategraph",
            version=version,
        )
    if version is None and not create:
        raise StoreError(where, "holds no stategraph store (nothing was changed)")
