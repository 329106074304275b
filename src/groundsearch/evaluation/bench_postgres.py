"""Postgres + pgvector vs the embedded SQLite store, side by side in one run (``groundsearch bench``).

Both stores receive the *same* synthetic corpus — one-chunk items whose text is drawn from a Zipfian
vocabulary of pseudo-words, with random 384-d unit vectors (the embedded scaling benchmark's workload) —
and answer the *same* queries, alternating which store goes first so machine noise hits both alike.

Figures returned:

* hybrid latency (keyword and vector legs run concurrently, fused with RRF, top 10, no rerank) p50/p95,
  and each leg alone;
* ingest throughput in chunks/s: the embedded store's whole build; Postgres incrementally with its HNSW
  index in place (what steady ingest costs) and as a bulk load with the index built afterwards (the
  recipe for a first import, see docs/scaling.md), with the index build time on its own;
* recall@10 of each store's vector leg against exact numpy search on the same vectors.

Random unit vectors are the hardest case for HNSW (all points nearly equidistant), so recall here is a
floor. The Postgres server is a local embedded one with durable settings unless a DSN is given.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ..store.base import Store
from ..types import Chunk, Item, ItemWrite, SearchFilter
from .bench_pg_local import freshness_costs, startup_costs, top10_parity
from .bench_store import ZIPF_S, _timing, hybrid_page, page_item_ids, synthetic_vocabulary, unit_vectors

__all__ = ["bench_postgres_vs_sqlite"]



def _corpus(n: int, dim: int, rng: np.random.Generator, vocab: list[str], words_per_chunk: int) -> tuple[list[str], np.ndarray]:
    p = np.arange(1, len(vocab) + 1, dtype=np.float64) ** -ZIPF_S
    p /= p.sum()
    ids = rng.choice(len(vocab), size=(n, words_per_chunk), p=p)
    texts = [" ".join(vocab[j] for j in row) for row in ids]
    return texts, unit_vectors(rng, n, dim)


def _writes(texts: list[str], vectors: np.ndarray, start: int, stop: int) -> list[ItemWrite]:
    out = []
    for i in range(start, stop):
        item_id = f"s{i}"
        item = Item(id=item_id, collection="synthetic", title=f"Synthetic {i}", text=texts[i], content_hash=item_id)
        out.append(ItemWrite(item=item, chunks=(Chunk(id=f"{item_id}#0", item_id=item_id, position=0, text=texts[i]),),
                             vectors=vectors[i : i + 1]))
    return out


def _load(store: Store, texts: list[str], vectors: np.ndarray, start: int, stop: int, batch: int) -> float:
    """Upsert rows ``start:stop`` in batches; returns seconds."""
    began = time.perf_counter()
    for b in range(start, stop, batch):
        store.upsert(_writes(texts, vectors, b, min(stop, b + batch)))
    return time.perf_counter() - began


def bench_postgres_vs_sqlite(n: int = 100_000, dim: int = 384, queries: int = 200, seed: int = 0, *,
                             dsn: str | None = None, vocab_size: int = 50_000, words_per_chunk: int = 80,
                             depth: int = 100, incremental: int = 5_000, batch: int = 1_000,
                             reuse: Path | None = None, exhaustive: bool = True,
                             sql_leg: bool = True) -> dict[str, Any]:
    """Build both stores with ``n`` chunks and time hybrid queries on each (see module doc).

    ``dsn`` names an empty Postgres database to use; by default a local embedded server is started with
    durable settings (fsync on) and removed afterwards. ``reuse`` names a directory that keeps both stores
    (and the embedded server's cluster) after the run: the first run builds them there, later runs with the
    same corpus parameters only query (a 100k build takes tens of minutes on a busy machine, the queries
    about two). ``exhaustive=False`` skips timing the old single-pass keyword query beside the leg.

    Postgres answers keyword queries with the per-worker local leg (``postgres``); ``sql_leg`` also runs the
    in-database SQL leg on the same database in the same rounds (``postgres_sql_leg``), for same-run ratios.
    """
    import psycopg

    from ..store.postgres import PostgresStore
    from ..store.sqlite import SQLiteStore

    rng = np.random.default_rng(seed)
    vocab = synthetic_vocabulary(vocab_size)
    texts, vectors = _corpus(n, dim, rng, vocab, words_per_chunk)
    q_texts = [" ".join(vocab[j] for j in rng.choice(len(vocab), size=int(rng.integers(2, 7)),
                                                       p=(lambda p: p / p.sum())(np.arange(1, vocab_size + 1.0) ** -ZIPF_S)))
               for _ in range(queries)]
    q_vecs = unit_vectors(rng, queries, dim)
    corpus = {"n": n, "dim": dim, "seed": seed, "vocab_size": vocab_size, "words_per_chunk": words_per_chunk,
              "incremental": incremental, "batch": batch}
    built = _prebuilt(reuse, corpus)

    server = None
    if dsn is None:
        from ..store.pg_embedded import start_embedded_postgres

        server = start_embedded_postgres(durable=True, keep=None if reuse is None else reuse / "pg")
        if built is None:
            with psycopg.connect(server.dsn(), autocommit=True) as conn:
                conn.execute("DROP DATABASE IF EXISTS groundsearch_bench")
                conn.execute("CREATE DATABASE groundsearch_bench")
        dsn = server.dsn("groundsearch_bench")
    tmp = tempfile.TemporaryDirectory(prefix="gs-bench-pg-")
    lite_path = (Path(tmp.name) if reuse is None else reuse) / "sqlite"
    result: dict[str, Any] = {
        "data": f"synthetic: Zipf(s={ZIPF_S}) text over {vocab_size} pseudo-words, {words_per_chunk} words/chunk, "
                f"random {dim}-d unit vectors; queries of 2-6 Zipf words; hybrid = both legs concurrently "
                f"(depth {depth}) + RRF top 10",
        "chunks": n, "queries": queries,
    }
    try:
        if built is None:
            if reuse is not None and lite_path.exists():
                shutil.rmtree(lite_path)  # a half-built store from an interrupted build
            lite = SQLiteStore.open(lite_path, dim)
            pg = PostgresStore.open(dsn, dim=dim, pool_size=4)
            result["ingest"] = _build(lite, pg, dsn, texts, vectors, dim, incremental, batch)
            if reuse is not None:
                (reuse / _BUILT).write_text(json.dumps({"corpus": corpus, "ingest": result["ingest"]}))
        else:
            lite = SQLiteStore.open(lite_path, dim)
            pg = PostgresStore.open(dsn, dim=dim, pool_size=4)
            result["ingest"] = {"reused_build": str(reuse), **built["ingest"]}
        pg.close()  # the build's store used the SQL leg (writes are the same for both legs)
        pg = PostgresStore.open(dsn, dim=dim, pool_size=4, keyword_leg="local")
        local = result["postgres_local_keyword_leg"] = startup_costs(pg)
        local["parity_with_sqlite"] = top10_parity(pg, lite, q_texts)
        stores: dict[str, Store] = {"sqlite": lite, "postgres": pg}
        pg_sql = PostgresStore.open(dsn, dim=dim, pool_size=4, keyword_leg="sql") if sql_leg else None
        if pg_sql is not None:
            stores["postgres_sql_leg"] = pg_sql
        result["query"] = _query_side_by_side(stores, q_texts, q_vecs, vectors, depth)
        for name in stores:
            if name != "sqlite":
                leg = result["query"][name]["keyword_leg"]
                result[f"ratio_keyword_p95_{name}_over_sqlite"] = round(
                    leg["p95_ms"] / result["query"]["sqlite"]["keyword_leg"]["p95_ms"], 2)
        if exhaustive and pg_sql is not None:
            result["postgres_keyword_vs_exhaustive"] = _keyword_vs_exhaustive(pg_sql, lite, dsn, q_texts, depth)
        if pg_sql is not None:
            pg_sql.close()
        local.update(freshness_costs(pg, dsn, dim))
        p50 = {k: v["hybrid"]["p50_ms"] for k, v in result["query"].items()}
        p95 = {k: v["hybrid"]["p95_ms"] for k, v in result["query"].items()}
        result["ratio_hybrid_p50_postgres_over_sqlite"] = round(p50["postgres"] / p50["sqlite"], 2)
        result["ratio_hybrid_p95_postgres_over_sqlite"] = round(p95["postgres"] / p95["sqlite"], 2)
        pg.close()
        lite.close()
    finally:
        tmp.cleanup()
        if server is not None:
            server.stop()
    return result


_BUILT = "built.json"  # written last by a finished build: its absence marks an interrupted one


def _prebuilt(reuse: Path | None, corpus: dict[str, Any]) -> dict[str, Any] | None:
    """The record of a finished build in ``reuse`` for exactly this corpus, else None (build afresh)."""
    if reuse is None or not (reuse / _BUILT).exists():
        return None
    record = json.loads((reuse / _BUILT).read_text())
    if record["corpus"] != corpus:
        raise ValueError(f"{reuse} holds a build of {record['corpus']}, not {corpus}: use another directory")
    return record  # type: ignore[no-any-return]


def _build(lite: Store, pg: Any, dsn: str, texts: list[str], vectors: np.ndarray, dim: int, incremental: int,
           batch: int) -> dict[str, Any]:
    """Load both stores; Postgres first incrementally with its HNSW index, then in bulk with the index rebuilt."""
    import psycopg

    from ..store.pg_vector import hnsw_index_sql

    n = len(texts)
    lite_s = _load(lite, texts, vectors, 0, n, batch)
    inc = min(incremental, n)
    inc_s = _load(pg, texts, vectors, 0, inc, batch)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP INDEX chunk_vectors_hnsw")
        bulk_s = _load(pg, texts, vectors, inc, n, batch)
        began = time.perf_counter()
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(hnsw_index_sql(dim).encode())
        index_s = time.perf_counter() - began
        conn.execute("VACUUM ANALYZE")
    return {
        "sqlite_chunks_per_s": round(n / lite_s, 1),
        "postgres_incremental_with_hnsw_chunks_per_s": round(inc / inc_s, 1),
        "postgres_bulk_then_index_chunks_per_s": round((n - inc) / (bulk_s + index_s), 1) if n > inc else None,
        "postgres_bulk_rows_only_chunks_per_s": round((n - inc) / bulk_s, 1) if n > inc else None,
        "postgres_hnsw_build_seconds": round(index_s, 1),
        "postgres_incremental_chunks": inc,
    }


def _keyword_vs_exhaustive(pg: Any, lite: Store, dsn: str, texts: list[str], depth: int) -> dict[str, Any]:
    """The early-terminating leg against the exhaustive query it replaced, alternating, on the same database;
    every page compared key for key (the two must agree exactly), and top 10 against the embedded store."""
    import psycopg

    from ..store.pg_filters import compile_filter
    from ..store.pg_keyword import exhaustive_keyword_sql
    from ..store.text import BM25_B, BM25_K1, analyze

    where = compile_filter(SearchFilter())
    sql = exhaustive_keyword_sql(where.sql).encode()
    times: dict[str, list[float]] = {"early_termination": [], "exhaustive": []}
    same_page = same_scores = same_top10_as_sqlite = 0
    with psycopg.connect(dsn) as conn:
        for j, text in enumerate(texts):
            terms = list(dict.fromkeys(analyze(text)))
            for name in (("early_termination", "exhaustive") if j % 2 == 0 else ("exhaustive", "early_termination")):
                t = time.perf_counter()
                if name == "exhaustive":
                    rows = conn.execute(sql, {"terms": terms, "k1": BM25_K1, "b": BM25_B, "lim": depth, "off": 0,
                                              **where.params}).fetchall()
                    want = [int(k) for k, _ in rows]
                    want_scores = [float(s) for _, s in rows]
                else:
                    hits = pg.keyword_search(text, SearchFilter(), depth).hits
                    got, got_scores = [k for k, _ in hits], [s for _, s in hits]
                times[name].append((time.perf_counter() - t) * 1000)
            same_page += got == want
            # Equal scores may come back in another order when their float sums round differently.
            same_scores += len(got_scores) == len(want_scores) and all(
                abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(got_scores, want_scores))
            same_top10_as_sqlite += (page_item_ids(pg, [(k, 0.0) for k in got[:10]])
                                     == page_item_ids(lite, lite.keyword_search(text, SearchFilter(), 10).hits))
    out: dict[str, Any] = {leg: _timing(v) for leg, v in times.items()}
    out["pages_identical"] = f"{same_page}/{len(texts)}"
    out["pages_with_identical_scores_rank_by_rank"] = f"{same_scores}/{len(texts)}"
    out["top10_item_sets_equal_to_sqlite"] = f"{same_top10_as_sqlite}/{len(texts)}"
    out["speedup_p50"] = round(out["exhaustive"]["p50_ms"] / out["early_termination"]["p50_ms"], 2)
    return out


def _query_side_by_side(stores: dict[str, Store], texts: list[str], q_vecs: np.ndarray, matrix: np.ndarray,
                        depth: int) -> dict[str, Any]:
    f = SearchFilter()
    timings: dict[str, dict[str, list[float]]] = {k: {"hybrid": [], "keyword_leg": [], "vector_leg": []} for k in stores}
    recall: dict[str, list[float]] = {k: [] for k in stores}
    names = list(stores)
    with ThreadPoolExecutor(max_workers=2) as pool:
        for j, (text, q) in enumerate(zip(texts, q_vecs)):
            truth = {f"s{i}" for i in np.argpartition(-(matrix @ q), 10)[:10].tolist()}
            for name in names if j % 2 == 0 else reversed(names):  # alternate who goes first
                store = stores[name]
                t = time.perf_counter()
                assert hybrid_page(store, pool, text, q, f, depth)
                timings[name]["hybrid"].append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                store.keyword_search(text, f, depth)
                timings[name]["keyword_leg"].append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                page = store.vector_search(q, f, depth)
                timings[name]["vector_leg"].append((time.perf_counter() - t) * 1000)
                recall[name].append(len(truth & page_item_ids(store, page.hits[:10])) / 10)
    return {name: {**{leg: _timing(v) for leg, v in legs.items()},
                   "vector_recall_at_10": round(statistics.fmean(recall[name]), 4)}
            for name, legs in timings.items()}


def main() -> None:
    import argparse
    import os

    parser = argparse.ArgumentParser(description="Postgres against the embedded store on one synthetic corpus")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--reuse", type=Path, help="keep the built stores here and reuse them on later runs")
    parser.add_argument("--no-exhaustive", action="store_true", help="skip timing the old single-pass query")
    parser.add_argument("--no-sql-leg", action="store_true", help="skip the in-database SQL keyword leg")
    args = parser.parse_args()
    before = [round(x, 2) for x in os.getloadavg()]
    out = bench_postgres_vs_sqlite(n=args.chunks, queries=args.queries, depth=args.depth, reuse=args.reuse,
                                   exhaustive=not args.no_exhaustive, sql_leg=not args.no_sql_leg)
    out["load_average_before"] = before
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
