"""HNSW recall@10 on real MiniLM vectors against exact search, swept over ``expansion_search`` (usearch's ef).

Run (reads the eval caches ``groundsearch eval`` built; embeds the SciFact claims as queries)::

    OMP_NUM_THREADS=1 .venv/bin/python -m groundsearch.evaluation.bench_recall --copies 1 --pgvector

The corpus is every chunk vector stored in the finished eval caches (SciFact, MuSiQue, RGB: 8,457 real
MiniLM vectors here). ``--copies N`` adds N−1 perturbed copies of each (Gaussian noise of ``--sigma`` per
dimension, renormalised), the issue's "replicated with perturbation" — those extra rows are *derived* from
real vectors, not real texts, and the output says how many of each there are. The graph uses the store's own
parameters of sessions 3–4 (connectivity 16, expansion_add 64; the store searched with ef 128). The store now
builds connectivity 32 / expansion_add 200 and widens ef with the row count (``store/vectors.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..store.vectors import _hnsw_class
from .bench_store import _timing

__all__ = ["bench_recall", "real_vectors"]

EF_SWEEP = (16, 32, 64, 128, 256, 512)
TIE_EPS = 1e-5  # cosine, float32
CACHE = Path.home() / ".cache" / "groundsearch" / "eval"


def real_vectors(cache: Path = CACHE, dim: int = 384) -> tuple[np.ndarray, list[str]]:
    """Every stored chunk vector of the finished MiniLM eval caches, read-only; and which caches they came from."""
    blobs: list[bytes] = []
    names = []
    for store in sorted(cache.glob("*MiniLM*/store/store.sqlite3")):
        if not (store.parents[1] / "complete.json").exists():
            continue  # a cache still being built
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        try:
            rows = [r[0] for r in conn.execute("SELECT vector FROM chunks WHERE vector IS NOT NULL ORDER BY key")]
        finally:
            conn.close()
        blobs.extend(rows)
        names.append(f"{store.parents[1].name.split('-')[0]} ({len(rows)})")
    matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim).astype(np.float32)
    return matrix, names


def bench_recall(matrix: np.ndarray, queries: np.ndarray, *, copies: int = 1, sigma: float = 0.025,
                 seed: int = 0, threads: int = 0) -> dict[str, Any]:
    """``threads``: for the graph build (0: every core; 1 builds the same graph every run)."""
    # Through the store's import, never ``usearch.index`` directly: onnxruntime imported after usearch kills the
    # interpreter (SIGSEGV, onnxruntime 1.31.1 + usearch 2.26.6), and the embedder loads onnxruntime later in the
    # same process (the full test suite ran this bench, then test_bench's MiniLM engine, and crashed there)
    Index = _hnsw_class()

    real = len(matrix)
    matrix = _perturbed(matrix, copies, sigma, seed)
    started = time.perf_counter()
    graph = Index(ndim=matrix.shape[1], metric="cos", dtype="f32", connectivity=16, expansion_add=64)
    graph.add(np.arange(len(matrix), dtype=np.uint64), matrix, threads=threads)
    build_s = time.perf_counter() - started
    exact_ms, truth = [], []
    for q in queries:
        t = time.perf_counter()
        sims = matrix @ q
        top = np.argpartition(-sims, 10)[:10]
        exact_ms.append((time.perf_counter() - t) * 1000)
        # a hit counts when it is as near as the 10th true neighbour (within float rounding), as ann-benchmarks
        # counts it: a perturbed copy ties its original at the 10th place, and usearch and numpy round apart
        truth.append((sims, float(sims[top].min()) - TIE_EPS))
    out: dict[str, Any] = {"vectors": len(matrix), "real_vectors": real, "perturbed_copies": len(matrix) - real,
                           "sigma": sigma if copies > 1 else None, "queries": len(queries),
                           "build_seconds": round(build_s, 1), "exact_numpy": _timing(exact_ms), "hnsw": {}}
    for ef in EF_SWEEP:
        graph.expansion_search = ef
        times, recalls = [], []
        for q, want in zip(queries, truth):
            t = time.perf_counter()
            found = graph.search(q, 10)
            times.append((time.perf_counter() - t) * 1000)
            sims, tenth = want
            recalls.append(sum(1 for k in found.keys if sims[int(k)] >= tenth) / 10)
        out["hnsw"][str(ef)] = {"recall_at_10": round(statistics.fmean(recalls), 4), **_timing(times)}
    reached = [int(ef) for ef, v in out["hnsw"].items() if v["recall_at_10"] >= 0.95]
    out["smallest_ef_for_0.95"] = min(reached) if reached else None
    return out


def _perturbed(matrix: np.ndarray, copies: int, sigma: float, seed: int) -> np.ndarray:
    if copies <= 1:
        return matrix
    rng = np.random.default_rng(seed)
    extra = np.repeat(matrix, copies - 1, axis=0)
    extra += rng.normal(0.0, sigma, extra.shape).astype(np.float32)
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    return np.concatenate([matrix, extra])


def bench_recall_pgvector(matrix: np.ndarray, queries: np.ndarray, dsn: str) -> dict[str, Any]:
    """The same sweep on pgvector's HNSW (m 16, ef_construction 64: its defaults), ``hnsw.ef_search`` swept."""
    import psycopg
    from pgvector.psycopg import register_vector

    truth = [set(np.argpartition(-(matrix @ q), 10)[:10].tolist()) for q in queries]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        register_vector(conn)
        conn.execute(f"CREATE TABLE recall_vectors (id bigint PRIMARY KEY, v vector({matrix.shape[1]}))")
        with conn.cursor() as cur, cur.copy("COPY recall_vectors (id, v) FROM STDIN WITH (FORMAT BINARY)") as cp:
            cp.set_types(["int8", "vector"])
            for i, row in enumerate(matrix):
                cp.write_row((i, row))
        started = time.perf_counter()
        conn.execute("CREATE INDEX ON recall_vectors USING hnsw (v vector_cosine_ops) WITH (m = 16, ef_construction = 64)")
        out: dict[str, Any] = {"build_seconds": round(time.perf_counter() - started, 1), "hnsw": {}}
        for ef in EF_SWEEP:
            conn.execute(f"SET hnsw.ef_search = {ef}")
            times, recalls = [], []
            for q, want in zip(queries, truth):
                t = time.perf_counter()
                rows = conn.execute("SELECT id FROM recall_vectors ORDER BY v <=> %s LIMIT 10", (q,)).fetchall()
                times.append((time.perf_counter() - t) * 1000)
                recalls.append(len(want & {int(r[0]) for r in rows}) / 10)
            out["hnsw"][str(ef)] = {"recall_at_10": round(statistics.fmean(recalls), 4), **_timing(times)}
    reached = [int(ef) for ef, v in out["hnsw"].items() if v["recall_at_10"] >= 0.95]
    out["smallest_ef_for_0.95"] = min(reached) if reached else None
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--sigma", type=float, default=0.025)
    parser.add_argument("--queries", type=Path, default=Path("../shared/datasets/beir_scifact"))
    parser.add_argument("--pgvector", action="store_true", help="also sweep pgvector HNSW on the embedded Postgres")
    args = parser.parse_args(argv)
    from ..models.factory import build_embedder
    from ..settings import load_settings
    from .datasets import load_beir

    matrix, names = real_vectors()
    claims = list(load_beir(args.queries).queries.values())
    queries = np.asarray(build_embedder(load_settings(env={})).embed_queries(claims), dtype=np.float32)
    load_before = os.getloadavg()[0]
    out = bench_recall(matrix, queries, copies=args.copies, sigma=args.sigma)
    if args.pgvector:
        from ..store.pg_embedded import start_embedded_postgres

        server = start_embedded_postgres()
        try:
            out["pgvector"] = bench_recall_pgvector(_perturbed(matrix, args.copies, args.sigma, 0), queries,
                                                    server.dsn())
        finally:
            server.stop()
    print(json.dumps({"sources": names, **out, "load_before": load_before, "load_after": os.getloadavg()[0]},
                     indent=2))


if __name__ == "__main__":
    main()
