"""The Postgres keyword leg against the exhaustive query it falls back to, side by side, keyword only.

Run: ``.venv/bin/python tests/postgres/bench_keyword_leg.py [--chunks 100000] [--queries 200] [--reuse DIR]``

``--reuse DIR`` queries the corpus a ``bench_postgres --reuse DIR`` run built there (same texts: same seed and
generator) instead of loading a fresh one, so a 100k run takes a few minutes instead of tens.

A throwaway embedded Postgres gets a synthetic corpus shaped like ``bench_postgres``'s (Zipf text over 50k
pseudo-words, 80 words a chunk, no vectors), then each query runs through ``PostgresStore.keyword_search``
(early termination) and through ``exhaustive_keyword_sql`` on the same database, alternating. Prints p50/p95 of
each and how many pages agree: key for key, and score for score rank by rank (tied scores may come back in
another order, since the two sum per-term scores in different orders).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import psycopg

from groundsearch.evaluation.bench_store import ZIPF_S, synthetic_vocabulary
from groundsearch.store.pg_embedded import start_embedded_postgres
from groundsearch.store.pg_filters import compile_filter
from groundsearch.store.pg_keyword import exhaustive_keyword_sql, keyword_top
from groundsearch.store.postgres import PostgresStore
from groundsearch.store.text import BM25_B, BM25_K1, analyze
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter


def load(store: PostgresStore, texts: list[str]) -> None:
    began = time.perf_counter()
    for b in range(0, len(texts), 2000):
        store.upsert([ItemWrite(item=Item(id=f"s{i}", collection="synthetic", title=f"Synthetic {i}", text=texts[i],
                                          content_hash=f"s{i}"),
                                chunks=(Chunk(id=f"s{i}#0", item_id=f"s{i}", position=0, text=texts[i]),),
                                vectors=None)
                      for i in range(b, min(len(texts), b + 2000))])
    print(f"loaded {len(texts)} chunks in {time.perf_counter() - began:.0f} s")


def by_path(dsn: str, queries: list[str], depth: int, leg_ms: list[float]) -> None:
    """Which way the leg went for each query (an untimed second pass with a trace), and its timings per way."""
    where = compile_filter(SearchFilter())
    ways: dict[str, list[float]] = {}
    slow = []
    with psycopg.connect(dsn) as conn:
        for q, ms in zip(queries, leg_ms):
            trace: list[dict] = []
            with conn.transaction():
                keyword_top(conn, list(dict.fromkeys(analyze(q))), where, depth + 1, trace)
            ways.setdefault(trace[0]["path"], []).append(ms)
            slow.append((ms, q, trace[0]))
    for way, values in sorted(ways.items()):
        print(f"  {way:10s} {len(values):4d} queries   p50 {np.percentile(values, 50):8.1f} ms   "
              f"p95 {np.percentile(values, 95):8.1f} ms")
    for ms, q, did in sorted(slow, key=lambda x: -x[0])[:8]:
        print(f"  slowest: {ms:7.1f} ms  {q!r}  {did}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--reuse", type=Path, help="a directory bench_postgres --reuse built")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    vocab = synthetic_vocabulary(50_000)
    p = np.arange(1, len(vocab) + 1, dtype=np.float64) ** -ZIPF_S
    p /= p.sum()
    texts = [" ".join(vocab[j] for j in row) for row in rng.choice(len(vocab), size=(args.chunks, 80), p=p)]
    queries = [" ".join(vocab[j] for j in rng.choice(len(vocab), size=int(rng.integers(2, 7)), p=p))
               for _ in range(args.queries)]
    if args.reuse is not None:
        corpus = json.loads((args.reuse / "built.json").read_text())["corpus"]
        if corpus["n"] != args.chunks:
            raise SystemExit(f"{args.reuse} holds {corpus['n']} chunks, not {args.chunks}")
        server = start_embedded_postgres(keep=args.reuse / "pg")
        dsn = server.dsn("groundsearch_bench")
        store = PostgresStore.open(dsn, dim=corpus["dim"])
    else:
        server = start_embedded_postgres()
    try:
        if args.reuse is None:
            with psycopg.connect(server.dsn(), autocommit=True) as conn:
                conn.execute("CREATE DATABASE keyword_leg")
            dsn = server.dsn("keyword_leg")
            store = PostgresStore.open(dsn, dim=4)
            load(store, texts)
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
        by_path(dsn, queries, args.depth, times["early termination"])
        store.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
