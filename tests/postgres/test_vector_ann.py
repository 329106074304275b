"""The HNSW path: filtered pages stay full through pgvector's iterative scans, and the index is really used.

The exact-scan threshold is lowered for this test so a small corpus takes the ANN path it would take
at production size.
"""

from __future__ import annotations

import numpy as np
import psycopg
import pytest

from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter
from tests.hits import chunk_ids, item_ids

DIM = 8
N = 2000


@pytest.fixture(scope="module")
def ann_store(postgres_database):
    from groundsearch.store.postgres import PostgresStore

    dsn = postgres_database()
    store = PostgresStore.open(dsn, dim=DIM)
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((N, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    writes = [
        ItemWrite(
            item=Item(id=f"v{i}", collection="rare" if i % 10 == 0 else "common", title=f"v{i}", text="x"),
            chunks=(Chunk(id=f"v{i}#0", item_id=f"v{i}", position=0, text="x"),),
            vectors=vectors[i : i + 1],
        )
        for i in range(N)
    ]
    for b in range(0, N, 500):
        store.upsert(writes[b : b + 500])
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("ANALYZE")  # what autovacuum does after a bulk load; the planner costs plans from it
    yield store, dsn, vectors
    store.close()


def _plan(dsn: str, f: SearchFilter, q: np.ndarray, n: int) -> str:
    """EXPLAIN of exactly the SQL the store runs on its ANN path, with its per-query settings."""
    from pgvector.psycopg import register_vector

    from groundsearch.store.pg_filters import compile_filter
    from groundsearch.store.pg_vector import ann_settings, ann_sql

    where = compile_filter(f)
    with psycopg.connect(dsn) as conn:
        register_vector(conn)
        for name, value in ann_settings(n):
            conn.execute("SELECT set_config(%s, %s, true)", (name, value))
        rows = conn.execute(("EXPLAIN " + ann_sql(where, DIM)).encode(),
                            {"q": q, "lim": n, "off": 0, "n": n, **where.params}).fetchall()
    return "\n".join(r[0] for r in rows)


def test_filtered_ann_pages_are_full(ann_store, monkeypatch: pytest.MonkeyPatch) -> None:
    import groundsearch.store.postgres as pg

    store, _, vectors = ann_store
    monkeypatch.setattr(pg, "EXACT_MAX_CANDIDATES", 100)  # 200 rare chunks > 100: the ANN path
    rare = SearchFilter(collections=("rare",))
    q = vectors[7]
    pages = [store.vector_search(q, rare, 50, off) for off in (0, 50, 100)]
    # Only ~1 in 10 of the nearest neighbours passes the filter: a post-filtered graph scan of ef_search
    # candidates would leave these pages mostly empty (the planner may also choose an exact scan here).
    assert [len(p.hits) for p in pages] == [50, 50, 50]
    assert set(item_ids(store, [h for p in pages for h in p.hits])) <= {f"v{i}" for i in range(0, N, 10)}
    ids = chunk_ids(store, [h for p in pages for h in p.hits])
    assert len(set(ids)) == len(ids) >= 145  # pages never repeat a hit

    exact = np.argsort(-(vectors[::10] @ q))[:50]
    truth = {f"v{i * 10}" for i in exact.tolist()}
    recall = len(truth & set(item_ids(store, pages[0].hits))) / 50
    assert recall >= 0.9, recall
    scores = [score for _, score in pages[0].hits]
    assert scores == sorted(scores, reverse=True)


def test_unfiltered_ann_matches_exact_top10(ann_store, monkeypatch: pytest.MonkeyPatch) -> None:
    import groundsearch.store.postgres as pg

    store, dsn, vectors = ann_store
    monkeypatch.setattr(pg, "EXACT_MAX_CANDIDATES", 100)
    assert "chunk_vectors_hnsw" in _plan(dsn, SearchFilter(), vectors[0], 11)
    hits_total = 0
    for j in range(20):
        q = vectors[j * 37]
        truth = {f"v{i}" for i in np.argsort(-(vectors @ q))[:10].tolist()}
        got = set(item_ids(store, store.vector_search(q, SearchFilter(), 10).hits))
        hits_total += len(truth & got)
    assert hits_total / 200 >= 0.95


def test_half_filtered_query_walks_the_hnsw_index_iteratively(ann_store, monkeypatch: pytest.MonkeyPatch) -> None:
    import groundsearch.store.postgres as pg

    store, dsn, vectors = ann_store
    monkeypatch.setattr(pg, "EXACT_MAX_CANDIDATES", 100)
    common = SearchFilter(collections=("common",))  # 90% of chunks: the planner takes the graph
    # Page 2 needs 41 rows; ef_search is 41 and a tenth of the graph's candidates fail the filter, so
    # only the iterative scan can fill it.
    assert "chunk_vectors_hnsw" in _plan(dsn, common, vectors[3], 41)
    pages = [store.vector_search(vectors[3], common, 20, off) for off in (0, 20)]
    assert [len(p.hits) for p in pages] == [20, 20] and all(p.has_more for p in pages)
    truth = [f"v{i}" for i in np.argsort(-(vectors @ vectors[3])).tolist() if i % 10][:40]
    got = item_ids(store, [h for p in pages for h in p.hits])
    assert len(set(got) & set(truth)) >= 36
    assert not set(got) & {f"v{i}" for i in range(0, N, 10)}


def test_the_ef_floor_reaches_every_ann_query(ann_store, monkeypatch: pytest.MonkeyPatch) -> None:
    """``retrieval.hnsw_ef`` on Postgres: the beam 1M rows need for recall@10 0.95 (ef_search 1000), capped."""
    import groundsearch.store.postgres as pg
    from groundsearch.store.pg_vector import ann_settings

    assert dict(ann_settings(11))["hnsw.ef_search"] == "40"
    assert dict(ann_settings(11, 1000))["hnsw.ef_search"] == "1000"
    assert dict(ann_settings(11, 5000))["hnsw.ef_search"] == "1000"  # pgvector's maximum
    assert dict(ann_settings(300, 128))["hnsw.ef_search"] == "300"  # a floor never narrows the beam

    store, _, vectors = ann_store
    monkeypatch.setattr(pg, "EXACT_MAX_CANDIDATES", 100)
    seen: list[tuple[int, int | None]] = []
    monkeypatch.setattr(pg, "ann_settings", lambda n, floor=None: seen.append((n, floor)) or ann_settings(n, floor))
    monkeypatch.setattr(store, "hnsw_ef", 640)
    page = store.vector_search(vectors[3], SearchFilter(), 10)
    assert len(page.hits) == 10 and seen == [(11, 640)]
