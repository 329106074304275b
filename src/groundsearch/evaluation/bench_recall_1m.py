"""Recall@10 at 1M rows on both backends, the latency at each ``ef``, and the embedded hybrid at 1M (issue 15).

The corpus, queries and exact truth come from ``recall_corpus`` (real MiniLM vectors grown to 1M with
perturbation; real SciFact/MuSiQue queries). Build once, in the background, then sweep in minutes::

    nice -n 15 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m build-store --dir /tmp/recall1m
    nice -n 15 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m build-pg --dir /tmp/recall1m
    OMP_NUM_THREADS=1 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m sweep-store --dir /tmp/recall1m
    OMP_NUM_THREADS=1 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m sweep-pg --dir /tmp/recall1m
    OMP_NUM_THREADS=1 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m hybrid --dir /tmp/recall1m

Other graph knobs, saved beside the store's graph and swept the same way (``--exact-max`` below 200k rows)::

    nice -n 15 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m build-graph --dir /tmp/recall1m \
        --graph graph-c32-e200 --connectivity 32 --expansion-add 200
    OMP_NUM_THREADS=1 .venv/bin/python -m groundsearch.evaluation.bench_recall_1m sweep-graph --dir /tmp/recall1m \
        --graph graph-c32-e200 --ef 128 256 512 1024

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
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .bench_store import _timing
from .recall_corpus import SAMPLE, load_corpus, real_queries, sample_queries as _sample, tie_aware_recall

__all__ = ["build_graph", "build_store", "sweep", "sweep_graph", "sweep_store"]

EF_SWEEP = (64, 128, 192, 256, 384, 512)
PG_EF_SWEEP = (40, 101, 200, 400, 800)  # 40 and 101: what the store sets at limit 10 and at hybrid depth 100
DIM = 384
BATCH = 2_000


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


def _vector_index(root: Path, vectors: np.ndarray, exact_max: int, graph_dir: str = "graph"):  # noqa: ANN202
    """The store's own ``VectorIndex`` over the corpus (chunk key = row + 1), its graph directory under ``root``."""
    from ..store.vectors import NO_DATE, VectorIndex, VectorRows

    index = VectorIndex(DIM, exact_max, root / graph_dir)
    for start in range(0, len(vectors), 100_000):
        rows = np.arange(start, min(len(vectors), start + 100_000), dtype=np.int64)
        index.append(VectorRows(keys=rows + 1, vectors=np.asarray(vectors[start : start + len(rows)]),
                                item_rowids=rows + 1, collections=["recall"] * len(rows),
                                statuses=["published"] * len(rows), superseded=np.zeros(len(rows), dtype=bool),
                                tenants=[""] * len(rows), date_ords=np.full(len(rows), NO_DATE, dtype=np.int32)))
    index.applied_seq = 1
    return index


def build_graph(root: Path, exact_max: int = 200_000, *, connectivity: int | None = None,
                expansion_add: int | None = None, graph_dir: str = "graph") -> dict[str, Any]:
    """The graph as the store builds it (``VectorIndex.ensure_graph``: int8, the store's connectivity and
    expansion_add, every core) and saves it (``checkpoint``), without the SQLite rows and keyword index around it.

    ``connectivity`` / ``expansion_add`` build the same int8 inner-product graph with other knobs (a candidate
    default), saved by the same ``checkpoint`` under ``graph_dir`` so the sweep restores it the store's way."""
    import resource

    from ..store import vectors as store_vectors

    vectors = load_corpus(root)["vectors"]
    index = _vector_index(root, vectors, exact_max, graph_dir)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu = time.process_time()
    started = time.perf_counter()
    if connectivity is None and expansion_add is None:
        index.ensure_graph()
        if index._hnsw is None:
            raise SystemExit(f"{index.live:,} rows are not over exact_max {exact_max:,}: the store would keep no graph")
    else:
        graph = store_vectors._hnsw_class()(
            ndim=DIM, metric="ip", dtype=store_vectors._DTYPE,
            connectivity=connectivity or store_vectors._CONNECTIVITY,
            expansion_add=expansion_add or store_vectors._EXPANSION_ADD,
            expansion_search=store_vectors._EXPANSION_SEARCH)
        live = np.flatnonzero(index._alive[: index._n])
        graph.add(index._keys[live].astype(np.uint64), index._matrix[live], threads=0)
        index._hnsw, index._unsaved = graph, len(live)
    build_s = time.perf_counter() - started
    cpu_s = time.process_time() - cpu
    graph = index._hnsw
    index.checkpoint(force=True)
    out = {"rows": index.live, "connectivity": graph.connectivity, "expansion_add": graph.expansion_add,
           "graph_seconds": round(build_s, 1), "cpu_seconds": round(cpu_s, 1),
           "graph_memory_mb": round(graph.memory_usage / 2**20, 1),
           "file_mb": round((root / graph_dir / "hnsw.usearch").stat().st_size / 2**20, 1),
           # the float32 matrix the store keeps beside the graph is ~1.5 GB of this at 1M x 384
           "peak_rss_mb_before_build": round(rss_before / 1024),
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
           "load": os.getloadavg()}
    (root / f"{graph_dir}-build.json").write_text(json.dumps(out))
    return out


def sweep_graph(root: Path, efs: tuple[int, ...] = EF_SWEEP, depths: tuple[int, ...] = (10, 100), *,
                exact_max: int = 200_000, queries: int = SAMPLE, graph_dir: str = "graph") -> dict[str, Any]:
    """Recall@10 and latency of ``VectorIndex.search`` (graph candidates re-scored exactly) per ``ef``."""
    from ..types import SearchFilter

    corpus = load_corpus(root)
    started = time.perf_counter()
    index = _vector_index(root, corpus["vectors"], exact_max, graph_dir)
    index.attach_hnsw(lambda seq: [], lambda seq: True)  # the store's restore path: checksum, then the graph
    assert index.uses_hnsw and index.repair is None, index.repair
    graph = index._hnsw
    out: dict[str, Any] = {"graph": graph_dir, "connectivity": graph.connectivity,
                           "open_seconds": round(time.perf_counter() - started, 1),
                           "store_default_ef": graph.expansion_search, "load_before": os.getloadavg()[0]}
    mask = index.mask(SearchFilter())
    pick = _sample(len(corpus["queries"]), queries)
    out["queries"] = len(pick)
    out["ef"] = sweep(graph, efs, depths, corpus, pick, lambda q, depth: index.search(q, mask, depth)[1])
    out["load_after"] = os.getloadavg()[0]
    return out


def sweep(graph, efs: tuple[int, ...], depths: tuple[int, ...], corpus: dict[str, Any], pick: np.ndarray,  # noqa: ANN001
          scores_of: Callable[[np.ndarray, int], np.ndarray]) -> dict[str, Any]:
    """Per ``ef`` and depth: tie-aware recall@10 and latency of ``scores_of(query, depth)`` (exact cosines of
    the rows it returns, best first); the graph's own ``ef`` is put back afterwards."""
    default_ef = graph.expansion_search
    out: dict[str, Any] = {}
    try:
        for ef in efs:
            graph.expansion_search = ef
            point: dict[str, Any] = {}
            for depth in depths:
                times, recalls = [], []
                for j in pick:
                    q = corpus["queries"][j]
                    t = time.perf_counter()
                    scores = scores_of(q, depth)
                    times.append((time.perf_counter() - t) * 1000)
                    recalls.append(tie_aware_recall(scores, float(corpus["truth_scores"][j, 9])))
                point[f"k{depth}"] = {"recall_at_10": round(statistics.fmean(recalls), 4), **_timing(times)}
            out[str(ef)] = point
    finally:
        graph.expansion_search = default_ef
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
    pick = _sample(len(corpus["queries"]), queries)
    f = SearchFilter()
    out: dict[str, Any] = {"open_seconds": round(open_s, 1), "store_default_ef": graph.expansion_search,
                           "queries": len(pick), "load_before": os.getloadavg()[0]}
    try:
        key_row = _key_to_row(store)

        def scores_of(q: np.ndarray, depth: int) -> np.ndarray:
            rows = [key_row(k) for k, _ in store.vector_search(q, f, depth).hits[:10]]
            return _row_scores(corpus["vectors"], rows, q)

        out["ef"] = sweep(graph, efs, depths, corpus, pick, scores_of)
    finally:
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


def _baseline_graph(root: Path, graph_dir: str, store):  # noqa: ANN001, ANN202
    """A graph saved by ``build-graph`` (keys = row + 1), checked to index exactly the store's rows."""
    from ..store.vectors import _read_state, _restore_verified

    graph, problem = _restore_verified(root / graph_dir / "hnsw.usearch", _read_state(root / graph_dir), DIM)
    assert problem is None, f"{graph_dir}: {problem}"
    live = store._vectors.live
    assert len(graph) == live, f"{graph_dir} holds {len(graph):,} rows, the store {live:,}"
    assert _key_to_row(store)(1) == 0, "the store's chunk keys are not row + 1, so the saved graph's keys do not match"
    return graph


def _timed_into(sink: list[float], fn: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    out = fn()
    sink.append((time.perf_counter() - started) * 1000)
    return out


def hybrid(root: Path, ef: int | None, depth: int = 100, *, baseline: str | None = None, baseline_ef: int = 128,
           exact_max: int = 200_000, texts: list[str] | None = None) -> dict[str, Any]:
    """Keyword + vector (depth 100 each, concurrently) + RRF + hydrate, as ``bench --suite scaling`` times it, and
    the recall@10 of the store's own ``vector_search`` at limit 10, per graph setting in the same run.

    ``baseline``: a graph directory saved by ``build-graph`` (the old store default is ``graph``); it is swapped
    into the same open store at ``baseline_ef`` query by query, alternating which setting runs first, so the two
    settings share the keyword index, the machine load and everything else."""
    from ..types import SearchFilter
    from .bench_store import hybrid_page

    corpus = load_corpus(root)
    texts = texts or real_queries(Path("../shared/datasets"))[0]  # the texts of the query vectors, in order
    store, open_s = _open_store(root, exact_max)
    index = store._vectors
    own = index._hnsw
    own.expansion_search = ef or own.expansion_search
    settings = {"store": (own, own.expansion_search)}
    if baseline:
        settings["baseline"] = (_baseline_graph(root, baseline, store), baseline_ef)
        settings["baseline"][0].expansion_search = baseline_ef
    matrix = np.ascontiguousarray(corpus["vectors"])  # the numpy yardstick scans the same 1M rows in RAM
    load_before = os.getloadavg()[0]
    pick = _sample(len(texts))
    f = SearchFilter()
    key_row = _key_to_row(store)
    times: dict[str, dict[str, list[float]]] = {name: {"hybrid": [], "vector": [], "recall": []} for name in settings}
    numpy_ms: list[float] = []
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for turn, j in enumerate(pick):
                text, q = texts[j], corpus["queries"][j]
                order = list(settings) if turn % 2 == 0 else list(reversed(settings))
                for name in order:
                    index._hnsw, got = settings[name][0], times[name]
                    assert _timed_into(got["hybrid"], lambda: hybrid_page(store, pool, text, q, f, depth))
                    _timed_into(got["vector"], lambda: store.vector_search(q, f, depth))
                    rows = [key_row(k) for k, _ in store.vector_search(q, f, 10).hits]
                    got["recall"].append(tie_aware_recall(_row_scores(corpus["vectors"], rows, q),
                                                          float(corpus["truth_scores"][j, 9])))
                # the bare exact scan: a yardstick for machine load
                _timed_into(numpy_ms, lambda: np.argpartition(-(matrix @ q), depth)[:depth])
        index._hnsw = own
        kw_ms: list[float] = []
        for j in pick:
            _timed_into(kw_ms, lambda: store.keyword_search(texts[j], f, depth))
    finally:
        index._hnsw = own
        store.close()
    out: dict[str, Any] = {"queries": len(pick), "open_seconds": round(open_s, 1), "keyword_leg": _timing(kw_ms),
                           "numpy_exact_1m": _timing(numpy_ms)}
    for name, (graph, graph_ef) in settings.items():
        got = times[name]
        out[name] = {"graph": baseline if name == "baseline" else "the store's own", "ef": graph_ef,
                     "connectivity": graph.connectivity, "recall_at_10": round(statistics.fmean(got["recall"]), 4),
                     "hybrid": _timing(got["hybrid"]), "vector_leg": _timing(got["vector"]),
                     "ratio_p95_hybrid_over_numpy": round(float(np.percentile(got["hybrid"], 95)
                                                                / np.percentile(numpy_ms, 95)), 3)}
    if baseline:
        out["ratio_p95_hybrid_store_over_baseline"] = round(out["store"]["hybrid"]["p95_ms"]
                                                            / out["baseline"]["hybrid"]["p95_ms"], 3)
    out.update(load_before=load_before, load_after=os.getloadavg()[0])
    return out


def main(argv: list[str] | None = None) -> None:
    from .recall_pg import build_pg, sweep_pg

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build-graph", "sweep-graph", "build-store", "build-pg", "sweep-store",
                                            "sweep-pg", "hybrid"])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--ef", type=int, nargs="*", help="ef values to sweep (hybrid: the one ef to run at)")
    parser.add_argument("--connectivity", type=int, help="build-graph: usearch connectivity (store: 32)")
    parser.add_argument("--expansion-add", type=int, help="build-graph: usearch expansion_add (store: 200)")
    parser.add_argument("--graph", default="graph", help="build-/sweep-graph: graph directory under --dir")
    parser.add_argument("--exact-max", type=int, default=200_000,
                        help="build-/sweep-graph: the store's exact_vector_max (below it the store keeps no graph)")
    parser.add_argument("--baseline", help="hybrid: a graph directory under --dir to time beside the store's own "
                        "(graph: the old default, connectivity 16 / expansion_add 64)")
    parser.add_argument("--baseline-ef", type=int, default=128,
                        help="hybrid: the baseline graph's ef (old default 128)")
    args = parser.parse_args(argv)
    if args.command == "build-graph":
        out = build_graph(args.dir, args.exact_max, connectivity=args.connectivity, expansion_add=args.expansion_add,
                          graph_dir=args.graph)
    elif args.command == "sweep-graph":
        out = sweep_graph(args.dir, tuple(args.ef) if args.ef else EF_SWEEP, exact_max=args.exact_max,
                          graph_dir=args.graph)
    elif args.command == "build-store":
        out = build_store(args.dir)
    elif args.command == "build-pg":
        out = build_pg(args.dir)
    elif args.command == "sweep-store":
        out = sweep_store(args.dir, tuple(args.ef) if args.ef else EF_SWEEP)
    elif args.command == "sweep-pg":
        out = sweep_pg(args.dir, tuple(args.ef) if args.ef else PG_EF_SWEEP)
    else:
        out = hybrid(args.dir, args.ef[0] if args.ef else None, baseline=args.baseline,
                     baseline_ef=args.baseline_ef)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
