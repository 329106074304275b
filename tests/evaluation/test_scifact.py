"""The issue's quality bars on real SciFact with the real MiniLM model (slow: ingest + 300 queries × 5).

The ingested index is cached under ``~/.cache/groundsearch/eval`` (keyed by corpus hash and model id), so
only the first run pays for embedding the corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsearch.evaluation.datasets import load_beir
from groundsearch.evaluation.runner import run_eval

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
SCIFACT = DATASETS / "beir_scifact"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SCIFACT.is_dir(), reason=f"SciFact not present at {SCIFACT} (../shared/datasets)"),
]


def test_scifact_quality_bars() -> None:
    report = run_eval(load_beir(SCIFACT), ["bm25", "dense", "hybrid", "bm25s"], embedder_name="minilm")
    r = {name: s.ndcg10 for name, s in report.results.items()}
    assert report.queries == 300
    assert abs(r["bm25"] - r["bm25s"]) <= 0.01, r  # same terms, same k1/b: the engines must agree
    assert r["dense"] >= 0.63, r
    assert r["hybrid"] >= 0.69, r
