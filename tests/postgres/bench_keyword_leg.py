"""The Postgres keyword leg against the exhaustive query it falls back to, side by side, keyword only.

Run: ``.venv/bin/python tests/postgres/bench_keyword_leg.py [--chunks 100000] [--queries 200]``

A throwaway embedded Postgres gets a synthetic corpus shaped like ``bench_postgres``'s (Zipf text over 50k
pseudo-words, 80 words a chunk, no vectors), then each query runs through ``PostgresStore.keyword_search``
(early termination) and through ``exhaustive_keyword_sql`` on the same database, alternating. Prints p50/p95 of
each and how many pages agree: key for key, and score for score rank by rank (tied scores may come back in
another order, since the two sum per-term scores in different orders).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import psycopg

from groundsearch.evaluation.bench_store import ZIPF_S, synthetic_vocabulary
from groundsearch.store.pg_embedded import start_embedded_postgres
from groundsearch.store.pg_filters import compile_filter
from groundsearch.store.pg_keyword import exhaustive_keyword_sql
from groundsearch.store.postgres import PostgresStore
from groundsearch.store.text import BM25_B, BM25_K1, analyze
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--depth", type=int, default=100)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    vocab = synthetic_vocabulary(50_000)
    p = np.arange(1, len(vocab) + 1, dtype=np.float64) ** -ZIPF_S
    p /= p.sum()
    texts = [" ".join(vocab[j] for j in row) for row in rng.choice(len(vocab), size=(args.chunks, 80), p=p)]
    queries = [" ".join(vocab[j] for j in rng.choice(len(vocab), size=int(rng.integers(2, 7)), p=p))
               for _ in range(args.queries)]
    server = start_embedded_postgres()
    try:
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE keyword_leg")
        dsn = server.dsn("keyword_leg")
        store = PostgresStore.open(dsn, dim=4)
        began = time.perf_counter()
        for b in range(0, args.chunks, 2000):
            store.upsert([ItemWrite(item=Item(id=f"s{i}", collection="synthetic", title=f"Synthetic {i}", text=texts[i],
                                              content_hash=f"s{i}"),
                                    chunks=(Chunk(id=f"s{i}#0", item_id=f"s{i}", position=0, text=texts[i]),),
                                    vectors=None)
                          for i in range(b, min(args.chunks, b + 2000))])
        print(f"loaded {args.chunks} chunks in {time.perf_counter() - began:.0f} s")
        where = compile_filter(SearchFilter())
        sql = exhaustive_keyword_sql(where.sql).encode()
        times: dict[str, list[float]] = {"early termination": [], "exhaustive": []}
        same_keys = same_scores = 0
        with psycopg.connect(dsn) as conn:
            for j, q in enumerate(queries):
                terms = list(dict.fromkeys(analyze(q)))
                order = ("early termination", "exhaustive")
                for name in order if j % 2 == 0 else reversed(order):
                    t = time.perf_counter()
                    if name == "exhaustive":
                        want = [(int(k), float(s)) for k, s in conn.execute(
                            sql, {"terms": terms, "k1": BM25_K1, "b": BM25_B, "lim": args.depth, "off": 0,
                                  **where.params})]
                    else:
                        got = list(store.keyword_search(q, SearchFilter(), args.depth).hits)
                    times[name].append((time.perf_counter() - t) * 1000)
                same_keys += [k for k, _ in got] == [k for k, _ in want]
                same_scores += len(got) == len(want) and all(
                    abs(a - b) <= 1e-9 * max(1.0, abs(b)) for (_, a), (_, b) in zip(got, want))
        for name, values in times.items():
            print(f"{name:18s} p50 {np.percentile(values, 50):8.1f} ms   p95 {np.percentile(values, 95):8.1f} ms")
        print(f"pages with identical keys {same_keys}/{len(queries)}, "
              f"identical scores rank by rank {same_scores}/{len(queries)}")
        store.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
