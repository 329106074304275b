"""Rank fusion: pure functions over ranked lists of hits from independent legs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..types import Hit, Leg, LegScore

__all__ = ["Fused", "reciprocal_rank_fusion"]


@dataclass(frozen=True, slots=True)
class Fused:
    chunk_id: str
    item_id: str
    score: float
    legs: tuple[LegScore, ...]


def reciprocal_rank_fusion(ranked: Mapping[Leg, Sequence[Hit]], k: int = 60) -> list[Fused]:
    """Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009): ``score(d) = Σ_legs 1 / (k + rank(d))``.

    RRF uses ranks, not scores, so BM25 scores (unbounded) and cosines (in [-1, 1]) combine without
    calibration. ``k`` damps the head: with k=60 (the paper's value, robust across collections) rank 1
    is worth 1/61 and rank 10 still 1/70, so agreement between legs outweighs one leg's top spot.

    A chunk appearing twice in one leg counts once, at its best rank. Ties are broken by the best rank
    any leg gave the chunk, then by chunk id, so the output is deterministic and independent of the
    order in which legs are given.
    """
    if k < 1:
        raise ValueError("RRF k must be >= 1")
    scores: dict[str, float] = {}
    items: dict[str, str] = {}
    legs: dict[str, list[LegScore]] = {}
    best_rank: dict[str, int] = {}
    for leg in sorted(ranked):
        seen: set[str] = set()
        rank = 0
        for hit in ranked[leg]:
            if hit.chunk_id in seen:
                continue
            seen.add(hit.chunk_id)
            rank += 1
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (k + rank)
            items[hit.chunk_id] = hit.item_id
            legs.setdefault(hit.chunk_id, []).append(LegScore(leg=leg, rank=rank, score=hit.score))
            best_rank[hit.chunk_id] = min(rank, best_rank.get(hit.chunk_id, rank))
    order = sorted(scores, key=lambda c: (-scores[c], best_rank[c], c))
    return [Fused(chunk_id=c, item_id=items[c], score=scores[c], legs=tuple(legs[c])) for c in order]
