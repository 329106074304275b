"""BM25 in Postgres, scored exactly as the embedded tantivy index scores it.

Tantivy's BM25 (``tantivy::query::bm25``), which we match term for term:

* ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` with ``N`` and ``df`` over *every* indexed chunk,
  whatever the filter (filters select results; they do not change collection statistics);
* per term ``idf * (k1 + 1) * tf / (tf + k1 * (1 - b + b * len / avglen))``, summed over the *distinct*
  query terms (the embedded index ORs one term query per distinct term);
* ``avglen`` is the exact mean number of indexed terms per chunk, but ``len`` is the chunk's length
  *quantised* to one byte the way tantivy (and Lucene) store field norms — see :func:`quantize_length`.

Terms come from :func:`groundsearch.store.text.keyword_terms` for chunks and
:func:`groundsearch.store.text.analyze` for queries, so both backends see the same tokens.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from functools import lru_cache

from .pg_filters import Compiled
from .text import BM25_B, BM25_K1

__all__ = ["keyword_sql", "quantize_length", "term_postings"]

_EXACT_BELOW = 24  # lengths below this are stored exactly; above, 3 mantissa bits per power of two


def _decode_norm(code: int) -> int:
    """Length represented by one-byte norm ``code``: exact below 24, then a small float (3-bit mantissa)."""
    if code < _EXACT_BELOW:
        return code
    rest = code - _EXACT_BELOW
    mantissa, exponent = rest & 0b111, rest >> 3
    return _EXACT_BELOW + (mantissa if exponent == 0 else (mantissa | 0b1000) << (exponent - 1))


@lru_cache(maxsize=1)
def _norm_table() -> tuple[int, ...]:
    return tuple(_decode_norm(code) for code in range(256))


def quantize_length(n_terms: int) -> int:
    """The chunk length BM25 uses: the largest representable norm not above ``n_terms``.

    Quantising costs nothing in quality and is what the embedded index does, so the two backends give
    identical scores for identical corpora instead of merely similar ones.
    """
    table = _norm_table()
    return table[bisect_right(table, max(n_terms, 0)) - 1]


def term_postings(terms: list[str]) -> Counter[str]:
    """Term frequencies of one chunk's indexed terms."""
    return Counter(terms)


def keyword_sql(where: Compiled) -> str:
    """One statement: postings of the query terms → per-chunk BM25 (df over all chunks) → filtered page.

    Scoring reads postings alone (each carries its chunk's quantised length); chunks and items are joined
    only while walking candidates in score order, so an unselective filter costs ``limit`` look-ups,
    not one per matching chunk. Ties break on the chunk's insertion key, stable across pages.
    Placeholders: ``terms`` (text[], distinct), ``k1``, ``b``, ``lim``, ``off`` plus ``where``'s.
    """
    return f"""
WITH st AS (
    SELECT n_chunks::float8 AS n, CASE WHEN n_chunks > 0 THEN n_terms::float8 / n_chunks ELSE 1 END AS avglen
    FROM corpus_stats
), p AS (
    SELECT chunk_pk, tf, norm_terms, count(*) OVER (PARTITION BY term)::float8 AS df
    FROM postings WHERE term = ANY(%(terms)s::text[])
), scored AS MATERIALIZED (
    SELECT p.chunk_pk, sum(
        ln(1 + (st.n - p.df + 0.5) / (p.df + 0.5)) * (%(k1)s + 1) * p.tf
        / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.norm_terms / GREATEST(st.avglen, 1e-9)))
    ) AS score
    FROM p CROSS JOIN st
    GROUP BY p.chunk_pk
    ORDER BY score DESC, p.chunk_pk
)
SELECT s.chunk_pk, s.score
FROM scored s
JOIN chunks c ON c.pk = s.chunk_pk
JOIN items i ON i.id = c.item_id
WHERE {where.sql}
ORDER BY s.score DESC, s.chunk_pk
LIMIT %(lim)s OFFSET %(off)s
"""


BM25_PARAMS = {"k1": BM25_K1, "b": BM25_B}
