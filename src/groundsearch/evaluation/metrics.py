"""Ranking metrics for the evaluation harness: small pure functions over one query's ranking.

Conventions follow BEIR / ``pytrec_eval`` so figures are comparable with published numbers:

* a ranking is a sequence of document ids, best first, without duplicates (:func:`dedupe` makes one);
* qrels map document id → graded relevance; a grade ≤ 0 means judged non-relevant;
* nDCG uses linear gain (the grade itself) with the log2(rank + 1) discount, and the ideal DCG is built
  from *every* judged relevant document, not only the retrieved ones — a system that finds none of them
  scores 0, and one that finds only some cannot reach 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

__all__ = ["dedupe", "dcg", "mrr_at_k", "ndcg_at_k", "percentile", "recall_at_k"]


def dedupe(ids: Iterable[str]) -> list[str]:
    """Keep each id at its first (best) position.

    Documents split into several chunks can appear more than once in a chunk ranking; a document is
    as good as its best chunk, which is the usual "max-passage" reduction.
    """
    return list(dict.fromkeys(ids))


def dcg(gains: Sequence[float]) -> float:
    """Discounted cumulative gain of gains listed by rank (rank 1 first): Σ gain_i / log2(i + 1)."""
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k with graded relevance; 0.0 when the query has no relevant document."""
    ideal = dcg(sorted((g for g in qrels.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    gains = [max(qrels.get(doc, 0), 0) for doc in ranking[:k]]
    return dcg(gains) / ideal


def recall_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Share of the relevant documents found in the top k; 0.0 when the query has none."""
    relevant = {doc for doc, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranking[:k])) / len(relevant)


def mrr_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    """Reciprocal rank of the first relevant document in the top k, else 0.0."""
    for rank, doc in enumerate(ranking[:k], start=1):
        if qrels.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) with linear interpolation, as numpy computes it; 0.0 for no values."""
    if not values:
        return 0.0
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))
