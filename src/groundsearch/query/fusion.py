"""Rank fusion: pure functions over ranked lists of hits from independent legs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..types import Hit, Leg, LegScore

__all__ = ["Fused", "fuse_runs", "reciprocal_rank_fusion"]


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
