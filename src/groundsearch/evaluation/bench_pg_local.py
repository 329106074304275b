"""What the per-worker local keyword leg on Postgres costs (store/pg_local_keyword.py), for bench_postgres.

Measured on the benchmark's own Postgres store, in the same run as the latency side by side:

* start-up: building the worker's index from the tables (what a new worker pays once), its size on disk
  and the resident memory the build added to the process;
* freshness: the per-search read of ``log_seq``, and a write on *another* worker followed at once by a
  search on this one (write → visible latency; every write must be found);
* parity: top 10 against the embedded store, rank by rank (equal scores may trade places: the stores
  number their chunks in different orders).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..store.sqlite import SQLiteStore
from ..types import Chunk, Item, ItemWrite, SearchFilter
from .bench_store import _timing

__all__ = ["freshness_costs", "startup_costs", "top10_parity"]


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def startup_costs(pg: Any) -> dict[str, Any]:
    """Start-up build and footprint of ``pg``'s local leg (``pg`` opened with ``keyword_leg="local"``)."""
    leg = pg.local_keyword
    rss = _rss_mb()
    began = time.perf_counter()
    leg.catch_up()
    build_s = time.perf_counter() - began
    out: dict[str, Any] = {
        "startup_build_seconds": round(build_s, 2),
        "startup_build_chunks": leg.rebuilds[-1]["chunks"] if leg.rebuilds else None,
        "index_disk_mb": round(_du_mb(leg.path), 1),
        "rss_added_by_build_mb": round(_rss_mb() - rss, 1),
    }
    return out


def freshness_costs(pg: Any, dsn: str, dim: int, writes: int = 20) -> dict[str, Any]:
    """The per-search ``log_seq`` read, and searches right after another worker's write.

    Run last: the writes go through a second store (another worker) and are deleted again afterwards, so a
    reused corpus keeps its items, but the deleted documents stay in the local index's statistics until
    tantivy merges them away."""
    from ..store.postgres import PostgresStore

    out: dict[str, Any] = {}
    seq_reads = []
    for _ in range(200):
        t = time.perf_counter()
        pg.local_keyword._log_seq()
        seq_reads.append((time.perf_counter() - t) * 1000)
    out["freshness_check_per_search"] = _timing(seq_reads)
    other = PostgresStore.open(dsn, dim=dim, pool_size=1, keyword_leg="sql")
    visible, seen = [], 0
    try:
        for j in range(writes):
            word = f"freshnessprobe{j}x"
            item = Item(id=f"fresh-{j}", collection="synthetic", title="probe", text=word, content_hash=f"fresh-{j}")
            other.upsert([ItemWrite(item=item, chunks=(Chunk(id=f"fresh-{j}#0", item_id=item.id, position=0, text=word),),
                                    vectors=None)])
            t = time.perf_counter()
            hits = pg.keyword_search(word, SearchFilter(), 10).hits
            visible.append((time.perf_counter() - t) * 1000)
            seen += len(hits) == 1
    finally:
        other.delete([f"fresh-{j}" for j in range(writes)])
        other.close()
    out["search_right_after_another_workers_write"] = {**_timing(visible), "found": f"{seen}/{writes}"}
    return out


def top10_parity(pg: Any, lite: SQLiteStore, texts: list[str]) -> dict[str, Any]:
    """Queries whose top 10 equal the embedded store's rank by rank, scores within 1e-5 relative."""
    f = SearchFilter()
    same_scores = same_items = 0
    for text in texts:
        ours, theirs = pg.keyword_search(text, f, 10).hits, lite.keyword_search(text, f, 10).hits
        a, b = [s for _, s in ours], [s for _, s in theirs]
        same_scores += len(a) == len(b) and all(abs(x - y) <= 1e-5 * max(1.0, abs(y)) for x, y in zip(a, b))
        same_items += _item_ids(pg, ours) == _item_ids(lite, theirs)
    return {"top10_scores_equal_rank_by_rank": f"{same_scores}/{len(texts)}",
            "top10_item_ids_equal_in_order": f"{same_items}/{len(texts)}"}


def _item_ids(store: Any, hits: Any) -> list[str]:
    views = store.hydrate([k for k, _ in hits])
    return [views[k].item.id for k, _ in hits]
