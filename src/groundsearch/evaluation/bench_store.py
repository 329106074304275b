"""Benchmarks of the embedded store's legs, returned as dicts of figures (``groundsearch bench`` prints them).

* :func:`bench_vector_leg` — the store's ``vector_search`` against a plain exact numpy search over the same
  random unit vectors, timed alternately in one process: p50/p95 ms of each and recall@10 of ours against
  the exact top 10. Random 384-d unit vectors are the hardest case for a graph index (every point is
  nearly equidistant), so recall here is a floor, not a typical figure.
* :func:`bench_scaling` — hybrid (keyword + vector legs run concurrently, fused with RRF, no rerank)
  latency at growing chunk counts, on **synthetic** data: text drawn from a Zipfian vocabulary of
  pseudo-words and random unit vectors. Each size runs in a fresh process so its peak RSS is its own
  (``spawn`` start method: a script calling it must guard its body with ``if __name__ == "__main__":``,
  or the child re-runs the script).

Noise: the machine is shared, so every comparison is made side by side in the same process, and the
figures are medians/percentiles over many queries, never single timings.
"""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from ..query.fusion import reciprocal_rank_fusion
from ..store.base import Store
from ..store.sqlite import SQLiteStore
from ..types import Chunk, ChunkView, Hit, Item, ItemWrite, SearchFilter

__all__ = ["bench_scaling", "bench_vector_leg", "synthetic_vocabulary"]

_BATCH = 2_000  # items per upsert while building: one SQLite transaction and one tantivy commit each
_SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]  # 80 syllables → pronounceable pseudo-words
ZIPF_S = 1.07  # exponent of English word frequencies (Zipf's law, s ≈ 1)


def _pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def _timing(values: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": round(_pct(values, 50), 3), "p95_ms": round(_pct(values, 95), 3),
            "mean_ms": round(statistics.fmean(values), 3)}


def hybrid_page(store: Store, pool: ThreadPoolExecutor, text: str, q: np.ndarray, f: SearchFilter,
                depth: int) -> dict[int, ChunkView]:
    """One hybrid query as the engine runs it: both legs concurrently, RRF, then hydrate the top 10."""
    kw = pool.submit(store.keyword_search, text, f, depth)
    vec = pool.submit(store.vector_search, q, f, depth)
    fused = reciprocal_rank_fusion({"keyword": kw.result().hits, "vector": vec.result().hits})[:10]
    return store.hydrate([x.key for x in fused])


def page_item_ids(store: Store, hits: Sequence[Hit]) -> set[str]:
    """Item ids behind a leg's hits (for recall against item-level truth; not timed)."""
    return {view.item.id for view in store.hydrate([key for key, _ in hits]).values()}


def unit_vectors(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def synthetic_vocabulary(size: int) -> list[str]:
    """``size`` distinct pseudo-words made of syllables (letters only, so the analyser keeps them)."""
    words: list[str] = []
    i = 0
    while len(words) < size:
        n, parts = i, []
        while True:
            parts.append(_SYLLABLES[n % len(_SYLLABLES)])
            n //= len(_SYLLABLES)
            if n == 0:
                break
        words.append("".join(parts) + "x")  # the suffix keeps Snowball from merging distinct words
        i += 1
    return words


def _zipf_ids(rng: np.random.Generator, vocab: int, count: int) -> np.ndarray:
    ranks = np.arange(1, vocab + 1, dtype=np.float64)
    p = ranks ** -ZIPF_S
    p /= p.sum()
    return rng.choice(vocab, size=count, p=p)


def _build(path: Path, n: int, dim: int, rng: np.random.Generator, vocab: list[str], words_per_chunk: int,
           exact_vector_max: int | None) -> tuple[SQLiteStore, np.ndarray, float]:
    """Fill a store with ``n`` one-chunk items; returns the store, its vectors and the build seconds."""
    kwargs = {} if exact_vector_max is None else {"exact_vector_max": exact_vector_max}
    store = SQLiteStore.open(path, dim, **kwargs)
    all_vectors = np.empty((n, dim), dtype=np.float32)
    started = time.perf_counter()
    for start in range(0, n, _BATCH):
        m = min(_BATCH, n - start)
        vectors = unit_vectors(rng, m, dim)
        all_vectors[start : start + m] = vectors
        if words_per_chunk:
            ids = _zipf_ids(rng, len(vocab), m * words_per_chunk).reshape(m, words_per_chunk)
            texts = [" ".join(vocab[j] for j in row) for row in ids]
        else:
            texts = [f"chunk {start + i}" for i in range(m)]
        writes = []
        for i in range(m):
            item_id = f"s{start + i}"
            item = Item(id=item_id, collection="synthetic", title=f"Synthetic {start + i}", text=texts[i],
                        content_hash=item_id)
            chunk = Chunk(id=f"{item_id}#0", item_id=item_id, position=0, text=texts[i])
            writes.append(ItemWrite(item=item, chunks=(chunk,), vectors=vectors[i : i + 1]))
        store.upsert(writes)
    return store, all_vectors, time.perf_counter() - started


def bench_vector_leg(n: int, dim: int = 384, queries: int = 200, seed: int = 0, *,
                     exact_vector_max: int | None = None) -> dict[str, Any]:
    """The store's vector leg vs exact numpy over the same ``n`` random unit vectors (see module doc)."""
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory(prefix="gs-bench-vec-") as tmp:
        store, matrix, build_s = _build(Path(tmp) / "store", n, dim, rng, [], 0, exact_vector_max)
        try:
            qs = unit_vectors(rng, queries, dim)
            ours_ms: list[float] = []
            exact_ms: list[float] = []
            recalls: list[float] = []
            f = SearchFilter()
            for j, q in enumerate(qs):
                runs: list[tuple[str, Callable[[], Any]]] = [
                    ("ours", lambda: store.vector_search(q, f, 10)),
                    ("exact", lambda: np.argpartition(-(matrix @ q), 10)[:10]),
                ]
                got: dict[str, Any] = {}
                for name, fn in runs if j % 2 == 0 else reversed(runs):  # alternate who runs first
                    t = time.perf_counter()
                    got[name] = fn()
                    (ours_ms if name == "ours" else exact_ms).append((time.perf_counter() - t) * 1000)
                truth = {f"s{i}" for i in got["exact"].tolist()}
                recalls.append(len(truth & page_item_ids(store, got["ours"].hits)) / 10)
            mode = "hnsw" if store._vectors.uses_hnsw else "exact"
        finally:
            store.close()
    return {
        "data": "random unit vectors (synthetic)", "n": n, "dim": dim, "queries": queries, "mode": mode,
        "store_vector_search": _timing(ours_ms), "numpy_exact": _timing(exact_ms),
        "ratio_p50_store_over_numpy": round(_pct(ours_ms, 50) / _pct(exact_ms, 50), 2),
        "recall_at_10": round(statistics.fmean(recalls), 4), "build_seconds": round(build_s, 1),
    }


def time_hybrid(store: Store, queries: Sequence[tuple[str, np.ndarray]], matrix: np.ndarray,
                depth: int) -> tuple[list[float], list[float], list[float], list[float]]:
    """Milliseconds per query of the hybrid page and of a bare exact mat-vec over ``matrix`` (alternating who
    runs first), then of the keyword and the vector leg alone: ``(hybrid, numpy, keyword, vector)``."""
    f = SearchFilter()
    hybrid_ms: list[float] = []
    numpy_ms: list[float] = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for j, (text, q) in enumerate(queries):
            def hybrid() -> None:
                assert hybrid_page(store, pool, text, q, f, depth)

            def baseline() -> None:  # the bare exact matrix-vector product: a yardstick for machine load
                np.argpartition(-(matrix @ q), depth)[:depth]

            runs = [(hybrid, hybrid_ms), (baseline, numpy_ms)]
            for fn, sink in runs if j % 2 == 0 else reversed(runs):
                t = time.perf_counter()
                fn()
                sink.append((time.perf_counter() - t) * 1000)
    kw_ms = _timed(lambda text, q: store.keyword_search(text, f, depth), queries)
    vec_ms = _timed(lambda text, q: store.vector_search(q, f, depth), queries)
    return hybrid_ms, numpy_ms, kw_ms, vec_ms


def _timed(fn: Callable[[str, np.ndarray], Any], queries: Sequence[tuple[str, np.ndarray]]) -> list[float]:
    out = []
    for text, q in queries:
        t = time.perf_counter()
        fn(text, q)
        out.append((time.perf_counter() - t) * 1000)
    return out


def _scaling_one(n: int, dim: int, queries: int, seed: int, vocab_size: int, words_per_chunk: int,
                 depth: int, exact_vector_max: int | None) -> dict[str, Any]:
    """One size, in its own process (so ``ru_maxrss`` is this size's peak)."""
    rng = np.random.default_rng(seed)
    vocab = synthetic_vocabulary(vocab_size)
    with tempfile.TemporaryDirectory(prefix="gs-bench-scale-") as tmp:
        path = Path(tmp) / "store"
        store, matrix, build_s = _build(path, n, dim, rng, vocab, words_per_chunk, exact_vector_max)
        store.close()
        started = time.perf_counter()
        kwargs = {} if exact_vector_max is None else {"exact_vector_max": exact_vector_max}
        store = SQLiteStore.open(path, dim, **kwargs)
        open_s = time.perf_counter() - started
        try:
            texts = [" ".join(vocab[j] for j in _zipf_ids(rng, vocab_size, int(rng.integers(2, 7))))
                     for _ in range(queries)]
            qs = unit_vectors(rng, queries, dim)
            hybrid_ms, numpy_ms, kw_ms, vec_ms = time_hybrid(store, list(zip(texts, qs)), matrix, depth)
            mode = "hnsw" if store._vectors.uses_hnsw else "exact"
        finally:
            store.close()
        disk_mib = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20
    return {
        "chunks": n, "vector_mode": mode, "build_seconds": round(build_s, 1),
        "build_chunks_per_s": round(n / build_s, 1), "reopen_seconds": round(open_s, 2),
        "hybrid": _timing(hybrid_ms), "keyword_leg": _timing(kw_ms), "vector_leg": _timing(vec_ms),
        "baseline_numpy_matvec": _timing(numpy_ms),
        "ratio_p95_hybrid_over_numpy_matvec": round(_pct(hybrid_ms, 95) / _pct(numpy_ms, 95), 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "disk_mib": round(disk_mib, 1),
    }


def bench_scaling(sizes: Sequence[int] = (10_000, 100_000, 1_000_000), dim: int = 384, queries: int = 200,
                  seed: int = 0, *, vocab_size: int = 50_000, words_per_chunk: int = 80, depth: int = 100,
                  exact_vector_max: int | None = None) -> dict[str, Any]:
    """Hybrid query latency, build time and peak RSS per size (synthetic data; see module doc)."""
    results: dict[str, Any] = {}
    for n in sizes:
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            started = time.perf_counter()
            fig = pool.submit(_scaling_one, n, dim, queries, seed, vocab_size, words_per_chunk, depth,
                              exact_vector_max).result()
            fig["wall_seconds"] = round(time.perf_counter() - started, 1)
        results[str(n)] = fig
    return {
        "data": f"synthetic: Zipf(s={ZIPF_S}) text over {vocab_size} pseudo-words, {words_per_chunk} words/chunk, "
                f"random {dim}-d unit vectors; queries of 2-6 Zipf words",
        "legs": f"keyword + vector ({depth} each, concurrent) fused with RRF k=60, top 10, no rerank",
        "queries": queries, "sizes": results,
    }
