"""The answer line's support model, fitted where it can be checked: RGB en_fact's tuning half only.

``answer.answerable`` states a span only when a logistic model over three features (the question's relation
in the holding sentence, the share of the top results stating the span, the vote margin over the runner-up)
says the page backs it. This module is how its weights and threshold are made, so anyone can refit them:

1. **pages** — every tuning-half question in two RGB conditions, answerable (its ``positive`` snippets,
   label 1) and negatives-only (its ``negative`` snippets, label 0), retrieved as ``eval --answers`` does
   (plan, retrieve, the relevance gate) and decided by :func:`answer.extractive.line_decision`, the same
   function the answer line is decided by. A page the model never sees (the gate, no answer-bearing
   sentence, a bare year, a conflict, a labelled value) keeps the outcome it has whatever the weights;
2. **fit** — L2-regularised logistic regression (Newton's method, bias unpenalised, ``L2`` × the squared
   weights added to the summed log-loss) on the pages that reach the model;
3. **threshold** — from the pooled out-of-fold probabilities of ``REPEATS`` × ``FOLDS``-fold
   cross-validation, the highest at which false abstention over *all* answerable pages (those decided
   before the model included) stays within ``FALSE_ABSTENTION``: a point the fit did not see, not one on it.

The held-out half is never read here: :func:`pages` takes the tuning half and nothing else.

    OMP_NUM_THREADS=1 python -m groundsearch.evaluation.support_fit /work/shared/datasets/rgb_en_fact
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..answer.answerable import THRESHOLD, W_BIAS, W_MARGIN, W_RELATION, W_SHARE
from ..answer.extractive import NO_ANSWER, answer, line_decision
from .answers import _requests, heldout_ids, load_cases, load_doc_labels, plain_retrieval
from .datasets import load_beir
from .runner import open_eval_engine

__all__ = ["Page", "cross_validated_threshold", "fit", "outcomes", "pages"]

L2 = 1.0
FOLDS, REPEATS, SEED = 5, 20, 0
FALSE_ABSTENTION = 0.10
LABELS = {"positive": 1, "negative": 0}


@dataclass(frozen=True, slots=True)
class Page:
    """One question in one condition. ``features`` (relation, share, margin) when the model decides the
    page, else None and ``fixed_abstains`` is its outcome whatever the weights."""
    qid: str
    label: int
    span: str
    features: tuple[float, float, float] | None
    fixed_abstains: bool
    labelled: bool = False  # a holder labels the span as the asked value: stated whatever the model says


def pages(dataset_dir: Path, *, cache_root: Path | None = None, embedder_name: str = "minilm") -> list[Page]:
    """The tuning half's pages in both conditions (see the module docstring)."""
    from ..answer.sentence_vectors import ScopedSentenceVectors, sentence_vectors_for
    from ..scope import caller_scope

    full = load_beir(dataset_dir)
    held = heldout_ids(full)
    data = full.only([q for q in full.queries if q not in held])
    cases, labels = load_cases(data), load_doc_labels(data)
    if labels is None:
        raise SystemExit(f"{dataset_dir}: no doc_labels.tsv (an RGB-layout set is needed)")
    engine = open_eval_engine(data, embedder_name=embedder_name, cache_root=cache_root)
    out = []
    try:
        vectors = ScopedSentenceVectors(sentence_vectors_for(engine.retriever), caller_scope(None))
        for condition, label in LABELS.items():
            for qid, request in _requests(cases, labels, condition).items():
                evidence = plain_retrieval(engine, request)
                gate = evidence.gate
                if not evidence.hits or (gate is not None and gate.measured and not gate.passed):
                    out.append(Page(qid, label, "", None, True))
                    continue
                line = line_decision(request.query, evidence.hits, vectors)
                if line is None or line.support is None:
                    prose = answer(request.query, evidence.hits, vectors)
                    out.append(Page(qid, label, line.span if line else "", None, NO_ANSWER in prose.text))
                    continue
                s = line.support
                labelled = line.stated and s.probability() < THRESHOLD
                out.append(Page(qid, label, line.span, (s.relation, s.share, s.margin), False, labelled))
    finally:
        engine.close()
    return out


def _design(rows: Sequence[Page]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[1.0, *p.features] for p in rows if p.features is not None])
    y = np.array([float(p.label) for p in rows if p.features is not None])
    return x, y


def fit(rows: Sequence[Page], l2: float = L2) -> np.ndarray:
    """Weights (bias, relation, share, margin) minimising the log-loss plus ``l2`` × the squared weights
    (the bias unpenalised), by Newton's method: a convex problem, so the answer does not depend on a start."""
    x, y = _design(rows)
    w = np.zeros(x.shape[1])
    penalty = np.diag([0.0] + [2.0 * l2] * (x.shape[1] - 1))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        grad = x.T @ (p - y) + penalty @ w
        hess = x.T @ (x * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return w


def probability(w: np.ndarray, features: Sequence[float]) -> float:
    return 1.0 / (1.0 + math.exp(-float(w[0] + np.dot(w[1:], features))))


def outcomes(rows: Sequence[Page], probs: dict[int, float], threshold: float) -> tuple[float, float]:
    """(abstention on negatives-only pages, false abstention on answerable pages) at ``threshold``, with
    ``probs`` the model's probability for each modelled page (by its index in ``rows``)."""
    def abstains(i: int, p: Page) -> bool:
        if p.features is None:
            return p.fixed_abstains
        return not p.labelled and probs[i] < threshold

    neg = [abstains(i, p) for i, p in enumerate(rows) if p.label == 0]
    pos = [abstains(i, p) for i, p in enumerate(rows) if p.label == 1]
    return sum(neg) / max(1, len(neg)), sum(pos) / max(1, len(pos))


def out_of_fold(rows: Sequence[Page], l2: float = L2, folds: int = FOLDS, repeats: int = REPEATS,
                seed: int = SEED) -> list[dict[int, float]]:
    """Each repetition's out-of-fold probability of every modelled page; folds split by question, so a
    question's answerable and negatives-only pages are never on both sides."""
    rng = random.Random(seed)
    qids = sorted({p.qid for p in rows})
    runs = []
    for _ in range(repeats):
        order = qids[:]
        rng.shuffle(order)
        fold_of = {q: i % folds for i, q in enumerate(order)}
        probs: dict[int, float] = {}
        for k in range(folds):
            train = [p for p in rows if fold_of[p.qid] != k]
            w = fit(train, l2)
            for i, p in enumerate(rows):
                if fold_of[p.qid] == k and p.features is not None:
                    probs[i] = probability(w, p.features)
        runs.append(probs)
    return runs


def cross_validated_threshold(rows: Sequence[Page], runs: Sequence[dict[int, float]],
                              budget: float = FALSE_ABSTENTION) -> tuple[float, float, float]:
    """The highest threshold whose pooled out-of-fold false abstention is within ``budget``, with the
    pooled abstention and false abstention there."""
    candidates = sorted({round(v, 3) for probs in runs for v in probs.values()} | {0.5})
    best = (0.0, *_pooled(rows, runs, 0.0))
    for t in candidates:
        abst, false = _pooled(rows, runs, t)
        if false <= budget + 1e-9 and t > best[0]:
            best = (t, abst, false)
    return best


def _pooled(rows: Sequence[Page], runs: Sequence[dict[int, float]], t: float) -> tuple[float, float]:
    pairs = [outcomes(rows, probs, t) for probs in runs]
    return sum(a for a, _ in pairs) / len(pairs), sum(f for _, f in pairs) / len(pairs)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", type=Path, help="the rgb_en_fact folder (BEIR layout with doc_labels.tsv)")
    ap.add_argument("--cache-dir", type=Path, default=None)
    ap.add_argument("--pages", type=Path, default=None, help="write the pages (JSON) here, to refit without re-running")
    ap.add_argument("--from-pages", type=Path, default=None, help="refit from a --pages file instead of running")
    ap.add_argument("--show", action="store_true", help="print each tuning page that reaches the model")
    args = ap.parse_args(argv)
    if args.from_pages:
        rows = [Page(**{**r, "features": tuple(r["features"]) if r["features"] else None})
                for r in json.loads(args.from_pages.read_text())]
    else:
        rows = pages(args.dataset, cache_root=args.cache_dir)
        if args.pages:
            args.pages.write_text(json.dumps([asdict(p) for p in rows], indent=1))
    w = fit(rows)
    current = np.array([W_BIAS, W_RELATION, W_SHARE, W_MARGIN])
    t, abst, false = cross_validated_threshold(rows, out_of_fold(rows))
    report = {
        "pages": len(rows), "modelled": sum(p.features is not None for p in rows),
        "weights": {"bias": round(float(w[0]), 2), "relation": round(float(w[1]), 2), "share": round(float(w[2]), 2),
                    "margin": round(float(w[3]), 2)},
        "cv_threshold": t, "cv_abstention": round(abst, 3), "cv_false_abstention": round(false, 3),
        "in_sample_at_cv_threshold": _rounded(outcomes(rows, _probs(rows, w), t)),
        "shipped_in_sample": _rounded(outcomes(rows, _probs(rows, current), THRESHOLD)),
    }
    if args.show:
        for i, p in enumerate(rows):
            if p.features is not None:
                print(f"{p.label} {p.qid:>6} p={probability(current, p.features):.3f} {p.features} {p.span!r}")
    print(json.dumps(report, indent=1))
    return report


def _probs(rows: Sequence[Page], w: np.ndarray) -> dict[int, float]:
    return {i: probability(w, p.features) for i, p in enumerate(rows) if p.features is not None}


def _rounded(pair: tuple[float, float]) -> dict[str, float]:
    return {"abstention": round(pair[0], 3), "false_abstention": round(pair[1], 3)}


if __name__ == "__main__":
    main()
