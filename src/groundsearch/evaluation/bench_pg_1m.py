"""The Postgres keyword leg at 1M chunks (issue 15), keyword only: load once, then measure.

The corpus is ``bench_postgres``'s: one-chunk items of 80 Zipf-drawn pseudo-words (seed 0), the same texts
at any size (they are drawn before the vectors, which this bench never makes). Queries are 2–6 Zipf words
from their own generator (seed 1), so they differ from ``bench_postgres``'s. Each step keeps its state in
``--dir`` and can be run again; the loads resume after the last committed batch and log their progress
(one JSON line per batch) to ``DIR/load-<store>.log``:

* ``load-pg``: an embedded Postgres (fsync on) in ``DIR/pg``, filled through
  :meth:`PostgresStore.bulk_import` — ordinary upserts with the postings' indexes built once at the end;
* ``load-sqlite``: the embedded store in ``DIR/sqlite``, the same texts through ``SQLiteStore.upsert``;
* ``query``: a worker's start-up build of the local keyword leg (seconds, RSS), top-10 parity against the
  embedded store, then keyword-leg latency alternating query by query between the two (and, on a sample,
  the in-database SQL leg).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..types import Chunk, Item, ItemWrite, SearchFilter
from .bench_store import ZIPF_S, _timing, synthetic_vocabulary

__all__ = ["corpus_texts", "query_texts"]

VOCAB = 50_000
WORDS = 80
DIM = 384  # the store's vector dimension; no vector is written
_DB = "groundsearch_bench"


def corpus_texts(n: int, seed: int = 0) -> list[str]:
    """``bench_postgres._corpus``'s texts for ``n`` chunks (its generator draws them before any vector)."""
    vocab = synthetic_vocabulary(VOCAB)
    p = np.arange(1, VOCAB + 1, dtype=np.float64) ** -ZIPF_S
    p /= p.sum()
    ids = np.random.default_rng(seed).choice(VOCAB, size=(n, WORDS), p=p)
    return [" ".join(vocab[j] for j in row) for row in ids]


def query_texts(count: int, seed: int = 1) -> list[str]:
    vocab = synthetic_vocabulary(VOCAB)
    p = np.arange(1, VOCAB + 1, dtype=np.float64) ** -ZIPF_S
    p /= p.sum()
    rng = np.random.default_rng(seed)
    return [" ".join(vocab[j] for j in rng.choice(VOCAB, size=int(rng.integers(2, 7)), p=p)) for _ in range(count)]


def _writes(texts: list[str], start: int, stop: int) -> list[ItemWrite]:
    out = []
    for i in range(start, stop):
        item_id = f"s{i}"
        item = Item(id=item_id, collection="synthetic", title=f"Synthetic {i}", text=texts[i], content_hash=item_id)
        out.append(ItemWrite(item=item, chunks=(Chunk(id=f"{item_id}#0", item_id=item_id, position=0, text=texts[i]),),
                             vectors=None))
    return out


def _batches(store: Any, texts: list[str], batch: int, log: Path, inflight: int = 1) -> Iterator[int]:
    """Upsert the texts the store does not hold yet, a batch per transaction, logging each; yields counts.

    ``inflight`` > 1 keeps that many upserts running on their own connections, so one batch's Python work
    (analysis, payloads) overlaps another's server work; they meet only on the statistics rows at commit."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    n = len(texts)
    # items s0.. are written in batch order, at most ``inflight`` transactions at a time: resume far enough
    # back that every batch which may have been lost is written again (an upsert replaces what it finds)
    start = max(0, (store.count_chunks() // batch - (inflight - 1)) * batch)
    began = time.perf_counter()
    done = start
    with log.open("a") as out, ThreadPoolExecutor(max_workers=inflight) as pool:
        out.write(json.dumps({"event": "start", "from": start, "to": n, "inflight": inflight, "utc": _utc(),
                              "load": _load()}) + "\n")
        pending: set[Any] = set()
        for b in range(start, n, batch):
            if len(pending) >= inflight:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    done += fut.result()
                    yield _progress(out, done, start, began)
            pending.add(pool.submit(lambda b=b: (store.upsert(_writes(texts, b, min(n, b + batch))), min(n, b + batch) - b)[1]))
        for fut in pending:
            done += fut.result()
            yield _progress(out, done, start, began)


def _progress(out: Any, done: int, start: int, began: float) -> int:
    s = time.perf_counter() - began
    out.write(json.dumps({"chunks": done, "seconds": round(s, 1), "chunks_per_s": round((done - start) / s, 1),
                          "cpu_s": round(time.process_time(), 1), "utc": _utc(), "load": _load()}) + "\n")
    out.flush()
    return done


def _utc() -> str:
    return time.strftime("%H:%M:%S", time.gmtime())


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _server(root: Path) -> Any:
    from ..store.pg_embedded import start_embedded_postgres

    return start_embedded_postgres(durable=True, keep=root / "pg")


def _dsn(server: Any) -> str:
    import psycopg

    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (_DB,)).fetchone() is None:
            conn.execute(f"CREATE DATABASE {_DB}")
    return str(server.dsn(_DB))


def load_pg(root: Path, n: int, batch: int, inflight: int) -> dict[str, Any]:
    from ..store.postgres import PostgresStore

    texts = corpus_texts(n)
    server = _server(root)
    try:
        store = PostgresStore.open(_dsn(server), dim=DIM, pool_size=2, keyword_leg="sql")
        began = time.perf_counter()
        stats: dict[str, Any] = {}
        with store.bulk_import(stats):
            for _ in _batches(store, texts, batch, root / "load-pg.log", inflight):
                pass
        total = time.perf_counter() - began
        out = {"chunks": store.count_chunks(), "seconds": round(total, 1), **stats, "utc_end": _utc(), "load": _load()}
        store.close()
    finally:
        server.stop()
    (root / "load-pg.json").write_text(json.dumps(out))
    return out


def load_sqlite(root: Path, n: int, batch: int) -> dict[str, Any]:
    from ..store.sqlite import SQLiteStore

    texts = corpus_texts(n)
    store = SQLiteStore.open(root / "sqlite", DIM)
    began = time.perf_counter()
    for _ in _batches(store, texts, batch, root / "load-sqlite.log"):
        pass
    out = {"chunks": store.count_chunks(), "seconds": round(time.perf_counter() - began, 1), "utc_end": _utc(),
           "load": _load()}
    store.close()
    (root / "load-sqlite.json").write_text(json.dumps(out))
    return out


def query(root: Path, queries: int, depth: int, sql_sample: int) -> dict[str, Any]:
    from ..store.postgres import PostgresStore
    from ..store.sqlite import SQLiteStore
    from .bench_pg_local import startup_costs, top10_parity

    texts = query_texts(queries)
    server = _server(root)
    f = SearchFilter()
    try:
        dsn = _dsn(server)
        out: dict[str, Any] = {"utc_start": _utc(), "load_before": list(os.getloadavg())}
        lite = SQLiteStore.open(root / "sqlite", DIM)
        pg = PostgresStore.open(dsn, dim=DIM, pool_size=4, keyword_leg="local")
        out["chunks"] = {"postgres": pg.count_chunks(), "sqlite": lite.count_chunks()}
        out["local_leg_startup"] = startup_costs(pg)
        out["parity_with_sqlite"] = top10_parity(pg, lite, texts)
        times: dict[str, list[float]] = {"sqlite": [], "postgres_local": []}
        stores = {"sqlite": lite, "postgres_local": pg}
        for j, text in enumerate(texts):
            for name in (list(stores) if j % 2 == 0 else list(reversed(stores))):  # alternate who goes first
                t = time.perf_counter()
                stores[name].keyword_search(text, f, depth)
                times[name].append((time.perf_counter() - t) * 1000)
        out["keyword_leg"] = {k: _timing(v) for k, v in times.items()}
        out["ratio_p95_postgres_local_over_sqlite"] = round(
            out["keyword_leg"]["postgres_local"]["p95_ms"] / out["keyword_leg"]["sqlite"]["p95_ms"], 2)
        if sql_sample:
            sql = PostgresStore.open(dsn, dim=DIM, pool_size=2, keyword_leg="sql")
            sql_times = []
            for text in texts[:sql_sample]:
                t = time.perf_counter()
                sql.keyword_search(text, f, depth)
                sql_times.append((time.perf_counter() - t) * 1000)
            out["sql_leg_sample"] = {"queries": sql_sample, **_timing(sql_times),
                                     "max_ms": round(max(sql_times), 1), "mean_s": round(statistics.fmean(sql_times) / 1000, 2)}
            sql.close()
        out["utc_end"], out["load_after"] = _utc(), list(os.getloadavg())
        pg.close()
        lite.close()
    finally:
        server.stop()
    (root / f"query-{time.strftime('%H%M', time.gmtime())}.json").write_text(json.dumps(out))
    return out


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="The Postgres keyword leg at 1M chunks (keyword only)")
    parser.add_argument("step", choices=("load-pg", "load-sqlite", "query"))
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--inflight", type=int, default=2, help="upserts running at once (load-pg)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--sql-sample", type=int, default=0, help="also time the SQL leg on this many queries")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    if args.step == "load-pg":
        out = load_pg(args.dir, args.chunks, args.batch, args.inflight)
    elif args.step == "load-sqlite":
        out = load_sqlite(args.dir, args.chunks, args.batch)
    else:
        out = query(args.dir, args.queries, args.depth, args.sql_sample)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
