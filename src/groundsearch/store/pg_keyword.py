"""The Postgres keyword leg: exact BM25 top-k that reads only the postings that can reach the page.

Scoring every posting of every query term (``exhaustive_keyword_sql``) costs time linear in the terms'
document frequencies — a common word's list is most of the corpus. Each term's postings also sit in a
B-tree on ``(term, impact DESC)``, where ``impact`` bounds the posting's BM25 term factor (see below), and
the leg prunes with two statements:

1. **Threshold.** Read the ``m`` best postings of each term from the impact index; score *exactly* (all
   query terms, filter applied) the ``2 · need`` chunks with the highest impact sum among them; the ``need``-th best score ``θ`` is a lower bound of the page's last score, because those
   chunks are real filtered matches. The same statement returns each term's df, idf and largest impact,
   hence an upper bound ``ub_t`` of what term ``t`` can add to any chunk's score.
2. **Candidates.** A chunk scoring ``≥ θ`` gains ``≥ τ_t = θ - Σ_{u≠t} ub_u`` from every term ``t``:
   * when some ``τ_t > 0`` the term is *required* and only the prefix of its list with
     ``impact ≥ τ_t / w_t`` can hold page chunks (the rarest required terms generate candidates, the list
     prefixes intersected);
   * otherwise (MaxScore) the terms of smallest ``ub`` whose bounds sum below ``θ`` cannot lift a chunk to
     ``θ`` on their own, so only the other terms' lists generate candidates;
   and a candidate whose bound from the lists read plus the others' ``ub`` stays below ``θ`` is dropped.
   The survivors are scored exactly, filtered, and the best ``need`` returned.

Every chunk that can be on the page is a candidate, the filter applies before the cut (a filtered page is
never short), and scores are computed exactly as the exhaustive query does, so pages equal its pages
(tests/postgres/test_keyword_topk.py). Impacts were computed with the corpus's mean length when each posting
was written; with ``D(A) = tf + k1(1-b) + k1·b·len/A`` the true term factor over the stored one is
``D(ref)/D(avglen) ≤ max(1, avglen / impact_ref_min)`` (``drift``), which every bound is multiplied by, so
they stay valid however far the mean length moves. When no pruning is possible (the sample's chunks miss
the filter, or every list is needed whole) the leg runs the exhaustive pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import psycopg

from .keyword_scope import DRAFT, PUBLIC
from .pg_filters import Compiled
from .text import BM25_B, BM25_K1

__all__ = ["FIRST_DEPTH", "GENERATOR_SPREAD", "SHORT_LIST", "exhaustive_keyword_sql", "impact", "keyword_top",
           "refresh_impacts", "scope_deltas", "scope_of_item", "term_df_deltas"]

# Postings per term read for the threshold (at least the page size). Reading them costs little (the impact
# index alone); of the chunks they name, the SAMPLE_SCORED × page size with the highest bound on the index
# are scored exactly, a probe per query term each: chunks high in several lists are the likely page. At 100k
# chunks, 1,024 and 2× left the threshold of four common terms at 2.54 against the page's true 3.76 (22,785
# candidates); 4,096 and 4× reached 3.75 (188). Over 60 queries, alternating, load 30: p50 / p95 146 / 1,045 ms
# (1,024, 2×), 174 / 829 (2,048, 3×), 213 / 708 (4,096, 4×) — the sample's cost against the long tail.
FIRST_DEPTH = 4096
SAMPLE_SCORED = 4
SHORT_LIST = 2048  # a list this short is read whole: as cheap as bounding it, and it never needs a cut
# A required term longer than this many times the rarest required one is checked by probing its postings for
# the candidates instead of reading its list prefix: a probe costs about as much as a few sequential postings.
GENERATOR_SPREAD = 4
_SLACK = 1e-9  # relative: every bound is loosened by this much against float rounding on either side


def impact(tf: int, norm_terms: int, ref: float) -> float:
    """A posting's BM25 term factor without idf and the constant ``k1 + 1``, at mean length ``ref``."""
    return tf / (tf + BM25_K1 * (1 - BM25_B + BM25_B * norm_terms / max(ref, 1e-9)))


def term_df_deltas(added: Sequence[str], removed: Sequence[str]) -> list[tuple[str, int]]:
    """Per-term change in document frequency for ``term_stats``, sorted by term: writers take the rows'
    locks in one global order, so two concurrent writers never deadlock on them."""
    delta = Counter(added)  # counted in C: a batch of 1,000 chunks holds ~60,000 postings
    delta.subtract(removed)
    return sorted((t, d) for t, d in delta.items() if d)


_STATS = """
WITH sp AS MATERIALIZED (
    -- the statistics scopes the caller may see (keyword_scope.py): its tenant's, every tenant's when NULL
    SELECT tenant, visibility, n_chunks::float8 AS n,
           CASE WHEN n_chunks > 0 THEN n_terms::float8 / n_chunks ELSE 1 END AS avglen
    FROM scope_stats
    WHERE visibility = ANY(%(scope_classes)s::text[])
      AND (%(scope_tenant)s::text IS NULL OR tenant = %(scope_tenant)s::text)
), st AS (
    -- avglen: the largest of the scopes' means, for the bound's drift (each chunk is scored with its own)
    SELECT (SELECT COALESCE(sum(n), 0) FROM sp) AS n, (SELECT COALESCE(max(avglen), 1) FROM sp) AS avglen,
           COALESCE(impact_ref_min, 1) AS ref
    FROM corpus_stats
), q AS MATERIALIZED (
    -- df: the term's whole list (which lists to read, and how far); idf: from the scopes' own df
    SELECT ts.term, ts.df, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS idf
    FROM term_stats ts CROSS JOIN st
    CROSS JOIN LATERAL (
        SELECT COALESCE(sum(x.df), 0)::float8 AS df FROM sp JOIN scope_term_stats x
            ON x.tenant = sp.tenant AND x.visibility = sp.visibility AND x.term = ts.term
    ) d
    WHERE ts.term = ANY(%(terms)s::text[]) AND d.df > 0
)"""

# A chunk's scope, for its length normalisation: the mean length of its own partition, as tantivy has it.
# Chunks outside every scope read (another tenant's, a draft for a viewer) drop out here.
_SCOPED = """JOIN chunks sc ON sc.pk = {pk}
    JOIN sp ON sp.tenant = sc.scope_tenant AND sp.visibility = sc.scope_visibility"""


def scope_of_item(tenant: str, status: str) -> tuple[str, str]:
    """The ``scope_stats`` key an item's chunks count under (encoded tenant, visibility class)."""
    return tenant, DRAFT if status == "draft" else PUBLIC


Scope = tuple[str, str]  # (encoded tenant, visibility class)


def scope_deltas(added_terms: Sequence[tuple[Scope, str]], added_chunks: Sequence[tuple[Scope, int]],
                 removed_terms: Sequence[tuple[Scope, str]], removed_chunks: Sequence[tuple[Scope, int]],
                 ) -> tuple[list[tuple[Scope, tuple[int, int]]], list[tuple[tuple[str, str, str], int]]]:
    """Per scope, the change in (chunks, terms), and per (scope, term) the change in df — both sorted by key,
    so concurrent writers lock the rows in one order — from the postings and chunks (with their lengths) a
    write adds and removes."""
    df: Counter[tuple[str, str, str]] = Counter((*scope, t) for scope, t in added_terms)
    df.subtract((*scope, t) for scope, t in removed_terms)
    chunks: dict[tuple[str, str], list[int]] = {}
    for sign, rows in ((1, added_chunks), (-1, removed_chunks)):
        for scope, length in rows:
            acc = chunks.setdefault(scope, [0, 0])
            acc[0] += sign
            acc[1] += sign * length
    return (sorted((k, (n, length)) for k, (n, length) in chunks.items() if n or length),
            sorted((k, d) for k, d in df.items() if d))


def _scored_page(where: Compiled, floor: str = "") -> str:
    """Exact scores of ``cand``'s chunks over every query term (primary-key probes), filtered, best first;
    ``floor`` is a condition on ``s.score`` that spares the filter's joins for chunks below the threshold."""
    return f"""
, scored AS MATERIALIZED (
    SELECT p.chunk_pk, sum(
        q.idf * (%(k1)s + 1) * p.tf
        / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.norm_terms / GREATEST(ca.avglen, 1e-9)))
    ) AS score
    FROM (SELECT cand.chunk_pk, sp.avglen FROM cand {_SCOPED.format(pk="cand.chunk_pk")}) ca
    CROSS JOIN q
    -- A probe per (candidate, term): misjudging a CTE's rows, the planner otherwise hashes every posting of
    -- the terms to join a few hundred candidates (EXPLAIN: 278,475 rows for 202). LIMIT 1 (the key is
    -- unique) stops it from flattening the LATERAL back into that join.
    CROSS JOIN LATERAL (
        SELECT x.chunk_pk, x.tf, x.norm_terms FROM postings x WHERE x.term = q.term AND x.chunk_pk = ca.chunk_pk
        LIMIT 1
    ) p
    GROUP BY p.chunk_pk
), page AS (
    SELECT s.chunk_pk, s.score
    FROM scored s
    JOIN chunks c ON c.pk = s.chunk_pk
    JOIN items i ON i.id = c.item_id
    WHERE {floor}({where.sql})
    ORDER BY s.score DESC, s.chunk_pk
    LIMIT %(need)s
)"""


def _threshold_sql(where: Compiled) -> str:
    """Step 1; placeholders ``terms``, ``m``, ``need``, ``k1``, ``b`` plus the filter's."""
    return _STATS + """
, cand AS MATERIALIZED (
    SELECT x.chunk_pk FROM q CROSS JOIN LATERAL (
        SELECT p.chunk_pk, p.impact FROM postings p WHERE p.term = q.term ORDER BY p.impact DESC LIMIT %(m)s
    ) x
    GROUP BY x.chunk_pk
    ORDER BY sum(q.idf * x.impact) DESC, x.chunk_pk
    LIMIT %(scored)s
)""" + _scored_page(where) + """
SELECT
    (SELECT COALESCE(array_agg(q.term ORDER BY q.term), '{}') FROM q),
    (SELECT COALESCE(array_agg(ARRAY[q.df::float8, q.idf, (SELECT p.impact FROM postings p WHERE p.term = q.term
                                                           ORDER BY p.impact DESC LIMIT 1)] ORDER BY q.term), '{}')
     FROM q),
    (SELECT avglen FROM st), (SELECT ref FROM st),
    (SELECT COALESCE(array_agg(chunk_pk ORDER BY score DESC, chunk_pk), '{}') FROM page),
    (SELECT COALESCE(array_agg(score ORDER BY score DESC, chunk_pk), '{}') FROM page)
"""


def _candidates_sql(where: Compiled) -> str:
    """Step 2; placeholders of step 1 plus ``sterms``/``sw``/``srest`` (short lists read whole, each term's
    score per unit impact, the bound a chunk must reach from them) and ``gterms``/``gcuts``/``gw`` (long
    lists read, the impact each prefix stops at), ``must`` (long lists a chunk must be in) and ``rest``."""
    return _STATS + """
, cand AS MATERIALIZED (
    SELECT x.chunk_pk
    FROM unnest(%(sterms)s::text[], %(sw)s::float8[]) AS g(term, w)
    CROSS JOIN LATERAL (SELECT p.chunk_pk, p.impact FROM postings p WHERE p.term = g.term) x
    GROUP BY x.chunk_pk
    HAVING sum(g.w * x.impact) >= %(srest)s
    UNION
    SELECT x.chunk_pk
    FROM unnest(%(gterms)s::text[], %(gcuts)s::float8[], %(gw)s::float8[]) AS g(term, cut, w)
    CROSS JOIN LATERAL (
        SELECT p.chunk_pk, p.impact FROM postings p WHERE p.term = g.term AND p.impact >= g.cut
    ) x
    GROUP BY x.chunk_pk
    HAVING count(*) >= %(must)s AND sum(g.w * x.impact) >= %(rest)s
)""" + _scored_page(where, "s.score >= %(theta)s AND ") + """
SELECT
    (SELECT count(*) FROM cand),
    (SELECT COALESCE(array_agg(chunk_pk ORDER BY score DESC, chunk_pk), '{}') FROM page),
    (SELECT COALESCE(array_agg(score ORDER BY score DESC, chunk_pk), '{}') FROM page)
"""


def keyword_top(conn: psycopg.Connection, terms: list[str], where: Compiled, need: int,
                trace: list[dict[str, Any]] | None = None) -> list[tuple[int, float]]:
    """The best ``need`` filtered chunks for distinct ``terms`` as ``(key, score)``, best first, exact.

    ``trace`` (tests, benchmarks) receives what the leg did: the threshold, the lists read and how far,
    and how many candidates it scored.
    """
    # Both statements must see one snapshot: a threshold taken before a writer deleted its chunks could
    # exceed the page's true last score afterwards and cut real hits (the caller opened this transaction).
    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    base: dict[str, Any] = {"terms": terms, "need": need, "k1": BM25_K1, "b": BM25_B, **where.params}
    m = max(FIRST_DEPTH, need)
    # The planner sizes each LATERAL top-m with a generic estimate (~100 postings a term), so it reads the
    # whole list by bitmap heap scan and sorts it — the very cost the impact index exists to avoid (EXPLAIN:
    # 3,366 heap blocks for 265 rows). Without bitmap scans it walks (term, impact DESC) and stops at m.
    conn.execute("SET LOCAL enable_bitmapscan = off")
    names, stats, avglen, ref, keys, scores = conn.execute(  # type: ignore[misc]
        _threshold_sql(where).encode(), {**base, "m": m, "scored": SAMPLE_SCORED * need}).fetchone()
    sample = [(int(k), float(s)) for k, s in zip(keys, scores)]
    if not stats or sum(df for df, _, _ in stats) <= min(m, SAMPLE_SCORED * need):  # every match was sampled and scored
        _note(trace, "sample", candidates=None)
        return sample
    if len(sample) < need:  # the sample's chunks mostly miss the filter: no threshold to prune with
        return _exhaustive(conn, terms, where, need, trace)
    theta = sample[-1][1] * (1 - _SLACK)
    drift = max(1.0, avglen / ref)
    weight = [idf * (BM25_K1 + 1) * drift for _, idf, _ in stats]
    ub = [w * top for w, (_, _, top) in zip(weight, stats)]
    short = [i for i, (df, _, _) in enumerate(stats) if df <= SHORT_LIST]
    long = [i for i in range(len(stats)) if i not in short]
    # A page chunk holding a short-list term is in that (whole) list; one holding none scores from the long
    # lists alone, so their bounds are set against each other only.
    tau = {i: theta - sum(ub[u] for u in long if u != i) for i in long}
    required = sorted((i for i in long if tau[i] > 0), key=lambda i: stats[i][0])
    if required:
        path = "required"
        readers = [i for i in required if stats[i][0] <= GENERATOR_SPREAD * stats[required[0]][0]]
        must = len(readers)
    else:
        path, readers, below = "maxscore", [], 0.0
        for i in sorted(long, key=lambda i: ub[i]):
            if readers or below + ub[i] >= theta:
                readers.append(i)
            else:
                below += ub[i]
        must = 1
        if long and len(readers) == len(long):  # nothing to prune: every list is needed whole
            return _exhaustive(conn, terms, where, need, trace)
    if not long:
        path = "short lists"
    cuts = [max(0.0, tau[i]) / weight[i] * (1 - _SLACK) for i in readers]
    slack = _SLACK * abs(theta)
    params = {**base, "sterms": [names[i] for i in short], "sw": [weight[i] for i in short],
              "srest": theta - sum(ub[i] for i in long) - slack,
              "gterms": [names[i] for i in readers], "gcuts": cuts, "gw": [weight[i] for i in readers],
              "must": must, "rest": theta - sum(ub[i] for i in long if i not in readers) - slack,
              "theta": theta - slack}
    n_cand, keys, scores = conn.execute(_candidates_sql(where).encode(), params).fetchone()  # type: ignore[misc]
    _note(trace, path, theta=theta, whole=params["sterms"], lists=params["gterms"], cuts=cuts,
          candidates=int(n_cand))
    return [(int(k), float(s)) for k, s in zip(keys, scores)]


def _exhaustive(conn: psycopg.Connection, terms: list[str], where: Compiled, need: int,
                trace: list[dict[str, Any]] | None) -> list[tuple[int, float]]:
    conn.execute("SET LOCAL enable_bitmapscan = on")  # the one pass reads whole lists: bitmap scans suit it
    rows = conn.execute(exhaustive_keyword_sql(where.sql).encode(),
                        {"terms": terms, "k1": BM25_K1, "b": BM25_B, "lim": need, "off": 0, **where.params})
    out = [(int(k), float(s)) for k, s in rows]
    _note(trace, "exhaustive", candidates=None)
    return out


def _note(trace: list[dict[str, Any]] | None, path: str, **facts: Any) -> None:
    if trace is not None:
        trace.append({"path": path, **facts})


def exhaustive_keyword_sql(where: str) -> str:
    """Every posting of every query term scored in one pass: what the leg runs when stopping early would cost
    more, the benchmark's baseline and the tests' oracle. Placeholders ``terms``, ``k1``, ``b``, ``lim``,
    ``off`` plus the filter's (its ``scope_*`` among them)."""
    return _STATS + f"""
, scored AS MATERIALIZED (
    SELECT x.chunk_pk, sum(
        q.idf * (%(k1)s + 1) * x.tf
        / (x.tf + %(k1)s * (1 - %(b)s + %(b)s * x.norm_terms / GREATEST(sp.avglen, 1e-9)))
    ) AS score
    FROM q JOIN postings x ON x.term = q.term {_SCOPED.format(pk="x.chunk_pk")}
    GROUP BY x.chunk_pk
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
