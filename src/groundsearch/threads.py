"""Native thread pools sized for how retrieval runs: one BLAS thread per call, parallelism from the legs.

The keyword and vector legs already run concurrently on a thread pool, so an exact vector scan whose
mat-vec also spreads over every core oversubscribes them: measured on SciFact (2 cores), hybrid top-10 took
11.8 ms p50 with OpenBLAS's default threading against 2.1 ms with it held to one thread — the mat-vec is
memory-bound and stalls waiting for cores the other leg holds. ONNX Runtime's threads are set per session
(``models/onnx.py``); this module sizes the BLAS pool, process-wide, once.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["limit_blas_threads"]

log = logging.getLogger("groundsearch.threads")

_limiter: Any = None  # threadpoolctl's limiter, kept so the limit is not undone when it is garbage-collected


def limit_blas_threads(threads: int) -> int | None:
    """Hold every BLAS library numpy loaded to ``threads`` threads; returns the previous maximum.

    ``threads <= 0`` leaves them as they are. Process-wide by nature (OpenBLAS has one pool), so it runs at
    engine start, not around each scan — threadpoolctl's context manager is neither free nor thread-safe.
    """
    global _limiter
    if threads <= 0:
        return None
    import numpy  # noqa: F401  (load numpy's BLAS before threadpoolctl looks for it)
    from threadpoolctl import threadpool_info, threadpool_limits

    before = max((p.get("num_threads", 1) for p in threadpool_info() if p.get("user_api") == "blas"), default=None)
    _limiter = threadpool_limits(limits=threads, user_api="blas")
    if before is not None and before != threads:
        log.debug("BLAS threads %s -> %s", before, threads)
    return before
