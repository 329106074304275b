"""Opening, migrating and refusing: clear errors for every way a database can be wrong."""

from __future__ import annotations

import socket

import psycopg
import pytest

from groundsearch.errors import SchemaTooNew, StoreError, StoreUnavailable
from groundsearch.store.pg_migrations import known_migrations, migrate
from groundsearch.store.postgres import PostgresStore


def test_migrate_applies_each_version_once(postgres_database) -> None:
    dsn = postgres_database()
    first = migrate(dsn)
    assert first == [m.name for m in known_migrations()] and first
    assert migrate(dsn) == []
    with psycopg.connect(dsn) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")]
    assert versions == [m.version for m in known_migrations()]


def test_open_refuses_a_newer_schema(postgres_database) -> None:
    dsn = postgres_database()
    migrate(dsn)
    with psycopg.connect(dsn) as conn:
        conn.execute("INSERT INTO schema_version (version, name) VALUES (9999, '9999_from_the_future.sql')")
    with pytest.raises(SchemaTooNew, match="9999"):
        PostgresStore.open(dsn, dim=8)
    with pytest.raises(SchemaTooNew):
        migrate(dsn)


def test_open_without_migrate_on_an_empty_database_says_to_migrate(postgres_database) -> None:
    with pytest.raises(StoreError, match="groundsearch migrate"):
        PostgresStore.open(postgres_database(), dim=8, migrate=False)


def test_missing_vector_extension_names_the_fix(postgres_database) -> None:
    dsn = postgres_database()
    PostgresStore.open(dsn, dim=8).close()
    with psycopg.connect(dsn) as conn:
        conn.execute("DROP EXTENSION vector CASCADE")
    with pytest.raises(StoreUnavailable, match="CREATE EXTENSION vector;"):
        PostgresStore.open(dsn, dim=8, migrate=False)


def test_unreachable_server_is_store_unavailable() -> None:
    with socket.socket() as s:  # a port nothing listens on (bound, never listening)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        dsn = f"postgresql://postgres:secret-password@127.0.0.1:{port}/nowhere"
        with pytest.raises(StoreUnavailable) as info:
            PostgresStore.open(dsn, dim=8)
    assert f"127.0.0.1:{port}/nowhere" in info.value.message
    assert "secret-password" not in info.value.message


def test_dimension_is_fixed_by_the_first_open(postgres_database) -> None:
    dsn = postgres_database()
    PostgresStore.open(dsn, dim=8).close()
    with pytest.raises(StoreError, match="8-d"):
        PostgresStore.open(dsn, dim=16)
    PostgresStore.open(dsn, dim=8).close()


def test_concurrent_first_opens_migrate_once(postgres_database) -> None:
    from concurrent.futures import ThreadPoolExecutor

    dsn = postgres_database()
    with ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(lambda _: PostgresStore.open(dsn, dim=8), range(4)))
    for store in stores:
        store.close()
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == len(known_migrations())


def test_long_field_values_are_stored_and_filterable(postgres_database) -> None:
    """A text field far past a btree entry's size limit (SciFact abstracts) still ingests and filters."""
    from groundsearch.types import Chunk, FieldFilter, Item, ItemWrite, SearchFilter

    store = PostgresStore.open(postgres_database(), dim=8)
    try:
        long_value = "Word " * 2000
        item = Item(id="long", collection="docs", title="t", text="body words", fields={"abstract": long_value})
        store.upsert([ItemWrite(item=item, chunks=(Chunk("long#0", "long", 0, "body words"),), vectors=None)])
        assert store.get("long").fields["abstract"] == long_value
        hit = SearchFilter(fields=(FieldFilter("abstract", (long_value.upper(),)),))
        assert store.count(hit) == 1
        assert store.count(SearchFilter(fields=(FieldFilter("abstract", (long_value[:-1],)),))) == 0
    finally:
        store.close()
