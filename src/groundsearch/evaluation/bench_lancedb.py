"""``groundsearch bench --suite lancedb``: hybrid top-10 beside LanceDB, same vectors, same process.

On the MiniLM-embedded SciFact index that ``groundsearch eval`` caches, every chunk's stored text (title and
body, what the keyword leg indexes) and stored vector are copied into a LanceDB table with a full-text index,
so both systems answer from identical inputs. The claims then run in alternating rounds: groundsearch's hybrid
page as the engine runs it (``bench_store.hybrid_page``: both legs concurrently at depth 100, RRF, top 10
hydrated) under the engine's own thread settings, and LanceDB's hybrid query (its full-text and vector search,
its default RRF reranker, top 10, rows returned). LanceDB scans the vectors exactly here, as the store does
below ``retrieval.exact_vector_max``; neither side builds an ANN index at this size.
"""

from __future__ import annotations

import sqlite3
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ..types import SearchFilter
from .bench_store import _timing, hybrid_page

__all__ = ["bench_lancedb"]

ROUNDS = 5
DEPTH = 100


def _stored_chunks(data_dir: Path, dim: int) -> tuple[list[int], list[str], np.ndarray]:
    """Every embedded chunk of the store file, read-only: key, "title\\nbody", vector."""
    conn = sqlite3.connect(f"file:{data_dir / 'store.sqlite3'}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT c.key, i.title, c.text, c.vector FROM chunks c JOIN items i "
                            "ON i.rowid = c.item_rowid WHERE c.vector IS NOT NULL ORDER BY c.key").fetchall()
    finally:
        conn.close()
    vectors = np.frombuffer(b"".join(r[3] for r in rows), dtype="<f4").reshape(len(rows), dim)
    return [int(r[0]) for r in rows], [f"{r[1]}\n{r[2]}" for r in rows], vectors.astype(np.float32)


def bench_lancedb(engine: Any, queries: list[str], rounds: int = ROUNDS) -> dict[str, Any]:
    import lancedb
    import pyarrow as pa

    store = engine.store
    keys, texts, vectors = _stored_chunks(store.data_dir, store.dim)
    qvecs = list(engine.embedder.embed_queries(queries))
    f = SearchFilter()
    with tempfile.TemporaryDirectory(prefix="gs-lancedb-") as tmp:
        db = lancedb.connect(tmp)
        schema = pa.schema([pa.field("key", pa.int64()), pa.field("text", pa.string()),
                            pa.field("vector", pa.list_(pa.float32(), store.dim))])
        table = db.create_table("chunks", data=pa.table(
            {"key": keys, "text": texts, "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(vectors.reshape(-1)), store.dim)}, schema=schema))
        table.create_fts_index("text")

        def theirs(q: str, v: np.ndarray) -> object:
            return (table.search(query_type="hybrid").vector(v).text(q).limit(10).to_arrow())

        times: dict[str, list[float]] = {"groundsearch": [], "lancedb": []}
        with ThreadPoolExecutor(max_workers=2) as pool:
            def ours(q: str, v: np.ndarray) -> object:
                return hybrid_page(store, pool, q, v, f, DEPTH)

            runners = {"groundsearch": ours, "lancedb": theirs}
            for q, v in list(zip(queries, qvecs))[:20]:  # warm both
                ours(q, v)
                theirs(q, v)
            for r in range(rounds):
                for name in (("groundsearch", "lancedb") if r % 2 == 0 else ("lancedb", "groundsearch")):
                    run = runners[name]
                    for q, v in zip(queries, qvecs):
                        t = time.perf_counter()
                        run(q, v)
                        times[name].append((time.perf_counter() - t) * 1000)
    out: dict[str, Any] = {"chunks": len(keys), "queries": len(queries), "rounds": rounds,
                           "lancedb_version": lancedb.__version__}
    out.update({name: _timing(values) for name, values in times.items()})
    per_round = [statistics.median(times["lancedb"][i * len(queries):(i + 1) * len(queries)])
                 / statistics.median(times["groundsearch"][i * len(queries):(i + 1) * len(queries)])
                 for i in range(rounds)]
    out["ratio_p50_lancedb_over_groundsearch"] = round(out["lancedb"]["p50_ms"] / out["groundsearch"]["p50_ms"], 2)
    out["ratio_per_round"] = {"min": round(min(per_round), 2), "median": round(statistics.median(per_round), 2),
                              "max": round(max(per_round), 2)}
    return out
