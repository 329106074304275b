"""The Postgres keyword leg: exact BM25 top-k that stops reading postings early.

Scoring every posting of every query term (``pg_bm25.keyword_sql``) costs time linear in the terms'
document frequencies: 145 ms p50 at 100k chunks. Here each term's postings are read best-first from a
B-tree on ``(term, impact DESC)`` — Fagin's threshold algorithm with term-at-a-time rescoring:

1. read the ``m`` highest-impact postings of each query term; their chunks are the candidates;
2. score every candidate *exactly* (all its query terms, by primary-key probes) with the same formula as
   ``keyword_sql``, apply the filter, keep the best ``offset + limit + 1``;
3. a chunk in no list has, for each term, an impact at most that list's last one read, so its score is at
   most ``bound = Σ idf · (k1 + 1) · last_impact · drift``. When the last row needed scores above the bound
   (or every list is exhausted) the page is exact; otherwise ``m`` grows four-fold and the round repeats.

``drift = max(1, avglen / impact_ref_min)`` keeps the bound valid although impacts were computed with the
mean length of the corpus when each posting was written: with ``D(A) = tf + k1(1-b) + k1·b·len/A``, the
true term factor over the stored one is ``D(ref)/D(avglen) ≤ max(1, avglen/ref)``. Scores are never taken
from the stored impacts, so results equal the exhaustive query's exactly (tests/postgres/test_keyword_topk.py).
When the bound cannot be beaten cheaply — many impacts tied at the bound, a selective filter, terms whose
lists are short anyway — the leg stops the rounds once the next would probe more than ``SCAN_SHARE`` of the
terms' postings, and scores every posting in one pass instead (``exhaustive_keyword_sql``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from .pg_filters import Compiled
from .text import BM25_B, BM25_K1

__all__ = ["FIRST_DEPTH", "GROWTH", "SCAN_SHARE", "exhaustive_keyword_sql", "impact", "keyword_top",
           "refresh_impacts", "term_df_deltas"]

FIRST_DEPTH = 256  # postings read per term in the first round (at least the page size)
GROWTH = 4  # depth multiplier per round: few rounds, and at most ~1/3 of the last round's work wasted
_SLACK = 1e-9  # relative: the bound is compared after float rounding of both sides
# A round probes every candidate (up to depth × terms) once per query term by primary key, dearer per posting
# than the one sequential pass of the exhaustive query. When the next round's probes would pass this share of
# the terms' postings, the leg runs that pass instead (measured: on a 20k-chunk corpus whose equal chunk
# lengths tie most impacts, rounds until the lists ran out took 5x the single pass).
SCAN_SHARE = 0.125


def impact(tf: int, norm_terms: int, ref: float) -> float:
    """A posting's BM25 term factor without idf and the constant ``k1 + 1``, at mean length ``ref``."""
    return tf / (tf + BM25_K1 * (1 - BM25_B + BM25_B * norm_terms / max(ref, 1e-9)))


def term_df_deltas(added: Sequence[str], removed: Sequence[str]) -> list[tuple[str, int]]:
    """Per-term change in document frequency for ``term_stats``, sorted by term: writers take the rows'
    locks in one global order, so two concurrent writers never deadlock on them."""
    delta: dict[str, int] = {}
    for term in added:
        delta[term] = delta.get(term, 0) + 1
    for term in removed:
        delta[term] = delta.get(term, 0) - 1
    return sorted((t, d) for t, d in delta.items() if d)


def _round_sql(where: Compiled) -> str:
    """One round; placeholders ``terms``, ``m``, ``need``, ``k1``, ``b`` plus the filter's."""
    return f"""
WITH st AS (
    SELECT n_chunks::float8 AS n,
           CASE WHEN n_chunks > 0 THEN n_terms::float8 / n_chunks ELSE 1 END AS avglen,
           COALESCE(impact_ref_min, 1) AS ref
    FROM corpus_stats
), q AS (
    SELECT ts.term, ln(1 + (st.n - ts.df + 0.5) / (ts.df + 0.5)) AS idf
    FROM term_stats ts CROSS JOIN st
    WHERE ts.term = ANY(%(terms)s::text[]) AND ts.df > 0
), top AS MATERIALIZED (
    SELECT q.term, x.chunk_pk, x.impact
    FROM q CROSS JOIN LATERAL (
        SELECT p.chunk_pk, p.impact FROM postings p WHERE p.term = q.term ORDER BY p.impact DESC LIMIT %(m)s
    ) x
), edge AS (
    SELECT q.idf, count(t.chunk_pk) AS got, min(t.impact) AS last
    FROM q LEFT JOIN top t ON t.term = q.term
    GROUP BY q.term, q.idf
), scored AS MATERIALIZED (
    SELECT p.chunk_pk, sum(
        q.idf * (%(k1)s + 1) * p.tf
        / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.norm_terms / GREATEST(st.avglen, 1e-9)))
    ) AS score
    FROM (SELECT DISTINCT chunk_pk FROM top) cand
    CROSS JOIN q
    JOIN postings p ON p.term = q.term AND p.chunk_pk = cand.chunk_pk
    CROSS JOIN st
    GROUP BY p.chunk_pk
), page AS (
    SELECT s.chunk_pk, s.score
    FROM scored s
    JOIN chunks c ON c.pk = s.chunk_pk
    JOIN items i ON i.id = c.item_id
    WHERE {where.sql}
    ORDER BY s.score DESC, s.chunk_pk
    LIMIT %(need)s
)
SELECT
    (SELECT COALESCE(sum(CASE WHEN e.got < %(m)s THEN 0
                              ELSE e.idf * (%(k1)s + 1) * e.last * GREATEST(1, st.avglen / st.ref) END), 0)
     FROM edge e CROSS JOIN st) AS bound,
    (SELECT COALESCE(array_agg(chunk_pk ORDER BY score DESC, chunk_pk), '{{}}') FROM page) AS keys,
    (SELECT COALESCE(array_agg(score ORDER BY score DESC, chunk_pk), '{{}}') FROM page) AS scores
"""


def keyword_top(conn: psycopg.Connection, terms: list[str], where: Compiled, need: int) -> list[tuple[int, float]]:
    """The best ``need`` filtered chunks for distinct ``terms`` as ``(key, score)``, best first, exact."""
    total = conn.execute("SELECT COALESCE(sum(df), 0)::float8 FROM term_stats WHERE term = ANY(%s::text[])",
                         (terms,)).fetchone()[0]  # type: ignore[index]
    depth = max(FIRST_DEPTH, need)
    sql = _round_sql(where).encode()
    # The planner sizes each LATERAL top-m with a generic estimate (~100 postings a term), so it reads the
    # whole list by bitmap heap scan and sorts it — the very cost the impact index exists to avoid (EXPLAIN:
    # 3,366 heap blocks for 265 rows). Without bitmap scans it walks (term, impact DESC) and stops at m.
    conn.execute("SET LOCAL enable_bitmapscan = off")
    while depth * len(terms) ** 2 <= SCAN_SHARE * total:  # candidates × probes each, against one pass
        params: dict[str, Any] = {"terms": terms, "m": depth, "need": need, "k1": BM25_K1, "b": BM25_B,
                                  **where.params}
        bound, keys, scores = conn.execute(sql, params).fetchone()  # type: ignore[misc]
        rows = [(int(k), float(s)) for k, s in zip(keys, scores)]
        exhausted = bound == 0  # every list read to its end: the candidates are all the matches
        if exhausted or (len(rows) == need and rows[-1][1] > bound * (1 + _SLACK)):
            return rows
        depth *= GROWTH
    conn.execute("SET LOCAL enable_bitmapscan = on")  # the one pass reads whole lists: bitmap scans suit it
    rows = conn.execute(exhaustive_keyword_sql(where.sql).encode(),
                        {"terms": terms, "k1": BM25_K1, "b": BM25_B, "lim": need, "off": 0, **where.params})
    return [(int(k), float(s)) for k, s in rows]


def exhaustive_keyword_sql(where: str) -> str:
    """Every posting of every query term scored in one pass, df counted from the postings: what the leg runs
    when stopping early would cost more, the benchmark's baseline and the tests' oracle. Placeholders
    ``terms``, ``k1``, ``b``, ``lim``, ``off`` plus the filter's."""
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
    FROM p CROSS JOIN st GROUP BY p.chunk_pk
)
SELECT s.chunk_pk, s.score FROM scored s JOIN chunks c ON c.pk = s.chunk_pk JOIN items i ON i.id = c.item_id
WHERE {where} ORDER BY s.score DESC, s.chunk_pk LIMIT %(lim)s OFFSET %(off)s
"""


def refresh_impacts(conn: psycopg.Connection) -> dict[str, float]:
    """Recompute every posting's impact at the corpus's current mean length, in the caller's transaction.

    Results never depend on it — the bound scales with how far the mean length drifted since impacts were
    written — but a large drift loosens the bound, so the keyword leg reads more postings. The row lock on
    ``corpus_stats`` is taken first: a writer still in flight records the reference it used in
    ``impact_ref_min`` after this commits, so the bound stays valid for its postings too. Rewrites every
    posting: run it off-peak. Returns the previous and the new reference length.
    """
    old = conn.execute("SELECT impact_ref_min FROM corpus_stats FOR UPDATE").fetchone()[0]  # type: ignore[index]
    new = conn.execute(
        "UPDATE corpus_stats SET impact_avglen = CASE WHEN n_chunks > 0 THEN n_terms::float8 / n_chunks END,"
        " impact_ref_min = CASE WHEN n_chunks > 0 THEN n_terms::float8 / n_chunks END RETURNING impact_avglen"
    ).fetchone()[0]  # type: ignore[index]
    if new is not None:
        conn.execute("UPDATE postings SET impact = tf / (tf + %(k1)s * (1 - %(b)s + %(b)s * norm_terms / %(r)s))",
                     {"k1": BM25_K1, "b": BM25_B, "r": new})
    return {"previous_reference": float(old or 0.0), "reference": float(new or 0.0)}
