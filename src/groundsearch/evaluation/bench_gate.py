"""How often the relevance gate fires: on a dataset's own questions (should be rare) and on off-topic ones.

Every query runs the product path (``runner.run_profile`` with the ``default`` profile: classify, plan,
retrieve with the gate and its reformulation), so the rates describe what users get. The best cosine of
the first pass is reported as quantiles too, which is the evidence a threshold is calibrated on.

It also calibrates the threshold as ``groundsearch calibrate-gate`` would (``query.gate.calibrate``) on half the
dataset's questions (those whose id's SHA-256 starts with an even byte) and all off-topic ones, and reports
how often that threshold fails the other, held-out half.

``python -m groundsearch.evaluation.bench_gate DATASET_DIR [--limit N]`` prints one JSON document.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..query.gate import calibrate
from .datasets import load_beir
from .runner import open_eval_engine, run_profile

__all__ = ["OFFTOPIC_FILE", "gate_rates", "offtopic_queries"]

OFFTOPIC_FILE = Path(__file__).parent / "data" / "offtopic.txt"


def offtopic_queries() -> list[str]:
    """40 everyday questions (cooking, home repair, shell tips) that neither SciFact nor MuSiQue answers."""
    return [line.strip() for line in OFFTOPIC_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def gate_rates(engine: Any, queries: Iterable[str]) -> dict[str, Any]:
    """Share of ``queries`` the gate failed, share answered from the reformulation, best-cosine quantiles."""
    failed = reformulated = n = 0
    best: list[float] = []
    threshold = None
    for text in queries:
        gate = run_profile(engine, "default", text, limit=10).gate
        n += 1
        if gate is None:
            continue
        threshold = gate.threshold
        failed += int(gate.measured and not gate.passed)
        reformulated += int(gate.reformulated is not None)
        best.append(gate.best_score)
    q = np.quantile(best, [0.05, 0.25, 0.5, 0.75, 0.95]).round(3).tolist() if best else []
    return {"queries": n, "threshold": threshold, "gate_failed": round(failed / max(n, 1), 4),
            "reformulated": round(reformulated / max(n, 1), 4),
            "best_cosine_q05_q25_q50_q75_q95": q}


def calibration_report(engine: Any, own: Mapping[str, str], offtopic: Iterable[str]) -> dict[str, Any]:
    """Calibrate on the even-hash half of ``own`` plus ``offtopic``; gate failures on the held-out half."""
    best = {qid: engine.gate_best_cosine(text) for qid, text in own.items()}
    held = {q for q in best if hashlib.sha256(q.encode()).digest()[0] % 2 == 1}
    off = [engine.gate_best_cosine(text) for text in offtopic]
    cal = calibrate(engine.embedder.model_id, [v for q, v in best.items() if q not in held], off)
    return {**json.loads(cal.to_json()),
            "held_out_own_failed": round(sum(best[q] < cal.threshold for q in held) / max(len(held), 1), 4),
            "held_out_own_queries": len(held),
            "offtopic_passed": round(sum(v >= cal.threshold for v in off) / max(len(off), 1), 4)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dataset")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    data = load_beir(Path(args.dataset)).limited(args.limit)
    engine = open_eval_engine(data)
    try:
        report: Mapping[str, Any] = {
            "dataset": data.name,
            "own_queries": gate_rates(engine, data.queries.values()),
            "offtopic_queries": gate_rates(engine, offtopic_queries()),
            "calibration": calibration_report(engine, data.queries, offtopic_queries()),
        }
    finally:
        engine.close()
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
