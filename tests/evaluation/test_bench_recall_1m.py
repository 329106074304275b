"""The 1M recall bench's bookkeeping on a small corpus: derived rows are counted apart from real ones, the truth
is exact, and the store sweep reads the store's own HNSW graph (forced on by a small ``exact_max``) and scores
it against that truth with ties counted. Random clustered vectors: this checks the arithmetic and the wiring,
not graph quality (the figures come from the real vectors, BENCHMARKS.md issue 15 session 4)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from groundsearch.evaluation.bench_recall_1m import build_graph, build_store, hybrid, sweep_graph, sweep_store
from groundsearch.evaluation.recall_corpus import (
    derived_corpus, exact_truth, load_corpus, nn_profile, origin_subset, tie_aware_recall, write_corpus,
)
from groundsearch.evaluation.recall_pg import build_pg, sweep_pg


def _clustered(rng: np.random.Generator, n: int, dim: int = 384) -> np.ndarray:
    centres = rng.standard_normal((20, dim)).astype(np.float32)
    m = centres[rng.integers(0, 20, n)] + 0.5 * rng.standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_derived_rows_follow_the_real_ones_and_name_their_origin() -> None:
    real = _clustered(np.random.default_rng(0), 50, 16)
    rows, origin = derived_corpus(real, 170, sigma=0.02, seed=3)
    assert rows.shape == (170, 16) and origin.shape == (170,)
    assert np.array_equal(rows[:50], real)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(origin[:50], np.arange(50)) and origin[50:].max() == 49
    # a derived row is nearer its origin than a random real row is, on average
    own = np.einsum("ij,ij->i", rows[50:], real[origin[50:]])
    assert own.mean() > (rows[50:] @ real.T).mean() + 0.2
    again, _ = derived_corpus(real, 170, sigma=0.02, seed=3)
    assert np.array_equal(rows, again)


def test_exact_truth_matches_a_full_sort_and_nn_profile_excludes_self() -> None:
    m = _clustered(np.random.default_rng(1), 400, 16)
    q = m[:7] + 0.01
    ids, scores = exact_truth(m, q, k=12)
    for j in range(7):
        sims = m @ q[j]
        assert np.allclose(scores[j], np.sort(sims)[::-1][:12], atol=1e-6)
        assert np.allclose(sims[ids[j]], scores[j], atol=1e-6)
    prof = nn_profile(m, np.arange(20))
    assert prof["p90"] < 0.9999  # a row's own cosine (1.0) would be every row's nearest


def test_tie_aware_recall_counts_rows_as_near_as_the_tenth() -> None:
    assert tie_aware_recall(np.full(10, 0.5), 0.5) == 1.0  # a tie with the 10th true neighbour counts
    assert tie_aware_recall(np.asarray([0.9] * 7 + [0.1] * 3), 0.5) == 0.7


def test_store_sweep_uses_the_stores_graph_and_exact_truth(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    real = _clustered(rng, 300)
    rows, origin = derived_corpus(real, 1_200, sigma=0.02, seed=0)
    queries = _clustered(rng, 12)
    texts = [f"text of real row {i}" for i in range(len(real))]
    write_corpus(tmp_path, rows, origin, queries, texts, {"rows": 1_200, "real_rows": 300})
    built = build_store(tmp_path, exact_max=500)
    assert built["rows"] == 1_200
    assert (tmp_path / "sqlite" / "vectors" / "hnsw.usearch").exists()  # the store built and saved its graph
    out = sweep_store(tmp_path, efs=(16, 512), depths=(10,), exact_max=500, queries=12)
    assert out["queries"] == 12 and out["store_default_ef"] == 128
    # at ef 512 over 1,200 rows the beam covers nearly everything: recall must be (close to) exact
    assert out["ef"]["512"]["k10"]["recall_at_10"] >= 0.95
    assert 0.0 < out["ef"]["16"]["k10"]["recall_at_10"] <= out["ef"]["512"]["k10"]["recall_at_10"]


def test_graph_sweep_restores_the_saved_graph_through_the_stores_path(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    rows, origin = derived_corpus(_clustered(rng, 300), 1_000, sigma=0.02, seed=0)
    write_corpus(tmp_path, rows, origin, _clustered(rng, 10), ["t"] * 300, {"rows": 1_000})
    assert build_graph(tmp_path, exact_max=200)["rows"] == 1_000
    out = sweep_graph(tmp_path, efs=(512,), depths=(10, 100), exact_max=200, queries=10)
    assert out["store_default_ef"] == 128  # restored with the store's ef, not usearch's default 64
    assert out["ef"]["512"]["k10"]["recall_at_10"] >= 0.95 and out["ef"]["512"]["k100"]["recall_at_10"] >= 0.95


def test_pg_sweep_uses_the_stores_index_and_exact_truth(tmp_path: Path, postgres_database) -> None:  # noqa: ANN001
    rng = np.random.default_rng(6)
    rows, origin = derived_corpus(_clustered(rng, 300), 900, sigma=0.02, seed=0)
    write_corpus(tmp_path, rows, origin, _clustered(rng, 8), ["t"] * 300, {"rows": 900})
    dsn = postgres_database()
    built = build_pg(tmp_path, dsn=dsn)
    assert built["rows"] == 900
    out = sweep_pg(tmp_path, (40, 800), depths=(10,), dsn=dsn, queries=8)
    assert out["store_default_ef_search"] == {"k10": "40"}
    assert out["ef_search"]["800"]["k10"]["recall_at_10"] >= 0.95  # the beam covers nearly all 900 rows
    assert out["ef_search"]["40"]["k10"]["recall_at_10"] <= out["ef_search"]["800"]["k10"]["recall_at_10"]


def test_a_graph_built_with_other_knobs_is_saved_beside_and_swept_with_them(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    rows, origin = derived_corpus(_clustered(rng, 300), 1_000, sigma=0.02, seed=0)
    write_corpus(tmp_path, rows, origin, _clustered(rng, 10), ["t"] * 300, {"rows": 1_000})
    built = build_graph(tmp_path, exact_max=200, connectivity=32, expansion_add=200, graph_dir="graph-c32")
    assert (built["connectivity"], built["expansion_add"], built["rows"]) == (32, 200, 1_000)
    assert (tmp_path / "graph-c32" / "hnsw.usearch").exists() and not (tmp_path / "graph").exists()
    out = sweep_graph(tmp_path, efs=(512,), depths=(10,), exact_max=200, queries=10, graph_dir="graph-c32")
    assert out["connectivity"] == 32  # the restored file is the new graph, not the store-default one
    assert out["ef"]["512"]["k10"]["recall_at_10"] >= 0.95


def test_origin_subset_keeps_whole_neighbourhoods_and_recomputes_truth(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    rows, origin = derived_corpus(_clustered(rng, 100), 2_000, sigma=0.02, seed=0)
    queries = _clustered(rng, 5)
    write_corpus(tmp_path / "full", rows, origin, queries, [f"t{i}" for i in range(100)], {"rows": 2_000, "real_rows": 100})
    meta = origin_subset(tmp_path / "full", tmp_path / "sub", 0.2)
    sub = load_corpus(tmp_path / "sub")
    assert meta["real_rows"] == 20 and meta["rows"] == len(sub["vectors"]) == 400
    assert np.bincount(sub["origin"]).tolist() == [20] * 20  # every copy of a kept origin: 1 real + 19 derived
    assert np.allclose((sub["vectors"] @ rows.T).max(axis=1), 1.0, atol=1e-5)  # rows of the full corpus, unchanged
    ids, scores = exact_truth(sub["vectors"], queries)
    assert np.array_equal(sub["truth_ids"], ids) and np.allclose(sub["truth_scores"], scores)


def test_hybrid_times_the_stores_graph_beside_a_baseline_graph_in_the_same_store(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    real = _clustered(rng, 300)
    rows, origin = derived_corpus(real, 1_200, sigma=0.02, seed=0)
    texts = [f"text of real row {i}" for i in range(len(real))]
    write_corpus(tmp_path, rows, origin, _clustered(rng, 12), texts, {"rows": 1_200, "real_rows": 300})
    build_store(tmp_path, exact_max=500)
    build_graph(tmp_path, exact_max=500, connectivity=16, expansion_add=64, graph_dir="graph-old")
    out = hybrid(tmp_path, None, baseline="graph-old", baseline_ef=16, exact_max=500,
                 texts=[f"real row {i}" for i in range(12)])
    assert out["queries"] == 12
    assert (out["store"]["connectivity"], out["baseline"]["connectivity"]) == (32, 16)
    assert out["store"]["ef"] == 128 and out["baseline"]["ef"] == 16
    assert out["store"]["recall_at_10"] >= 0.95  # ef 128 over 1,200 rows covers nearly everything
    assert 0.0 < out["baseline"]["recall_at_10"] <= 1.0  # at 1,200 rows either graph may be exact: no order
    assert out["store"]["hybrid"]["p50_ms"] > 0 and out["ratio_p95_hybrid_store_over_baseline"] > 0
