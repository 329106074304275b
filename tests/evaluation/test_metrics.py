"""Metrics against hand-computed cases; the arithmetic is written out next to each expectation."""

from __future__ import annotations

import math

import pytest

from groundsearch.evaluation.metrics import dcg, dedupe, mrr_at_k, ndcg_at_k, percentile, recall_at_k

L2 = math.log2


def test_dcg_discounts_by_log2_of_rank_plus_one() -> None:
    # 3/log2(2) + 2/log2(3) + 0/log2(4) + 1/log2(5)
    assert dcg([3, 2, 0, 1]) == pytest.approx(3 / 1 + 2 / L2(3) + 0 + 1 / L2(5))


def test_ndcg_binary_relevance_hand_computed() -> None:
    qrels = {"a": 1, "b": 1}
    # relevant docs at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5); ideal (ranks 1, 2) = 1/log2(2) + 1/log2(3)
    expected = (1 / L2(3) + 1 / L2(5)) / (1 + 1 / L2(3))
    assert ndcg_at_k(["x", "a", "y", "b"], qrels, 10) == pytest.approx(expected)
    assert expected == pytest.approx(0.6509209, abs=1e-6)


def test_ndcg_graded_relevance_and_ideal_from_all_judged_docs() -> None:
    # grades a=2, b=1, c=1; c is never retrieved but still counts in the ideal ranking (2, 1, 1)
    qrels = {"a": 2, "b": 1, "c": 1, "z": 0}
    ranking = ["b", "z", "a"]
    dcg_ = 1 / L2(2) + 0 / L2(3) + 2 / L2(4)  # = 1 + 0 + 1 = 2
    ideal = 2 / L2(2) + 1 / L2(3) + 1 / L2(4)  # = 2 + 0.6309 + 0.5 = 3.1309
    assert ndcg_at_k(ranking, qrels, 10) == pytest.approx(dcg_ / ideal)
    assert ndcg_at_k(ranking, qrels, 10) == pytest.approx(2 / 3.1309298, abs=1e-6)


def test_ndcg_cuts_at_k_on_both_sides() -> None:
    qrels = {"a": 1, "b": 1, "c": 1}
    # k=2: retrieved [a, x] → DCG 1; ideal only counts 2 of the 3 relevant → 1 + 1/log2(3)
    assert ndcg_at_k(["a", "x", "b"], qrels, 2) == pytest.approx(1 / (1 + 1 / L2(3)))


def test_ndcg_perfect_and_empty() -> None:
    assert ndcg_at_k(["a", "b"], {"a": 1, "b": 1}, 10) == pytest.approx(1.0)
    assert ndcg_at_k([], {"a": 1}, 10) == 0.0
    assert ndcg_at_k(["a"], {"a": 0}, 10) == 0.0  # no relevant document judged


def test_recall_at_k() -> None:
    qrels = {"a": 1, "b": 1, "c": 1, "n": 0}
    ranking = ["a", "x", "y", "z", "w", "b", "n"]
    assert recall_at_k(ranking, qrels, 5) == pytest.approx(1 / 3)  # only a in the top 5
    assert recall_at_k(ranking, qrels, 10) == pytest.approx(2 / 3)  # a and b; n is judged non-relevant
    assert recall_at_k(ranking, {}, 5) == 0.0


def test_mrr_at_k() -> None:
    qrels = {"b": 1, "c": 2}
    assert mrr_at_k(["x", "b", "c"], qrels, 10) == pytest.approx(1 / 2)  # first relevant at rank 2
    assert mrr_at_k(["x"] * 0 + [str(i) for i in range(10)] + ["b"], qrels, 10) == 0.0  # rank 11 is past k
    assert mrr_at_k(["c"], qrels, 10) == 1.0


def test_dedupe_keeps_first_position() -> None:
    assert dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def test_percentile_linear_interpolation() -> None:
    # p50 of 1..4 = 2.5; p95 = 1 + 0.95 * 3 = 3.85 (numpy's linear rule on ranks 0..3)
    assert percentile([4, 1, 3, 2], 50) == pytest.approx(2.5)
    assert percentile([4, 1, 3, 2], 95) == pytest.approx(3.85)
    assert percentile([], 50) == 0.0
