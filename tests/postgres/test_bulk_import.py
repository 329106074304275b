"""Bulk import on the real embedded Postgres (store/pg_bulk.py): the same rows as ordinary upserts, the
same indexes afterwards, and a consistent store when the importer dies in the middle of a batch."""

from __future__ import annotations

import multiprocessing as mp
import os
from typing import Any

import numpy as np
import psycopg
import pytest

from groundsearch.errors import StoreError
from groundsearch.store import pg_bulk, postgres
from groundsearch.store.pg_keyword import impact
from groundsearch.store.postgres import PostgresStore
from groundsearch.types import SearchFilter

from .helpers import WORDS, integrity_problems, make_write

DIM = 8
_TABLES = {  # every row an upsert writes, in an order that does not depend on physical layout
    # created_at / updated_at default to the server's now(), which differs between any two loads
    "items": "SELECT id, collection, title, body, url, item_date, fields, tenant, status, superseded_by, content_hash,"
             " source FROM items ORDER BY id",
    "item_fields": "SELECT item_id, name, value FROM item_fields ORDER BY 1, 2, 3",
    "chunks": "SELECT * FROM chunks ORDER BY pk",
    "postings": "SELECT term, chunk_pk, tf, norm_terms, impact FROM postings ORDER BY term, chunk_pk",
    "term_stats": "SELECT term, df FROM term_stats WHERE df <> 0 ORDER BY term",
    "corpus_stats": "SELECT * FROM corpus_stats",
    "keyword_log": "SELECT seq, chunk_pk FROM keyword_log ORDER BY seq, chunk_pk",
    "mentions": "SELECT entity, chunk_pk FROM mentions ORDER BY 1, 2",
    "chunk_vectors": "SELECT chunk_pk, embedding::text FROM chunk_vectors ORDER BY chunk_pk",
}
_INDEXES = "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"


def batches(n_batches: int = 4) -> list[list[Any]]:
    """Items of 1–3 chunks with vectors, fields and entities; the last batch replaces two earlier items."""
    rng = np.random.default_rng(7)
    out = [[make_write(f"b{b}i{i}", 1 + (i % 3), DIM, rng, WORDS) for i in range(12)] for b in range(n_batches)]
    out[-1] += [make_write("b0i1", 2, DIM, rng, WORDS), make_write("b1i4", 1, DIM, rng, WORDS)]
    return out


def snapshot(dsn: str, sql: dict[str, str] | None = None) -> dict[str, list[tuple[Any, ...]]]:
    with psycopg.connect(dsn) as conn:
        return {name: conn.execute(q).fetchall() for name, q in (sql or _TABLES).items()}


def indexes(dsn: str) -> list[tuple[Any, ...]]:
    return snapshot(dsn, {"i": _INDEXES})["i"]


def test_bulk_import_writes_exactly_what_ordinary_upserts_write(postgres_database) -> None:
    plain_dsn, bulk_dsn = postgres_database(), postgres_database()
    plain = PostgresStore.open(plain_dsn, dim=DIM, keyword_leg="sql")
    bulk = PostgresStore.open(bulk_dsn, dim=DIM, keyword_leg="sql")
    before = indexes(bulk_dsn)
    for batch in batches():
        plain.upsert(batch)
    stats: dict[str, Any] = {}
    with bulk.bulk_import(stats):
        dropped = {name for name, _ in indexes(bulk_dsn)}
        for batch in batches():
            bulk.upsert(batch)
        # correct, if slow, while the indexes are gone
        assert bulk.keyword_search("graph vector", SearchFilter(), 10) == plain.keyword_search(
            "graph vector", SearchFilter(), 10)
    assert {"postings_pkey", "postings_chunk", "postings_impact", "chunk_vectors_hnsw"}.isdisjoint(dropped)
    assert snapshot(bulk_dsn) == snapshot(plain_dsn)
    assert indexes(bulk_dsn) == before == indexes(plain_dsn)
    assert set(stats["index_build_seconds"]) >= {"postings_pkey", "postings_chunk", "postings_impact"}
    assert snapshot(bulk_dsn, {"m": "SELECT * FROM store_meta WHERE key = 'bulk_import'"})["m"] == []
    assert integrity_problems(bulk_dsn) == []
    for query in ("graph vector", "w1 w2 w3", "postgres index search"):
        assert bulk.keyword_search(query, SearchFilter(), 10) == plain.keyword_search(query, SearchFilter(), 10)
    plain.close()
    bulk.close()


def test_stored_impacts_are_the_formula_exactly(postgres_database) -> None:
    """The postings payload is written as text: every impact must read back as the float computed in Python."""
    dsn = postgres_database()
    store = PostgresStore.open(dsn, dim=DIM, keyword_leg="sql")
    for batch in batches(2):
        store.upsert(batch)
    with psycopg.connect(dsn) as conn:
        ref = conn.execute("SELECT impact_avglen FROM corpus_stats").fetchone()[0]
        rows = conn.execute("SELECT tf, norm_terms, impact FROM postings").fetchall()
    assert rows and all(imp == impact(tf, norm, ref) for tf, norm, imp in rows)
    store.close()


def test_terms_with_copy_control_characters_survive_the_payload(postgres_database) -> None:
    """The analyser never yields these, but the payload must not depend on that."""
    dsn = postgres_database()
    store = PostgresStore.open(dsn, dim=DIM, keyword_leg="sql")
    odd = ["back\\slash", "tab\there", "new\nline", "cr\rx", "\\N"]

    class Batch:
        chunks = [("c", "i", 0, "", [], [], 5, 5)]
        postings = [(0, t, 1) for t in odd]

    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        conn.execute("ALTER TABLE postings DROP CONSTRAINT IF EXISTS postings_pkey")  # chunk 1 does not exist: no FK
        postgres._copy_postings(cur, Batch, [1], 5.0)
        assert sorted(r[0] for r in cur.execute("SELECT term FROM postings")) == sorted(odd)
        conn.rollback()
    store.close()


def _import_and_die(dsn: str, complete: int) -> None:
    """Bulk-import ``complete`` batches, then die inside the next one's transaction, after its postings."""
    store = PostgresStore.open(dsn, dim=DIM, keyword_leg="sql")
    with store.bulk_import():
        for batch in batches()[:complete]:
            store.upsert(batch)

        def die(*_: Any) -> None:
            os._exit(3)  # as kill -9 would: no rollback, no index build, no unlock

        postgres._apply_df = die  # type: ignore[assignment]
        store.upsert(batches()[complete])


def test_an_import_killed_mid_batch_leaves_a_consistent_store_whose_next_open_builds_the_indexes(
        postgres_database) -> None:
    dsn, want_dsn = postgres_database(), postgres_database()
    want = PostgresStore.open(want_dsn, dim=DIM, keyword_leg="sql")
    for batch in batches()[:2]:
        want.upsert(batch)
    proc = mp.get_context("spawn").Process(target=_import_and_die, args=(dsn, 2))
    proc.start()
    proc.join(120)
    assert proc.exitcode == 3
    # the dead importer's batches are there and consistent; the lost batch left nothing; indexes are missing
    assert integrity_problems(dsn) == []
    assert "postings_impact" not in {name for name, _ in indexes(dsn)}
    store = PostgresStore.open(dsn, dim=DIM, keyword_leg="sql")  # finds the mark, the lock free: builds
    assert indexes(dsn) == indexes(want_dsn)
    assert snapshot(dsn) == snapshot(want_dsn)
    assert snapshot(dsn, {"m": "SELECT * FROM store_meta WHERE key = 'bulk_import'"})["m"] == []
    assert store.keyword_search("graph vector", SearchFilter(), 10).hits == want.keyword_search(
        "graph vector", SearchFilter(), 10).hits
    store.upsert(batches()[2])  # and it takes ordinary writes again
    assert integrity_problems(dsn) == []
    store.close()
    want.close()


def test_a_second_import_is_refused_and_an_open_leaves_a_running_import_alone(postgres_database) -> None:
    dsn = postgres_database()
    store = PostgresStore.open(dsn, dim=DIM, keyword_leg="sql")
    with store.bulk_import():
        with pytest.raises(StoreError, match="another bulk import"), store.bulk_import():
            pass
        assert pg_bulk.finish_interrupted(dsn, DIM) is None  # the importer is alive: not its indexes to build
        other = PostgresStore.open(dsn, dim=DIM, keyword_leg="sql")
        assert "postings_impact" not in {name for name, _ in indexes(dsn)}
        other.close()
    assert "postings_impact" in {name for name, _ in indexes(dsn)}
    store.close()


def test_cli_ingest_bulk_on_postgres_and_refused_on_the_embedded_store(postgres_database, tmp_path) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    entry = str(Path(sys.executable).with_name("groundsearch"))
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(5):
        (notes / f"n{i}.md").write_text(f"# Note {i}\n\nThe bulk import of note {i} about quokkas.\n")
    dsn = postgres_database()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROUNDSEARCH_")}

    def gs(config: str, *args: str) -> subprocess.CompletedProcess[str]:
        (tmp_path / "groundsearch.toml").write_text(config)
        return subprocess.run([entry, *args], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                              env={**env, "GROUNDSEARCH_CONFIG": str(tmp_path / "groundsearch.toml")})

    on_pg = f'data_dir = "data"\nembedder = "hash"\ndatabase_url = {json.dumps(dsn)}\n'
    done = gs(on_pg, "ingest", "notes", "--bulk", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["added"] == 5
    assert indexes(dsn) == indexes(postgres_database_fresh(postgres_database))
    assert integrity_problems(dsn) == []
    found = gs(on_pg, "search", "quokkas", "--json")
    assert found.returncode == 0, found.stderr
    assert "quokkas" in found.stdout
    refused = gs('data_dir = "data"\nembedder = "hash"\n', "ingest", "notes", "--bulk")
    assert refused.returncode != 0 and "--bulk needs the Postgres store" in refused.stderr


def postgres_database_fresh(postgres_database) -> str:
    """A database opened once by the store (migrated, dimension fixed): the indexes every store has."""
    dsn = postgres_database()
    PostgresStore.open(dsn, dim=384, keyword_leg="sql").close()
    return dsn
