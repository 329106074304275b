"""The runner end to end on the tiny BEIR folder: real ingest path, real SQLite store, HashEmbedder (logic only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsearch.errors import InvalidInput
from groundsearch.evaluation.datasets import load_beir
from groundsearch.evaluation.metrics import ndcg_at_k
from groundsearch.evaluation.runner import RETRIEVERS, cache_dir_for, open_eval_engine, run_eval
from groundsearch.models.fake import HashEmbedder


def test_every_retriever_ranks_and_scores(beir_dir: Path, tmp_path: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    dataset = load_beir(beir_dir)
    report = run_eval(dataset, RETRIEVERS, embedder=HashEmbedder(64), embedder_name="hash",
                      cache_root=tmp_path / "cache", progress=lambda t, d, n: seen.append((t, d, n)))
    assert report.queries == 3 and report.dataset == "tiny_beir"
    assert set(report.results) == set(RETRIEVERS)
    for name in RETRIEVERS:
        rankings = report.rankings[name]
        assert set(rankings) == {"q1", "q2", "q3"}  # the unjudged q9 is not evaluated
        assert all(len(r) == len(set(r)) for r in rankings.values())
        # the reported mean is the mean of the per-query metric over these rankings
        mean = sum(ndcg_at_k(list(rankings[q]), dataset.qrels[q], 10) for q in rankings) / 3
        assert report.results[name].ndcg10 == pytest.approx(mean)
    # ids map back to BEIR ids (the integer _id 6 included) and lexical matches rank first
    assert report.rankings["bm25"]["q1"][0] == "d1"
    assert report.rankings["bm25"]["q2"][0] == "d3"
    assert set(report.rankings["bm25"]["q3"][:2]) == {"d4", "6"}
    assert report.results["bm25"].ndcg10 == pytest.approx(1.0)
    # the baseline indexes the same terms, so on this corpus it ranks the top hits identically
    for q in ("q1", "q2"):
        assert report.rankings["bm25s"][q][0] == report.rankings["bm25"][q][0]
    assert ("ingest", 6, 6) in seen and ("hybrid", 3, 3) in seen
    js = report.as_json()
    assert set(js["results"]["dense"]) == {"ndcg@10", "recall@2", "recall@5", "recall@10", "mrr@10", "p50_ms", "p95_ms",
                                           "gate_failed", "reformulated"}


def test_cached_index_is_reused_and_keyed_by_model(beir_dir: Path, tmp_path: Path) -> None:
    dataset = load_beir(beir_dir)
    root = tmp_path / "cache"
    run_eval(dataset, ["dense"], embedder=HashEmbedder(64), embedder_name="hash", cache_root=root)
    cached = cache_dir_for(root, dataset, "hash-64")
    assert (cached / "complete.json").is_file()
    seen: list[str] = []
    run_eval(dataset, ["dense"], embedder=HashEmbedder(64), embedder_name="hash", cache_root=root,
             progress=lambda t, d, n: seen.append(t))
    assert "ingest" not in seen  # second run skipped ingest
    run_eval(dataset, ["dense"], embedder=HashEmbedder(32), embedder_name="hash", cache_root=root)
    assert (cache_dir_for(root, dataset, "hash-32") / "complete.json").is_file()


def test_a_finished_cache_is_shared_by_concurrent_evals(beir_dir: Path, tmp_path: Path) -> None:
    # The store admits one writer: two evals (or an eval and the quality tests) on one cached corpus used to
    # fail with "another process has the store open for writing".
    dataset = load_beir(beir_dir)
    root = tmp_path / "cache"
    run_eval(dataset, ["dense"], embedder=HashEmbedder(64), embedder_name="hash", cache_root=root)
    first = open_eval_engine(dataset, embedder=HashEmbedder(64), embedder_name="hash", cache_root=root)
    try:
        second = open_eval_engine(dataset, embedder=HashEmbedder(64), embedder_name="hash", cache_root=root)
        try:
            report = run_eval(dataset, ["bm25", "dense"], embedder=HashEmbedder(64), embedder_name="hash",
                              cache_root=root)
            assert report.results["dense"].ndcg10 > 0
            assert first.store.count() == second.store.count() == len(dataset.corpus)
        finally:
            second.close()
    finally:
        first.close()


def test_limit_queries_and_bad_retriever(beir_dir: Path, tmp_path: Path) -> None:
    dataset = load_beir(beir_dir)
    report = run_eval(dataset, ["bm25"], embedder=HashEmbedder(64), embedder_name="hash",
                      cache_root=tmp_path / "c", limit_queries=2)
    assert report.queries == 2 and set(report.rankings["bm25"]) == {"q1", "q2"}
    with pytest.raises(InvalidInput, match="unknown retriever"):
        run_eval(dataset, ["bm25", "splade"], embedder=HashEmbedder(64), cache_root=tmp_path / "c")


def test_keyword_only_runs_skip_embeddings(beir_dir: Path, tmp_path: Path) -> None:
    dataset = load_beir(beir_dir)
    root = tmp_path / "cache"
    report = run_eval(dataset, ["bm25", "bm25s"], embedder=HashEmbedder(64), embedder_name="hash", cache_root=root)
    assert report.embedder == "keyword-only" and report.results["bm25"].ndcg10 == pytest.approx(1.0)
    assert (cache_dir_for(root, dataset, "hash-64-keyword-only") / "complete.json").is_file()
    assert not cache_dir_for(root, dataset, "hash-64").exists()


def test_postgres_backend_scores_like_the_embedded_one(beir_dir: Path, tmp_path: Path, postgres_database) -> None:
    """The eval can run on Postgres: filled from the embedded cache, it must rank the same corpus alike."""
    from groundsearch.settings import load_settings

    dataset = load_beir(beir_dir)
    kw = dict(embedder=HashEmbedder(64), embedder_name="hash", cache_root=tmp_path / "cache")
    embedded = run_eval(dataset, RETRIEVERS, **kw)
    pg_settings = load_settings(env={}, database_url=postgres_database())
    on_pg = run_eval(dataset, RETRIEVERS, base_settings=pg_settings, **kw)
    again = run_eval(dataset, ["bm25"], base_settings=pg_settings, **kw)  # copied once, then reused
    assert (embedded.backend, on_pg.backend, again.backend) == ("SQLiteStore", "PostgresStore", "PostgresStore")
    for name in RETRIEVERS:
        assert on_pg.results[name].ndcg10 == pytest.approx(embedded.results[name].ndcg10, abs=0.01), name
    assert on_pg.rankings["bm25"] == embedded.rankings["bm25"]
    assert on_pg.as_json()["backend"] == "PostgresStore"


def _format2_keyword_index(path: Path) -> None:
    """What the release before keyword FORMAT 3 left on disk: an index whose schema stored no field."""
    import shutil

    import tantivy

    shutil.rmtree(path)
    path.mkdir()
    sb = tantivy.SchemaBuilder()
    sb.add_unsigned_field("key", indexed=True, fast=True)
    sb.add_text_field("body", tokenizer_name="whitespace", index_option="freq")
    for name in ("item_id", "collection", "status", "tenant", "fv"):
        sb.add_text_field(name, tokenizer_name="raw", index_option="basic")
    sb.add_unsigned_field("superseded", indexed=True)
    sb.add_integer_field("date", indexed=True, fast=True)
    index = tantivy.Index(sb.build(), path=str(path))
    writer = index.writer(15_000_000, 1)
    doc = tantivy.Document()
    doc.add_unsigned("key", 1)
    doc.add_text("body", "old words")
    writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    (path / "applied.json").write_text('{"format": 2, "seq": 999999}')


def test_a_cache_from_an_older_keyword_format_is_rebuilt_not_scored_empty(beir_dir: Path, tmp_path: Path) -> None:
    # CI, session 16: a SciFact cache built before keyword FORMAT 3 was opened read-only, its keyword leg could
    # not serve (schema mismatch), the product answered from the vector leg alone and bm25 scored nDCG 0.0.
    dataset = load_beir(beir_dir)
    root = tmp_path / "cache"
    run_eval(dataset, ["bm25"], embedder=HashEmbedder(64), embedder_name="hash", cache_root=root)
    keyword = cache_dir_for(root, dataset, "hash-64-keyword-only") / "store" / "keyword"
    _format2_keyword_index(keyword)
    report = run_eval(dataset, ["bm25", "bm25s"], embedder=HashEmbedder(64), embedder_name="hash", cache_root=root)
    assert report.results["bm25"].ndcg10 == pytest.approx(1.0)
    assert report.results["bm25"].ndcg10 == pytest.approx(report.results["bm25s"].ndcg10, abs=0.01)
    assert '"format": 3' in (keyword / "applied.json").read_text()


def test_a_leg_that_cannot_serve_fails_the_eval_instead_of_scoring_the_others(
        beir_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from groundsearch.errors import IndexUnavailable
    from groundsearch.store.sqlite import SQLiteStore

    dataset = load_beir(beir_dir)

    def down(self, *args, **kwargs):
        raise IndexUnavailable("the keyword index is being rebuilt")

    monkeypatch.setattr(SQLiteStore, "keyword_search", down)
    with pytest.raises(IndexUnavailable, match="hybrid profile ran without its keyword leg"):
        run_eval(dataset, ["hybrid"], embedder=HashEmbedder(64), embedder_name="hash", cache_root=tmp_path / "c")
