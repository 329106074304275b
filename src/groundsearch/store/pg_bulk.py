"""Bulk import into Postgres: the postings' (and vectors') indexes dropped, built once at the end.

Why: a write into a store of N chunks updates three B-trees over the postings — ~60 rows per chunk of
80 words — and the HNSW graph; past ~100k chunks that upkeep is most of an upsert's server time, while
building each index once from sorted rows is a fraction of it. Only the indexes change: every batch is
still an ordinary :meth:`PostgresStore.upsert` transaction, so the rows, postings, statistics and change
log are exactly the ones ordinary upserts write.

Crash safety: the drop commits together with a mark in ``store_meta``, and the importer holds a session
advisory lock for as long as it runs. A batch that dies rolls back alone; the committed ones stay, a
consistent store that merely lacks the indexes (searches are correct, only slower). The next
:meth:`PostgresStore.open` (or bulk import) that finds the mark and can take the lock — so the importer is
gone — builds the indexes and clears the mark in one transaction.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from ..errors import StoreError
from .pg_vector import hnsw_index_sql

__all__ = ["bulk_import", "finish_interrupted"]

_LOCK = 0x67736275_6C6B  # session advisory lock held by the one running bulk import
_MARK = "bulk_import"  # store_meta key (the store's own: callers' keys carry a prefix)

log = logging.getLogger("groundsearch.store")


def _deferred(dim: int) -> list[tuple[str, str]]:
    """(drop, create) for each index a bulk import defers, created exactly as the migrations create them
    (tests/postgres/test_bulk_import.py compares ``pg_indexes`` before and after)."""
    return [
        ("ALTER TABLE postings DROP CONSTRAINT IF EXISTS postings_pkey",
         "ALTER TABLE postings ADD CONSTRAINT postings_pkey PRIMARY KEY (term, chunk_pk) INCLUDE (tf, norm_terms)"),
        ("DROP INDEX IF EXISTS postings_chunk", "CREATE INDEX IF NOT EXISTS postings_chunk ON postings (chunk_pk)"),
        ("DROP INDEX IF EXISTS postings_impact",
         "CREATE INDEX IF NOT EXISTS postings_impact ON postings (term, impact DESC) INCLUDE (chunk_pk)"),
        ("DROP INDEX IF EXISTS chunk_vectors_hnsw", hnsw_index_sql(dim)),
    ]


def _has_pkey(conn: psycopg.Connection[Any]) -> bool:
    return conn.execute("SELECT 1 FROM pg_constraint WHERE conname = 'postings_pkey'").fetchone() is not None


def _build(conn: psycopg.Connection[Any], dim: int, work_mem: str) -> dict[str, float]:
    """Create every deferred index and clear the mark, in one transaction (caller holds the lock)."""
    seconds: dict[str, float] = {}
    with conn.transaction():
        conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (work_mem,))
        for drop, create in _deferred(dim):
            if create.startswith("ALTER TABLE postings ADD") and _has_pkey(conn):
                continue  # no IF NOT EXISTS for constraints
            began = time.perf_counter()
            conn.execute(create.encode())
            seconds[drop.rsplit(" ", 1)[-1]] = round(time.perf_counter() - began, 1)
        conn.execute("DELETE FROM store_meta WHERE key = %s", (_MARK,))
    began = time.perf_counter()
    conn.execute("ANALYZE postings, chunks, items, term_stats")  # one planner-statistics update, not one per batch
    seconds["analyze"] = round(time.perf_counter() - began, 1)
    return seconds


def finish_interrupted(dsn: str, dim: int, work_mem: str = "1GB") -> dict[str, float] | None:
    """Build the indexes a dead bulk import left dropped; None when there was nothing to do (or the
    importer still runs)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM store_meta WHERE key = %s", (_MARK,)).fetchone() is None:
            return None
        if not conn.execute("SELECT pg_try_advisory_lock(%s)", (_LOCK,)).fetchone()[0]:  # type: ignore[index]
            return None  # a live import will build them when it ends
        try:
            if conn.execute("SELECT 1 FROM store_meta WHERE key = %s", (_MARK,)).fetchone() is None:
                return None  # it ended between our two reads
            log.warning("a bulk import ended without building its indexes; building them now")
            return _build(conn, dim, work_mem)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))


@contextmanager
def bulk_import(dsn: str, dim: int, stats: dict[str, Any] | None = None, work_mem: str = "1GB") -> Iterator[None]:
    """Inside the block, upserts write no postings or HNSW index entries; on leaving it (also by an
    exception) the indexes are built. ``stats`` receives the drop and build times in seconds."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        if not conn.execute("SELECT pg_try_advisory_lock(%s)", (_LOCK,)).fetchone()[0]:  # type: ignore[index]
            raise StoreError("another bulk import is running on this database")
        try:
            began = time.perf_counter()
            with conn.transaction():
                conn.execute("INSERT INTO store_meta (key, value) VALUES (%s, 'indexes dropped') "
                             "ON CONFLICT (key) DO NOTHING", (_MARK,))
                for drop, _ in _deferred(dim):
                    conn.execute(drop.encode())
            dropped = time.perf_counter() - began
            try:
                yield
            finally:
                began = time.perf_counter()
                built = _build(conn, dim, work_mem)
                if stats is not None:
                    stats.update({"drop_seconds": round(dropped, 2), "index_build_seconds": built,
                                  "index_build_total_seconds": round(time.perf_counter() - began, 1)})
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
