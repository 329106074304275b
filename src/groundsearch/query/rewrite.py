"""Query rewrites without a model: pseudo-relevance feedback, multi-query splits, one reformulation. Pure.

* PRF (Rocchio's idea, as in RM3): terms shared by several top results but absent from the query are
  added to a keyword-only second pass, which recovers documents that use the corpus' words rather
  than the user's. Only the keyword leg sees the expansion: embedding an expanded string drifts.
* Dense PRF (Rocchio 1971, in vector space as in ANCE-PRF / Li et al. 2021): the query vector moves
  toward the mean of the top results' vectors and the vector leg runs again from there.
* Multi-query: a comparison or multi-topic question is split into one sub-query per target, each
  retrieved on its own, then fused by RRF, so one target's vocabulary cannot crowd out the other's.
* Reformulation (after a failed relevance gate): the intent's topic keywords alone, which drops the
  phrasing around them ("create a tornado diagram of …") that dilutes both legs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..store.text import analyze
from ..types import EvidenceHit, Intent

__all__ = ["PRF_DOCS", "ROCCHIO_DOCS", "prf_terms", "reformulate", "rocchio", "sub_queries"]

PRF_DOCS = 5
PRF_TERMS = 5
MAX_SUB_QUERIES = 4
# Rocchio weights: SMART's classic alpha = 1, beta = 0.75 (no negative feedback: the bottom of a dense
# ranking is not known to be irrelevant).
ROCCHIO_ALPHA = 1.0
ROCCHIO_BETA = 0.75
# Feedback from the top 2 fused hits, not PRF's 5: SciFact train nDCG@10 (z-score fusion) 0.735 → 0.741 at 2,
# 0.738 at 3 and 5 (BENCHMARKS.md, issue 12): past the first couple the hits drift off the query.
ROCCHIO_DOCS = 2
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{2,}")


def prf_terms(query: str, hits: Sequence[EvidenceHit], *, docs: int = PRF_DOCS, n: int = PRF_TERMS) -> list[str]:
    """Up to ``n`` words found in at least two of the top ``docs`` hits and not in the query.

    Ranked by document frequency, then total frequency, then alphabetically (deterministic). Words are
    returned as written (their commonest surface form), since the keyword leg analyses them itself.
    """
    query_stems = set(analyze(query))
    df: Counter[str] = Counter()
    tf: Counter[str] = Counter()
    surface: dict[str, Counter[str]] = {}
    for hit in hits[:docs]:
        seen: set[str] = set()
        for word in _WORD.findall(f"{hit.item.title} {hit.chunk.text}"):
            stems = analyze(word)
            if len(stems) != 1 or stems[0] in query_stems:
                continue
            stem = stems[0]
            tf[stem] += 1
            surface.setdefault(stem, Counter())[word.lower()] += 1
            if stem not in seen:
                seen.add(stem)
                df[stem] += 1
    ranked = sorted((s for s in df if df[s] >= 2), key=lambda s: (-df[s], -tf[s], s))[:n]
    return [surface[s].most_common(1)[0][0] for s in ranked]


def rocchio(query: np.ndarray, top: np.ndarray, *, alpha: float = ROCCHIO_ALPHA, beta: float = ROCCHIO_BETA) -> np.ndarray:
    """``alpha·q + beta·mean(top)``, L2-normalised (cosine search wants unit vectors)."""
    moved = alpha * np.asarray(query, dtype=np.float32) + beta * np.asarray(top, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(moved))
    return (moved / norm).astype(np.float32) if norm > 0 else np.asarray(query, dtype=np.float32)


def sub_queries(intent: Intent, query: str) -> list[str]:
    """One query per comparison target (with the shared topic), else one per topic keyword."""
    topic = " ".join(k for k in intent.topic_keywords
                     if k.casefold() not in {t.casefold() for t in intent.comparison_targets})
    if intent.comparison_targets:
        subs = [f"{t} {topic}".strip() for t in intent.comparison_targets]
    else:
        subs = list(intent.topic_keywords)
    return [s for s in dict.fromkeys(subs) if s.strip() and s != query][:MAX_SUB_QUERIES]


def reformulate(intent: Intent, query: str) -> str | None:
    """The topic keywords alone, when they differ from the query; ``None`` when there is nothing to try."""
    text = " ".join(intent.topic_keywords).strip()
    if not text or text.casefold() == query.casefold():
        return None
    return text
