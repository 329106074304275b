"""Recall@10 at 1M rows on both backends, the latency at each ``ef``, and the embedded hybrid at 1M (issue 15).

The corpus, queries and exact truth come from ``recall_corpus`` (real MiniLM vectors grown to 1M with
perturbation; real SciFact/MuSiQue queries). Build once, in the background, then sweep in minutes::

    nice -n 15 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m build-store --dir /tmp/recall1m
    nice -n 15 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m build-pg --dir /tmp/recall1m
    OMP_NUM_THREADS=1 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m sweep-store --dir /tmp/recall1m
    OMP_NUM_THREADS=1 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m sweep-pg --dir /tmp/recall1m
    OMP_NUM_THREADS=1 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m hybrid --dir /tmp/recall1m

The embedded side is the real ``SQLiteStore``: its own int8 usearch graph (built by the store, in one go,
when it is reopened over ``exact_vector_max``) and its own ``vector_search`` (candidates re-scored exactly),
so the recall is the product's, not a bare graph's. The Postgres side is a ``chunk_vectors`` table of the
store's shape with the store's own HNSW index DDL and per-query settings (iterative scan), without the
join to chunks and items that the store adds for filters.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .bench_recall import TIE_EPS
from .bench_store import _timing, hybrid_page
from .recall_corpus import load_corpus, real_queries

__all__ = ["tie_aware_recall"]

EF_SWEEP = (64, 128, 192, 256, 384, 512)
DIM = 384
BATCH = 2_000
SAMPLE = 300  # queries per sweep point: keeps every sweep under ~3 minutes on the persisted indexes


def tie_aware_recall(found_scores: np.ndarray, tenth: float) -> float:
    """Share of the 10 returned rows at least as near as the true 10th neighbour (within float rounding)."""
    return float(np.count_nonzero(np.asarray(found_scores[:10]) >= tenth - TIE_EPS)) / 10


def _sample(n: int, size: int = SAMPLE) -> np.ndarray:
    return np.sort(np.random.default_rng(7).choice(n, min(n, size), replace=False))


def build_store(root: Path, exact_max: int = 200_000) -> dict[str, Any]:
    from ..store.sqlite import SQLiteStore
    from ..types import Chunk, Item, ItemWrite

    corpus = load_corpus(root)
    vectors, origin = corpus["vectors"], corpus["origin"]
    texts = json.loads((root / "texts.json").read_text())
    path = root / "sqlite"
    n = len(vectors)
    started = time.perf_counter()
    # no graph while loading: the store builds it in one go on the reopen below, as it does at 1M
    store = SQLiteStore.open(path, DIM, exact_vector_max=n + 1)
    try:
        for start in range(0, n, BATCH):
            writes = []
            for row in range(start, min(n, start + BATCH)):
                text = texts[origin[row]]
                item = Item(id=f"r{row}", collection="recall", title=f"Row {row}", text=text, content_hash=f"r{row}")
                chunk = Chunk(id=f"r{row}#0", item_id=f"r{row}", position=0, text=text)
                writes.append(ItemWrite(item=item, chunks=(chunk,), vectors=np.asarray(vectors[row : row + 1])))
            store.upsert(writes)
            if start % 100_000 == 0:
                print(f"rows {start:,} at {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        store.close()
    rows_s = time.perf_counter() - started
    started = time.perf_counter()
    SQLiteStore.open(path, DIM, exact_vector_max=exact_max).close()  # over exact_vector_max: builds the usearch graph and saves it
    graph_s = time.perf_counter() - started
    out = {"rows": n, "rows_seconds": round(rows_s, 1), "graph_seconds": round(graph_s, 1), "load": os.getloadavg()}
    (root / "store-build.json").write_text(json.dumps(out))
    return out


def _open_store(root: Path, exact_max: int = 200_000):  # noqa: ANN202
    from ..store.sqlite import SQLiteStore

    started = time.perf_counter()
    store = SQLiteStore.open(root / "sqlite", DIM, exact_vector_max=exact_max, read_only=True)
    assert store._vectors.uses_hnsw, "the 1M store should answer from its HNSW graph"
    return store, time.perf_counter() - started


def _row_scores(vectors: np.ndarray, rows: list[int], q: np.ndarray) -> np.ndarray:
    return np.asarray(vectors[np.asarray(rows, dtype=np.int64)], dtype=np.float32) @ q


def sweep_store(root: Path, efs: tuple[int, ...] = EF_SWEEP, depths: tuple[int, ...] = (10, 100), *,
                exact_max: int = 200_000, queries: int = SAMPLE) -> dict[str, Any]:
    from ..types import SearchFilter

    corpus = load_corpus(root)
    store, open_s = _open_store(root, exact_max)
    graph = store._vectors._hnsw
    default_ef = graph.expansion_search
    pick = _sample(len(corpus["queries"]), queries)
    f = SearchFilter()
    out: dict[str, Any] = {"open_seconds": round(open_s, 1), "store_default_ef": default_ef, "queries": len(pick),
                           "load_before": os.getloadavg()[0], "ef": {}}
    try:
        key_row = _key_to_row(store)
        for ef in efs:
            graph.expansion_search = ef
            point: dict[str, Any] = {}
            for depth in depths:
                times, recalls = [], []
                for j in pick:
                    q = corpus["queries"][j]
                    t = time.perf_counter()
                    page = store.vector_search(q, f, depth)
                    times.append((time.perf_counter() - t) * 1000)
                    rows = [key_row(k) for k, _ in page.hits[:10]]
                    recalls.append(tie_aware_recall(_row_scores(corpus["vectors"], rows, q), corpus["truth_scores"][j, 9]))
                point[f"k{depth}"] = {"recall_at_10": round(statistics.fmean(recalls), 4), **_timing(times)}
            out["ef"][str(ef)] = point
    finally:
        graph.expansion_search = default_ef
        store.close()
    out["load_after"] = os.getloadavg()[0]
    return out


def _key_to_row(store):  # noqa: ANN001, ANN202
    """Chunk key → corpus row, checked on the store itself (ids are ``r<row>#0``)."""
    probe = store.hydrate([1, 2, store._vectors.live // 2])
    offset = {int(v.chunk.id[1:].split("#")[0]) - key for key, v in probe.items()}
    assert len(offset) == 1, f"chunk keys are not one offset from rows: {offset}"
    shift = offset.pop()
    return lambda key: int(key) + shift


def hybrid(root: Path, ef: int | None, depth: int = 100) -> dict[str, Any]:
    """Keyword + vector (depth 100 each, concurrently) + RRF + hydrate, as ``bench --suite scaling`` times it."""
    from ..types import SearchFilter

    corpus = load_corpus(root)
    texts, _ = real_queries(Path("../shared/datasets"))
    store, open_s = _open_store(root)
    graph = store._vectors._hnsw
    default_ef = graph.expansion_search
    if ef is not None:
        graph.expansion_search = ef
    vectors = corpus["vectors"]
    matrix = np.ascontiguousarray(vectors)  # the numpy yardstick scans the same 1M rows in RAM
    f = SearchFilter()
    hybrid_ms, numpy_ms, kw_ms, vec_ms = [], [], [], []
    load_before = os.getloadavg()[0]
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for i, j in enumerate(_sample(len(texts))):
                text, q = texts[j], corpus["queries"][j]

                def run_hybrid() -> None:
                    assert hybrid_page(store, pool, text, q, f, depth)

                def baseline() -> None:
                    np.argpartition(-(matrix @ q), depth)[:depth]

                runs = [(run_hybrid, hybrid_ms), (baseline, numpy_ms)]
                for fn, sink in runs if i % 2 == 0 else reversed(runs):
                    t = time.perf_counter()
                    fn()
                    sink.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                store.keyword_search(text, f, depth)
                kw_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                store.vector_search(q, f, depth)
                vec_ms.append((time.perf_counter() - t) * 1000)
    finally:
        graph.expansion_search = default_ef
        store.close()
    return {"ef": ef or default_ef, "queries": len(hybrid_ms), "open_seconds": round(open_s, 1),
            "hybrid": _timing(hybrid_ms), "keyword_leg": _timing(kw_ms), "vector_leg": _timing(vec_ms),
            "numpy_exact_1m": _timing(numpy_ms),
            "ratio_p95_hybrid_over_numpy": round(float(np.percentile(hybrid_ms, 95) / np.percentile(numpy_ms, 95)), 3),
            "load_before": load_before, "load_after": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> None:
    from .recall_pg import build_pg, sweep_pg

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build-store", "build-pg", "sweep-store", "sweep-pg", "hybrid"])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--ef", type=int, nargs="*", help="ef values to sweep (hybrid: the one ef to run at)")
    args = parser.parse_args(argv)
    if args.command == "build-store":
        out = build_store(args.dir)
    elif args.command == "build-pg":
        out = build_pg(args.dir)
    elif args.command == "sweep-store":
        out = sweep_store(args.dir, tuple(args.ef) if args.ef else EF_SWEEP)
    elif args.command == "sweep-pg":
        out = sweep_pg(args.dir, tuple(args.ef) if args.ef else EF_SWEEP)
    else:
        out = hybrid(args.dir, args.ef[0] if args.ef else None)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
