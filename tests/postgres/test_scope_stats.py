"""The per-scope BM25 statistics of the Postgres store (migration 0009) always equal a recount of its tables.

Writers move ``scope_stats`` and ``scope_term_stats`` in the transaction that writes the chunks and postings, so
after any mix of upserts — items moving between tenants and between draft and published — deletes, and a write
that fails half-way and rolls back, they hold exactly what counting the tables again gives (what a rebuild
would give). On main these tables did not exist: BM25 read every tenant's statistics.
"""

from __future__ import annotations

import psycopg
import pytest

from groundsearch.store import postgres as pg_module
from groundsearch.store.postgres import PostgresStore
from groundsearch.types import Chunk, Item, ItemWrite

RECOUNT_SCOPES = """
SELECT i.tenant, CASE WHEN i.status = 'draft' THEN 'draft' ELSE 'public' END, count(*), sum(c.n_terms)
FROM chunks c JOIN items i ON i.id = c.item_id GROUP BY 1, 2 ORDER BY 1, 2"""
RECOUNT_TERMS = """
SELECT i.tenant, CASE WHEN i.status = 'draft' THEN 'draft' ELSE 'public' END, p.term, count(*)
FROM postings p JOIN chunks c ON c.pk = p.chunk_pk JOIN items i ON i.id = c.item_id GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"""


def _item(iid: str, tenant: str, status: str, text: str) -> ItemWrite:
    chunks = tuple(Chunk(f"{iid}#{j}", iid, j, f"{part} {iid}") for j, part in enumerate(text.split("|")))
    return ItemWrite(Item(id=iid, collection="docs", title=f"T {iid}", text=text, tenant=tenant, status=status,
                          content_hash=f"{iid}{status}{tenant}{text}"), chunks, None)


def _stored(dsn: str) -> tuple[list[tuple], list[tuple]]:
    with psycopg.connect(dsn) as conn:
        scopes = conn.execute("SELECT tenant, visibility, n_chunks, n_terms FROM scope_stats WHERE n_chunks <> 0 "
                              "OR n_terms <> 0 ORDER BY 1, 2").fetchall()
        terms = conn.execute("SELECT tenant, visibility, term, df FROM scope_term_stats WHERE df <> 0 "
                             "ORDER BY 1, 2, 3").fetchall()
        return scopes, terms


def _recount(dsn: str) -> tuple[list[tuple], list[tuple]]:
    with psycopg.connect(dsn) as conn:
        return ([tuple(r) for r in conn.execute(RECOUNT_SCOPES)], [tuple(r) for r in conn.execute(RECOUNT_TERMS)])


def test_scope_statistics_equal_a_recount_after_moves_deletes_and_a_rollback(postgres_database,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    dsn = postgres_database()
    store = PostgresStore.open(dsn, dim=8, keyword_leg="sql")
    try:
        store.upsert([_item("a1", "ta", "published", "nightfall pumps|valves"),
                      _item("a2", "ta", "draft", "nightfall secret plan"),
                      _item("b1", "tb", "published", "pumps and nightfall schedule|more pumps"),
                      _item("r1", "", "published", "default tenant notes")])
        assert _stored(dsn) == _recount(dsn) and len(_stored(dsn)[0]) == 4
        store.upsert([_item("a2", "ta", "published", "nightfall secret plan"),  # a draft published
                      _item("a1", "ta", "draft", "nightfall pumps|valves|third"),  # unpublished, one more chunk
                      _item("b1", "tc", "published", "pumps moved tenants")])  # to another tenant
        assert _stored(dsn) == _recount(dsn)
        store.delete(["a2", "r1"])
        assert _stored(dsn) == _recount(dsn)
        before = _stored(dsn)

        def dies(*args: object, **kw: object) -> None:
            raise RuntimeError("killed after the statistics were written")

        monkeypatch.setattr(pg_module, "log_changes", dies)
        with pytest.raises(RuntimeError, match="killed"):
            store.upsert([_item("x1", "ta", "published", "nightfall everywhere"),
                          _item("a1", "ta", "published", "nightfall pumps")])
        with pytest.raises(RuntimeError, match="killed"):
            store.delete(["b1"])
        assert _stored(dsn) == before == _recount(dsn)
    finally:
        store.close()


def test_the_migration_builds_the_scope_statistics_from_existing_tables(postgres_database) -> None:
    """A store written before 0009 upgrades in place: the migration counts what the tables already hold."""
    dsn = postgres_database()
    store = PostgresStore.open(dsn, dim=8, keyword_leg="sql")
    try:
        store.upsert([_item("a1", "ta", "published", "nightfall pumps|valves"),
                      _item("a2", "ta", "draft", "nightfall secret"), _item("r1", "", "archived", "old notes")])
    finally:
        store.close()
    with psycopg.connect(dsn) as conn:  # back to a version-8 database holding the same rows
        conn.execute("DROP TABLE scope_stats, scope_term_stats")
        conn.execute("ALTER TABLE chunks DROP COLUMN scope_tenant, DROP COLUMN scope_visibility")
        conn.execute("DELETE FROM schema_version WHERE version = 9")
    PostgresStore.open(dsn, dim=8, keyword_leg="sql").close()
    assert _stored(dsn) == _recount(dsn) and len(_stored(dsn)[0]) == 3
