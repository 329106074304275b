"""BM25 in Postgres, scored exactly as the embedded tantivy index scores it.

Tantivy's BM25 (``tantivy::query::bm25``), which we match term for term:

* ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` with ``N`` and ``df`` over the chunks of the scopes the
  caller may see — its tenant's, published or also drafts (``keyword_scope.py``, ``scope_stats``) — whatever
  else the filter narrows (collections, dates and fields select results; they do not change statistics);
* per term ``idf * (k1 + 1) * tf / (tf + k1 * (1 - b + b * len / avglen))``, summed over the *distinct*
  query terms (the embedded index ORs one term query per distinct term);
* ``avglen`` is the exact mean number of indexed terms per chunk of the chunk's own scope, but ``len`` is the chunk's length
  *quantised* to one byte the way tantivy (and Lucene) store field norms — see :func:`quantize_length`.

Terms come from :func:`groundsearch.store.text.keyword_terms` for chunks and
:func:`groundsearch.store.text.analyze` for queries, so both backends see the same tokens. The query that
scores them, reading each term's postings best-first and stopping early, is in ``pg_keyword.py``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from functools import lru_cache


__all__ = ["quantize_length", "term_postings"]

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
