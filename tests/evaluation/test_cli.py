"""``groundsearch eval`` through the real entry point: one JSON object on stdout, progress on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from groundsearch.interfaces.cli import main

METRICS = {"ndcg@10", "recall@2", "recall@5", "recall@10", "mrr@10", "p50_ms", "p95_ms"}
GATE = {"gate_failed", "reformulated"}  # every plan-profile retriever runs the product's gate; bm25s has none


def test_eval_json_through_the_installed_script(beir_dir: Path, tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "groundsearch"
    proc = subprocess.run(
        [str(script), "eval", "--dataset", str(beir_dir), "--retrievers", "bm25,dense,hybrid,weighted,bm25s",
         "--cache-dir", str(tmp_path / "cache"), "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)  # stdout is exactly one JSON document
    assert body["dataset"] == "tiny_beir" and body["queries"] == 3
    assert body["embedder"].startswith("all-MiniLM-L6-v2")
    assert list(body["results"]) == ["bm25", "dense", "hybrid", "weighted", "bm25s"]
    for name, scores in body["results"].items():
        assert set(scores) == (METRICS if name == "bm25s" else METRICS | GATE)
        assert all(0.0 <= scores[m] <= 1.0 for m in ("ndcg@10", "recall@5", "recall@10", "mrr@10"))
        assert scores["p95_ms"] >= scores["p50_ms"] > 0
    # each judged query's relevant document shares rare words with it: BM25 finds them all at rank 1..2
    assert body["results"]["bm25"]["recall@10"] == 1.0


def test_eval_bad_input_exits_2_with_a_named_problem(beir_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["eval", "--dataset", str(beir_dir), "--retrievers", "bm25,colbert",
                                  "--cache-dir", str(tmp_path), "--json"])
    assert result.exit_code == 2
    assert "unknown retriever(s) ['colbert']" in result.stderr
    (beir_dir / "qrels.tsv").write_text("q1\td1\tyes\n")
    result = runner.invoke(main, ["eval", "--dataset", str(beir_dir), "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2 and "qrels.tsv, line 1" not in result.stdout
    assert "no judgements found" in result.stderr  # a lone non-integer first row reads as a header


def test_bench_rejects_unknown_suite_and_sizes() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["bench", "--suite", "keyword,gpu"])
    assert result.exit_code == 2 and "unknown bench suite(s) ['gpu']" in result.stderr
    result = runner.invoke(main, ["bench", "--suite", "scaling", "--sizes", "10k"])
    assert result.exit_code == 2 and "--sizes takes comma-separated integers" in result.stderr
