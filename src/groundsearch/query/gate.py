"""The relevance gate: is the best evidence relevant enough to answer from? Pure.

RRF scores are ranks in disguise (rank 1 always scores 1/61), so they cannot say whether anything
relevant was found. The vector leg's cosine can: MiniLM gives unrelated text a cosine near 0–0.2 and
on-topic text 0.4 and up, so a threshold on the *best* cosine separates "nothing here" from "found it".
BM25 scores are unbounded and corpus-dependent, so a keyword-only search is not gated (said so).

The gate judges the fused top-N candidates *before* paging: a verdict on the page being shown would
pass page 1 and fail the same query at ``offset=3``, so one request would both answer and not answer.

The threshold belongs to the embedder (cosines of different models live on different scales), so it is
looked up by the embedder's ``model_id`` unless configured. ``evaluation/bench_gate.py`` measures how often
it fires on a dataset's own questions and on 40 off-topic ones (``evaluation/data/offtopic.txt``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..types import EvidenceHit, GateVerdict, LegScore

__all__ = ["CALIBRATED_THRESHOLDS", "GateOutcome", "best_cosine", "judge", "judge_legs", "threshold_for"]

GateOutcome = GateVerdict  # the name the normalizer and older callers use

# model_id prefix → calibrated threshold. MiniLM-L6 on MuSiQue-100: own questions' best cosine q05 0.42 (the
# gate fails 1 %), 40 off-topic questions' q95 0.364 (it fails 90 %); 0.35, the demo's value, splits them.
CALIBRATED_THRESHOLDS: Mapping[str, float] = {"all-MiniLM-L6-v2": 0.35}


def threshold_for(model_id: str, configured: float | None) -> float:
    """The gate threshold for an embedder: the configured one, else the calibrated one, else 0 (off)."""
    if configured is not None:
        return configured
    for prefix, value in CALIBRATED_THRESHOLDS.items():
        if model_id.startswith(prefix):
            return value
    return 0.0


def best_cosine(hits: Sequence[EvidenceHit]) -> float | None:
    """The highest vector-leg cosine among ``hits``; ``None`` when no hit came from the vector leg."""
    return _best(ls for h in hits for ls in h.legs)


def _best(legs: Iterable[LegScore]) -> float | None:
    cosines = [ls.score for ls in legs if ls.leg == "vector"]
    return max(cosines) if cosines else None


def judge_legs(candidates: Sequence[Sequence[LegScore]], threshold: float) -> GateVerdict:
    """The verdict on candidates given by their per-leg scores (fused, before hydration or paging).

    Pass when the best cosine reaches ``threshold``; a threshold of 0 never fails a non-empty result.
    """
    if not candidates:
        return GateVerdict(best_score=0.0, threshold=threshold, passed=threshold <= 0, measured=threshold > 0)
    best = _best(ls for legs in candidates for ls in legs)
    if best is None:
        return GateVerdict(best_score=0.0, threshold=threshold, passed=True, measured=False)
    return GateVerdict(best_score=best, threshold=threshold, passed=best >= threshold)


def judge(hits: Sequence[EvidenceHit], threshold: float) -> GateVerdict:
    """:func:`judge_legs` over hydrated hits."""
    return judge_legs([h.legs for h in hits], threshold)
