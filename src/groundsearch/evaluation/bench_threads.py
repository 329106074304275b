"""``groundsearch bench --suite threads``: hybrid latency with the engine's BLAS threading against pinned.

On the MiniLM-embedded SciFact index that ``groundsearch eval`` caches, the 300 claims run as the engine
runs them — keyword and vector legs concurrently, RRF, the top 10 hydrated — in interleaved rounds under
three settings of numpy's BLAS pool: as ``Engine.open`` leaves it (``retrieval.blas_threads``), pinned to
one thread, and the library's own default (one thread per core: what the product did before). The suite
fails loudly (``ok: false`` and a message) when the engine's default is more than 20% slower at p50 than
pinned, since that is the oversubscription this setting exists to prevent.
"""

from __future__ import annotations

import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..types import SearchFilter
from .bench_store import _timing, hybrid_page

__all__ = ["bench_threads", "TOLERANCE"]

TOLERANCE = 1.2  # the engine's default may be at most this much slower than pinned at p50
ROUNDS = 5
DEPTH = 100


def bench_threads(engine: Any, queries: list[str], rounds: int = ROUNDS) -> dict[str, Any]:
    """``engine`` is open (so its BLAS limit is applied); returns p50/p95 per setting and the ratios."""
    from threadpoolctl import threadpool_info, threadpool_limits

    blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    engine_threads = max((p["num_threads"] for p in blas), default=1)
    library_default = os.cpu_count() or 1
    vectors = list(engine.embedder.embed_queries(queries))
    f = SearchFilter()
    settings = {"engine_default": engine_threads, "pinned_1": 1, "library_default": library_default}
    times: dict[str, list[float]] = {name: [] for name in settings}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for q, v in list(zip(queries, vectors))[:20]:  # warm both legs' caches
            hybrid_page(engine.store, pool, q, v, f, DEPTH)
        for r in range(rounds):
            order = list(settings) if r % 2 == 0 else list(reversed(settings))
            for name in order:
                with threadpool_limits(limits=settings[name], user_api="blas"):
                    for q, v in zip(queries, vectors):
                        t = time.perf_counter()
                        hybrid_page(engine.store, pool, q, v, f, DEPTH)
                        times[name].append((time.perf_counter() - t) * 1000)
    out: dict[str, Any] = {"queries": len(queries), "rounds": rounds, "blas_threads": settings,
                           "blas_libraries": sorted({p.get("internal_api", "?") for p in blas})}
    out.update({name: _timing(values) for name, values in times.items()})
    pinned = out["pinned_1"]["p50_ms"]
    out["ratio_p50_engine_default_over_pinned"] = round(out["engine_default"]["p50_ms"] / pinned, 2)
    out["ratio_p50_library_default_over_pinned"] = round(out["library_default"]["p50_ms"] / pinned, 2)
    out["ok"] = out["ratio_p50_engine_default_over_pinned"] <= TOLERANCE
    if not out["ok"]:
        out["message"] = (f"the engine's default threading is {out['ratio_p50_engine_default_over_pinned']}x "
                          f"the pinned p50 (tolerance {TOLERANCE}x): BLAS threads are oversubscribed")
    out["p50_spread_ms"] = {name: round(statistics.pstdev(values), 3) for name, values in times.items()}
    return out
