"""Rank fusion: pure functions over ranked lists of hits from independent legs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean, pstdev
from dataclasses import dataclass

from ..types import Hit, Leg, LegScore

__all__ = ["Fused", "fuse_runs", "reciprocal_rank_fusion", "zscore_fusion", "zscore_graph_fusion"]


@dataclass(frozen=True, slots=True)
class Fused:
    key: int  # the store's chunk key (see :class:`~groundsearch.types.Hit`); hydrated after fusion
    score: float
    legs: tuple[LegScore, ...]


def reciprocal_rank_fusion(ranked: Mapping[Leg, Sequence[Hit]], k: int = 60) -> list[Fused]:
    """Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009): ``score(d) = Σ_legs 1 / (k + rank(d))``.

    RRF uses ranks, not scores, so BM25 scores (unbounded) and cosines (in [-1, 1]) combine without
    calibration. ``k`` damps the head: with k=60 (the paper's value, robust across collections) rank 1
    is worth 1/61 and rank 10 still 1/70, so agreement between legs outweighs one leg's top spot.

    A chunk appearing twice in one leg counts once, at its best rank. Ties are broken by the best rank
    any leg gave the chunk, then by its ranks leg by leg (legs in name order, absent = last). No two
    chunks share a rank in one leg, so that order is total — and it never looks at the keys themselves,
    which differ between backends: the same legs fuse to the same order on SQLite and Postgres, whatever
    order the legs are given in. Fusion sees keys only; nothing is hydrated here.
    """
    if k < 1:
        raise ValueError("RRF k must be >= 1")
    scores: dict[int, float] = {}
    legs: dict[int, list[LegScore]] = {}
    best_rank: dict[int, int] = {}
    for leg in sorted(ranked):
        seen: set[int] = set()
        rank = 0
        for key, score in ranked[leg]:
            if key in seen:
                continue
            seen.add(key)
            rank += 1
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
            legs.setdefault(key, []).append(LegScore(leg=leg, rank=rank, score=score))
            best_rank[key] = min(rank, best_rank.get(key, rank))
    names = sorted(ranked)
    absent = 1 + max((len(hits) for hits in ranked.values()), default=0)

    def tie_break(c: int) -> tuple[float, int, tuple[int, ...]]:
        by_leg = {ls.leg: ls.rank for ls in legs[c]}
        return -scores[c], best_rank[c], tuple(by_leg.get(name, absent) for name in names)

    return [Fused(key=c, score=scores[c], legs=tuple(legs[c])) for c in sorted(scores, key=tie_break)]


# Fused z-scores are rounded before sorting: BM25 from tantivy and from Postgres agree to ~1e-7, not bit for
# bit, so unrounded sums could order near-ties differently per backend; the rank tie-break then decides.
ZSCORE_DIGITS = 6


def leg_zscores(best: Mapping[int, float]) -> dict[int, float]:
    """One leg's ``(s − mean) / std`` per chunk. A leg with one hit or only equal scores has no spread, so
    (s − mean) / std is 0/0: each hit gets +1 instead — the leg ranks its hits equally, above what it did
    not return (whose floor is then −1, see ``zscore_fusion``)."""
    mean, spread = fmean(best.values()), pstdev(best.values())
    if spread <= 0:
        return {k: 1.0 for k in best}
    return {k: (v - mean) / spread for k, v in best.items()}


def zscore_fusion(ranked: Mapping[Leg, Sequence[Hit]], weights: Mapping[Leg, float] | None = None) -> list[Fused]:
    """Convex fusion of per-leg z-scores: ``score(d) = Σ_legs w_leg · (s_leg(d) − mean_leg) / std_leg``.

    Unlike RRF it keeps *how much* better a hit scored than its leg's other candidates, so a BM25 hit far
    ahead of the pack (a rare exact term) or a cosine far above the rest is not flattened to "rank 1".
    Normalising each leg by its own candidates' mean and spread puts unbounded BM25 and cosines on one
    scale without calibration per corpus (the "z-score" normalisation of Bruch, Gai & Ingber, TOIS 2023,
    which measured convex combination above RRF on BEIR). A chunk one leg did not return gets that leg's
    lowest z-score: it ranked below everything the leg returned, so that is an upper bound.

    Measured on SciFact train (809 claims): nDCG@10 0.720 (RRF k=60) → 0.735; MuSiQue tuning half R@5
    0.590 → 0.619 (bench-retrieval.md). Ties are broken by best rank, then ranks leg by leg, as in RRF.
    """
    zs: dict[Leg, dict[int, float]] = {}
    ranks: dict[Leg, dict[int, int]] = {}
    legs: dict[int, list[LegScore]] = {}
    for leg in sorted(ranked):
        best: dict[int, float] = {}
        order: dict[int, int] = {}
        for key, score in ranked[leg]:
            if key not in best:
                best[key] = score
                order[key] = len(order) + 1
                legs.setdefault(key, []).append(LegScore(leg=leg, rank=order[key], score=score))
        if not best:
            continue
        zs[leg] = leg_zscores(best)
        ranks[leg] = order
    # A degenerate leg (one hit, or all scores equal) only says which chunks it returned: those get +1, the
    # rest -1, so its hits still count; with a zero floor they would tie with chunks the leg never returned.
    floors = {leg: min(z.values()) if len(set(z.values())) > 1 else -1.0 for leg, z in zs.items()}
    w = weights or {}
    scores = {key: round(sum(w.get(leg, 1.0) * z.get(key, floors[leg]) for leg, z in zs.items()), ZSCORE_DIGITS)
              for key in legs}
    names = sorted(zs)
    absent = 1 + max((len(r) for r in ranks.values()), default=0)

    def tie_break(c: int) -> tuple[float, int, tuple[int, ...]]:
        by_leg = tuple(ranks[name].get(c, absent) for name in names)
        return -scores[c], min(by_leg), by_leg

    return [Fused(key=c, score=scores[c], legs=tuple(legs[c])) for c in sorted(scores, key=tie_break)]


def zscore_graph_fusion(ranked: Mapping[Leg, Sequence[Hit]], *, k: int, graph_weight: float) -> list[Fused]:
    """Keyword + vector fused by z-scores, then RRF of that ranking with the graph leg's, the graph's ranks
    weighted: ``score(d) = 1 / (k + rank_text(d)) + w / (k + rank_graph(d))``.

    PageRank mass is heavy-tailed (the seeds hold most of it), so z-scores let a few seed-adjacent chunks
    swamp the text legs, and RRF over all three legs at once gives away z-score fusion's gain on the two
    text legs. Fusing in two stages keeps both: MuSiQue tuning half R@5 0.644 (RRF k=10 over 3 legs) →
    0.705 at k=10, w=2 (BENCHMARKS.md, issue 12 session 3). Ties go by the best rank in either list, then
    the text rank: ranks, never keys, so both backends order alike.
    """
    if k < 1:
        raise ValueError("RRF k must be >= 1")
    text = zscore_fusion({leg: hits for leg, hits in ranked.items() if leg != "graph"})
    graph_rank: dict[int, int] = {}
    graph_score: dict[int, float] = {}
    for key, score in ranked.get("graph", ()):
        if key not in graph_rank:
            graph_rank[key] = len(graph_rank) + 1
            graph_score[key] = score
    text_rank = {x.key: i for i, x in enumerate(text, start=1)}
    legs = {x.key: x.legs for x in text}
    for key, rank in graph_rank.items():
        legs[key] = (*legs.get(key, ()), LegScore(leg="graph", rank=rank, score=graph_score[key]))
    absent = 1 + max(len(text_rank), len(graph_rank))
    scores = {key: (1.0 / (k + text_rank[key]) if key in text_rank else 0.0)
              + (graph_weight / (k + graph_rank[key]) if key in graph_rank else 0.0) for key in legs}

    def tie_break(c: int) -> tuple[float, int, int]:
        t, g = text_rank.get(c, absent), graph_rank.get(c, absent)
        return -scores[c], min(t, g), t

    return [Fused(key=c, score=scores[c], legs=legs[c]) for c in sorted(scores, key=tie_break)]


def fuse_runs(runs: Sequence[Sequence[Fused]], k: int = 60) -> list[Fused]:
    """RRF over whole retrieval runs (a first pass and its rewrites), each already fused from its legs.

    A chunk keeps the per-leg provenance of the first run that found it, so ``--explain`` and the gate
    still see the keyword and vector ranks behind it; its score becomes the cross-run RRF score. Ties
    are broken by the chunk's best rank in any run, then by its rank in the earlier runs.
    """
    if k < 1:
        raise ValueError("RRF k must be >= 1")
    first: dict[int, Fused] = {}
    scores: dict[int, float] = {}
    ranks: dict[int, list[int]] = {}
    absent = 1 + max((len(r) for r in runs), default=0)
    for i, run in enumerate(runs):
        unique: dict[int, Fused] = {}
        for x in run:  # one entry per chunk, at its best rank
            unique.setdefault(x.key, x)
        for rank, x in enumerate(unique.values(), start=1):
            first.setdefault(x.key, x)
            scores[x.key] = scores.get(x.key, 0.0) + 1.0 / (k + rank)
            ranks.setdefault(x.key, [absent] * len(runs))[i] = rank
    order = sorted(scores, key=lambda c: (-scores[c], min(ranks[c]), tuple(ranks[c])))
    return [Fused(key=c, score=scores[c], legs=first[c].legs) for c in order]
