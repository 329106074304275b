"""pgvector HNSW at 1M rows for ``bench_recall_1m``: a persisted embedded Postgres, the store's index and settings.

The table has the store's shape (``chunk_vectors``: bigint key, untyped ``vector`` column) and the index is
the store's own DDL (``pg_vector.hnsw_index_sql``: expression index on ``embedding::vector(384)``, m 16,
ef_construction 64). Queries take the store's per-query settings (``pg_vector.ann_settings``: iterative scan,
``max_scan_tuples``) with ``hnsw.ef_search`` swept. The database lives under ``<dir>/pg`` and is reused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..store.pg_vector import ann_settings, hnsw_index_sql
from .bench_store import _timing
from .recall_corpus import load_corpus, sample_queries, tie_aware_recall

__all__ = ["build_pg", "sweep_pg"]

DIM = 384
# The graph of 1M × 384 float32 vectors is ~1.9 GB; a build that outgrows maintenance_work_mem slows down
# several-fold (pgvector warns "hnsw graph no longer fits"), so give it room; one worker beside the leader
# is all two cores allow.
BUILD_MEMORY = "4GB"
BUILD_WORKERS = 1

_SEARCH = (f"SELECT chunk_pk, (embedding::vector({DIM})) <=> %(q)s::vector({DIM}) AS d FROM chunk_vectors "
           f"ORDER BY (embedding::vector({DIM})) <=> %(q)s::vector({DIM}) LIMIT %(n)s")


@contextmanager
def _database(root: Path, dsn: str | None) -> Iterator[str]:
    """``dsn`` as given, or the persisted embedded server under ``<root>/pg`` for as long as the block runs."""
    if dsn is not None:
        yield dsn
        return
    from ..store.pg_embedded import start_embedded_postgres

    server = start_embedded_postgres(keep=root / "pg")
    try:
        yield server.dsn()
    finally:
        server.stop()


def build_pg(root: Path, dsn: str | None = None) -> dict[str, Any]:
    import psycopg
    from pgvector.psycopg import register_vector

    vectors = load_corpus(root)["vectors"]
    with _database(root, dsn) as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            register_vector(conn)
            conn.execute("DROP TABLE IF EXISTS chunk_vectors")
            conn.execute("CREATE TABLE chunk_vectors (chunk_pk bigint PRIMARY KEY, embedding vector NOT NULL)")
            started = time.perf_counter()
            with conn.cursor() as cur, cur.copy("COPY chunk_vectors (chunk_pk, embedding) FROM STDIN WITH (FORMAT BINARY)") as cp:
                cp.set_types(["int8", "vector"])
                for row in range(len(vectors)):
                    cp.write_row((row, np.asarray(vectors[row])))
            copy_s = time.perf_counter() - started
            conn.execute(f"SET maintenance_work_mem = '{BUILD_MEMORY}'")
            conn.execute(f"SET max_parallel_maintenance_workers = {BUILD_WORKERS}")
            started = time.perf_counter()
            conn.execute(hnsw_index_sql(DIM))
            index_s = time.perf_counter() - started
            conn.execute("VACUUM ANALYZE chunk_vectors")
            size = conn.execute("SELECT pg_size_pretty(pg_relation_size('chunk_vectors_hnsw'))").fetchone()[0]
    out = {"rows": len(vectors), "copy_seconds": round(copy_s, 1), "index_seconds": round(index_s, 1),
           "index_size": size, "maintenance_work_mem": BUILD_MEMORY, "parallel_workers": BUILD_WORKERS,
           "load": os.getloadavg()}
    (root / "pg-build.json").write_text(json.dumps(out))
    return out


def sweep_pg(root: Path, efs: tuple[int, ...], depths: tuple[int, ...] = (10, 100), *, dsn: str | None = None,
             queries: int | None = None) -> dict[str, Any]:
    import psycopg
    from pgvector.psycopg import register_vector

    corpus = load_corpus(root)
    pick = sample_queries(len(corpus["queries"])) if queries is None else sample_queries(len(corpus["queries"]), queries)
    out: dict[str, Any] = {"queries": len(pick), "load_before": os.getloadavg()[0], "ef_search": {}}
    with _database(root, dsn) as url:
        with psycopg.connect(url, autocommit=True) as conn:
            register_vector(conn)
            # warm the index into the OS cache once, so the first sweep point is not a cold-disk figure
            if _has_prewarm(conn):
                conn.execute("SELECT pg_prewarm('chunk_vectors_hnsw')")
            for ef in efs:
                point: dict[str, Any] = {}
                for depth in depths:
                    times, recalls = [], []
                    for j in pick:
                        q = corpus["queries"][j]
                        with conn.transaction():
                            for name, value in ann_settings(depth + 1):
                                conn.execute("SELECT set_config(%s, %s, true)", (name, value))
                            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(ef, depth + 1)),))
                            t = time.perf_counter()
                            rows = conn.execute(_SEARCH, {"q": q, "n": depth + 1}).fetchall()
                            times.append((time.perf_counter() - t) * 1000)
                        scores = 1.0 - np.asarray([r[1] for r in rows[:10]], dtype=np.float64)
                        recalls.append(tie_aware_recall(scores, float(corpus["truth_scores"][j, 9])))
                    point[f"k{depth}"] = {"recall_at_10": round(statistics.fmean(recalls), 4), **_timing(times)}
                out["ef_search"][str(ef)] = point
            out["store_default_ef_search"] = {f"k{d}": dict(ann_settings(d + 1))["hnsw.ef_search"] for d in depths}
    out["load_after"] = os.getloadavg()[0]
    return out


def _has_prewarm(conn) -> bool:  # noqa: ANN001
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        return True
    except Exception:  # noqa: BLE001 — the contrib module may be absent from the embedded build
        return False
