"""The vector leg's SQL: exact scan for small candidate sets, pgvector HNSW with iterative scans otherwise.

Why two plans: an HNSW index scan visits ``ef_search`` neighbours and then stops, so a selective filter
applied after it can leave a page short. pgvector 0.8's iterative scan keeps walking the graph until the
page is full (or ``max_scan_tuples`` is reached); ``relaxed_order`` lets it return slightly out-of-order
rows, which the outer query re-sorts. When the filter leaves only a few thousand chunks, an exact scan of
those is both cheaper and exact, so pages are always full and paginate consistently.
"""

from __future__ import annotations

from .pg_filters import Compiled

__all__ = ["EXACT_MAX_CANDIDATES", "ann_settings", "ann_sql", "candidates_sql", "exact_sql", "hnsw_index_sql"]

# Below this many candidate chunks an exact scan costs a few ms on one core: never worth approximating.
EXACT_MAX_CANDIDATES = 5_000
# HNSW knobs per query. ef_search must cover offset + limit + 1 rows; 1000 is pgvector's maximum.
EF_SEARCH_MIN = 40
EF_SEARCH_MAX = 1_000
# Tuples an iterative scan may visit before giving up (pgvector's default): bounds the worst case of a
# filter that matches almost nothing in an unlucky region of the graph.
MAX_SCAN_TUPLES = 20_000

_FROM = "FROM chunk_vectors v JOIN chunks c ON c.pk = v.chunk_pk JOIN items i ON i.id = c.item_id"


def candidates_sql(where: Compiled) -> str:
    """How many embedded chunks pass the filter, counted only up to ``cap`` (a cheap selectivity probe)."""
    return f"SELECT count(*) FROM (SELECT 1 {_FROM} WHERE {where.sql} LIMIT %(cap)s) s"


def exact_sql(where: Compiled) -> str:
    """Exact cosine: ordering by the *uncast* column cannot use the expression index, so it scans."""
    return f"""
SELECT c.pk, 1 - (v.embedding <=> %(q)s) AS score
{_FROM}
WHERE {where.sql}
ORDER BY v.embedding <=> %(q)s, c.pk
LIMIT %(lim)s OFFSET %(off)s
"""


def ann_sql(where: Compiled, dim: int) -> str:
    """HNSW scan on the expression index ``embedding::vector(dim)``; ``dim`` is an int we own, never user text."""
    d = int(dim)
    return f"""
WITH ann AS MATERIALIZED (
    SELECT c.pk, (v.embedding::vector({d})) <=> %(q)s::vector({d}) AS distance
    {_FROM}
    WHERE {where.sql}
    ORDER BY (v.embedding::vector({d})) <=> %(q)s::vector({d})
    LIMIT %(n)s
)
SELECT pk, 1 - distance AS score FROM ann ORDER BY distance, pk LIMIT %(lim)s OFFSET %(off)s
"""


def ann_settings(n_rows: int, ef_floor: int | None = None) -> list[tuple[str, str]]:
    """``set_config`` pairs (transaction-local) for one ANN query needing ``n_rows`` rows.

    ``ef_floor`` (``retrieval.hnsw_ef``) raises the beam for every query: at 1M rows recall@10 reaches 0.95 only
    at ef_search 1000, pgvector's maximum, where the vector leg costs ~6× the default's (BENCHMARKS.md, issue 15)."""
    ef = max(EF_SEARCH_MIN, min(EF_SEARCH_MAX, max(n_rows, ef_floor or 0)))
    return [
        ("hnsw.ef_search", str(ef)),
        ("hnsw.iterative_scan", "relaxed_order"),
        ("hnsw.max_scan_tuples", str(MAX_SCAN_TUPLES)),
    ]



def hnsw_index_sql(dim: int, m: int = 16, ef_construction: int = 64) -> str:
    """The HNSW expression index for this store's dimension (pgvector defaults for m/ef_construction)."""
    return (
        f"CREATE INDEX IF NOT EXISTS chunk_vectors_hnsw ON chunk_vectors USING hnsw "
        f"((embedding::vector({int(dim)})) vector_cosine_ops) WITH (m = {int(m)}, ef_construction = {int(ef_construction)})"
    )
