"""The relevance gate: is the best evidence relevant enough to answer from? Pure.

RRF scores are ranks in disguise (rank 1 always scores 1/61), so they cannot say whether anything
relevant was found. The vector leg's cosine can: MiniLM gives unrelated text a cosine near 0–0.2 and
on-topic text 0.4 and up, so a threshold on the *best* cosine separates "nothing here" from "found it".
BM25 scores are unbounded and corpus-dependent, so a keyword-only search is not gated (said so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..types import EvidenceHit

__all__ = ["GateOutcome", "best_cosine", "judge"]


@dataclass(frozen=True, slots=True)
class GateOutcome:
    best_score: float
    threshold: float
    passed: bool
    measured: bool = True  # False: no cosine to judge by (keyword-only evidence, or no evidence)


def best_cosine(hits: Sequence[EvidenceHit]) -> float | None:
    """The highest vector-leg cosine among ``hits``; ``None`` when no hit came from the vector leg."""
    cosines = [ls.score for h in hits for ls in h.legs if ls.leg == "vector"]
    return max(cosines) if cosines else None


def judge(hits: Sequence[EvidenceHit], threshold: float) -> GateOutcome:
    """Pass when the best cosine reaches ``threshold``; a threshold of 0 never fails a non-empty result."""
    if not hits:
        return GateOutcome(best_score=0.0, threshold=threshold, passed=threshold <= 0, measured=threshold > 0)
    best = best_cosine(hits)
    if best is None:
        return GateOutcome(best_score=0.0, threshold=threshold, passed=True, measured=False)
    return GateOutcome(best_score=best, threshold=threshold, passed=best >= threshold)
