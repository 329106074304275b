"""The bench harness on the tiny BEIR folder: the suites that run SciFact-shaped work, with the real model.

Figures are not asserted (speed claims live in BENCHMARKS.md); the shape and the bookkeeping are.
The vector and scaling suites delegate to ``bench_store`` and are exercised by its own tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsearch.evaluation.bench import parse_sizes, parse_suites, run_bench, timed_rounds
from groundsearch.errors import InvalidInput


def test_keyword_ingest_memory_suites(beir_dir: Path, tmp_path: Path) -> None:
    result = run_bench("keyword,ingest,memory", "10", dataset_dir=beir_dir, cache_root=tmp_path / "cache")
    m = result["machine"]
    assert m["nproc"] >= 1 and m["ram_gib"] > 0 and m["cpu"]
    kw = result["suites"]["keyword"]
    assert kw["queries"] == 3
    assert kw["groundsearch_keyword"]["qps_median"] > 0 and kw["bm25s"]["qps_median"] > 0
    assert kw["ratio_qps_keyword_over_bm25s"] == pytest.approx(
        kw["groundsearch_keyword"]["qps_median"] / kw["bm25s"]["qps_median"], rel=0.05)
    spread = kw["ratio_per_round"]
    assert 0 < spread["min"] <= spread["median"] <= spread["max"]
    ingest = result["suites"]["ingest"]
    assert ingest["without_embedding"]["chunks"] == 6  # one chunk per record, whole corpus
    assert ingest["with_embedding_minilm"]["chunks"] == 6  # fewer than INGEST_EMBED_DOCS lines exist
    mem = result["suites"]["memory"]
    # ru_maxrss and /proc RSS are sampled differently, so "peak ≥ current" holds only to within rounding
    assert mem["process_peak_rss_mib"] >= 0.99 * mem["rss_after_queries_mib"] > 0


def test_timed_rounds_alternates_and_counts() -> None:
    calls: list[str] = []
    out = timed_rounds({"a": lambda q: calls.append("a"), "b": lambda q: calls.append("b")}, ["x", "y"], 3)
    assert calls == ["a", "a", "b", "b", "b", "b", "a", "a", "a", "a", "b", "b"]  # a first, then b first, …
    assert set(out) == {"a", "b"} and all(v["qps_median"] > 0 for v in out.values())
    assert all(len(v["qps_rounds"]) == 3 and v["qps_median"] in v["qps_rounds"] for v in out.values())


def test_parsers() -> None:
    assert parse_suites("all") == ("keyword", "vector", "scaling", "ingest", "memory", "threads", "auditor")
    assert parse_suites("memory, keyword") == ("memory", "keyword")
    assert parse_sizes("10000,100000") == (10_000, 100_000)
    with pytest.raises(InvalidInput):
        parse_sizes("0")
    with pytest.raises(InvalidInput):
        parse_suites("")


def test_threads_suite_compares_the_engines_blas_threading_with_pinned(beir_dir: Path, tmp_path: Path) -> None:
    t = run_bench("threads", "10", dataset_dir=beir_dir, cache_root=tmp_path / "cache")["suites"]["threads"]
    assert t["blas_threads"]["engine_default"] == 1 and t["blas_threads"]["pinned_1"] == 1  # Engine.open pinned it
    assert t["queries"] == 3
    assert t["ratio_p50_engine_default_over_pinned"] == pytest.approx(
        t["engine_default"]["p50_ms"] / t["pinned_1"]["p50_ms"], abs=0.01)
    assert t["ok"] == (t["ratio_p50_engine_default_over_pinned"] <= 1.2)


def test_auditor_suite_reports_l1_and_l2_per_paragraph_against_its_baseline() -> None:
    figures = run_bench("auditor")["suites"]["auditor"]
    assert figures["paragraphs"] == 3 and figures["rounds"] > 0
    for key in ("l1_per_paragraph", "l2_per_paragraph", "extract_entities_baseline"):
        assert figures[key]["p50_ms"] > 0 and figures[key]["p95_ms"] >= figures[key]["p50_ms"]
    assert figures["limit_ms"] == 1.0 and isinstance(figures["ok"], bool)  # a figure, never a timed assertion
