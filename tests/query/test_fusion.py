from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundsearch.query.fusion import reciprocal_rank_fusion, zscore_fusion, zscore_graph_fusion
from groundsearch.types import Hit


A, B, C, D, W, X, Y, Z = 1, 2, 3, 4, 23, 24, 25, 26  # chunk keys, named for readability


def hits(*keys: int) -> list[Hit]:
    return [(k, float(len(keys) - n)) for n, k in enumerate(keys)]


def test_rrf_matches_hand_computed_scores() -> None:
    fused = reciprocal_rank_fusion({"keyword": hits(A, B, C), "vector": hits(B, D)}, k=60)
    score = {f.key: f.score for f in fused}
    assert score[B] == pytest.approx(1 / 62 + 1 / 61)
    assert score[A] == pytest.approx(1 / 61)
    assert score[C] == pytest.approx(1 / 63)
    assert score[D] == pytest.approx(1 / 62)
    assert [f.key for f in fused] == [B, A, D, C]  # D (1/62) and C (1/63) by score
    b = next(f for f in fused if f.key == B)
    assert {(ls.leg, ls.rank) for ls in b.legs} == {("keyword", 2), ("vector", 1)}


def test_rrf_k_changes_how_much_the_head_counts() -> None:
    legs = {"keyword": hits(A, X, Y, B), "vector": hits(B, Z, W, A)}
    # symmetric ranks → a tie broken by best rank, then ranks leg by leg (keyword's 1st before vector's 1st)
    assert [f.key for f in reciprocal_rank_fusion(legs, k=1)][:2] == [A, B]
    with pytest.raises(ValueError):
        reciprocal_rank_fusion(legs, k=0)


def test_duplicate_hits_in_one_leg_count_once_at_best_rank() -> None:
    fused = reciprocal_rank_fusion({"keyword": hits(A, A, B)}, k=60)
    assert [f.key for f in fused] == [A, B]
    assert fused[1].score == pytest.approx(1 / 62)


ids = st.lists(st.integers(min_value=1, max_value=30), max_size=25)


@given(ids, ids, st.integers(min_value=1, max_value=200))
def test_rrf_properties(kw: list[int], vec: list[int], k: int) -> None:
    a = reciprocal_rank_fusion({"keyword": hits(*kw), "vector": hits(*vec)}, k=k)
    b = reciprocal_rank_fusion({"vector": hits(*vec), "keyword": hits(*kw)}, k=k)
    out = [f.key for f in a]
    assert out == [f.key for f in b]  # independent of leg order
    assert len(out) == len(set(out)) == len(set(kw) | set(vec))  # never duplicates, never loses
    assert all(x.score >= y.score for x, y in zip(a, a[1:]))
    if kw and vec and kw[0] == vec[0]:
        assert out[0] == kw[0]  # unanimous first place wins


@given(ids, ids, st.integers(min_value=1, max_value=200), st.permutations(range(1, 31)))
def test_rrf_order_does_not_depend_on_key_values(kw: list[int], vec: list[int], k: int, perm: list[int]) -> None:
    """Backends number chunks differently; relabelling every key must not reorder the fused list."""
    relabel = dict(zip(range(1, 31), perm))
    plain = reciprocal_rank_fusion({"keyword": hits(*kw), "vector": hits(*vec)}, k=k)
    renamed = reciprocal_rank_fusion({"keyword": hits(*map(relabel.get, kw)), "vector": hits(*map(relabel.get, vec))},
                                     k=k)
    assert [relabel[f.key] for f in plain] == [f.key for f in renamed]
    assert [f.score for f in plain] == [f.score for f in renamed]


def test_zscore_fusion_matches_hand_computed_scores_and_floors_missing_legs() -> None:
    # keyword scores 3, 2, 1 → z = 1.2247, 0, -1.2247; vector 0.9, 0.5 → z = 1, -1
    fused = zscore_fusion({"keyword": [(A, 3.0), (B, 2.0), (C, 1.0)], "vector": [(B, 0.9), (D, 0.5)]})
    score = {f.key: f.score for f in fused}
    assert score[B] == pytest.approx(0 + 1, abs=1e-6)
    assert score[A] == pytest.approx(1.224745 - 1, abs=1e-6)  # absent from the vector leg: its lowest z
    assert score[D] == pytest.approx(-1.224745 - 1, abs=1e-6)
    assert [f.key for f in fused] == [B, A, D, C]  # D and C tie at -2.2247: D has the better best rank (2 vs 3)
    b = next(f for f in fused if f.key == B)
    assert {(ls.leg, ls.rank, ls.score) for ls in b.legs} == {("keyword", 2, 2.0), ("vector", 1, 0.9)}


def test_zscore_fusion_keeps_a_margin_rrf_flattens() -> None:
    # one BM25 hit far ahead of the rest (a rare exact term) beats the vector leg's narrow favourite; by ranks
    # alone B (2nd and 1st) beats A (1st and 3rd)
    legs = {"keyword": [(A, 30.0), (B, 3.0), (X, 2.9), (Y, 2.8)], "vector": [(B, 0.62), (Z, 0.61), (A, 0.40), (W, 0.39)]}
    assert [f.key for f in zscore_fusion(legs)][:2] == [A, B]
    assert [f.key for f in reciprocal_rank_fusion(legs)][:2] == [B, A]


def test_zscore_fusion_of_one_hit_or_equal_scores_is_defined() -> None:
    assert [f.key for f in zscore_fusion({"keyword": [(A, 1.0)], "vector": []})] == [A]
    assert [f.key for f in zscore_fusion({"keyword": [(A, 1.0), (B, 1.0)]})] == [A, B]  # ties by rank
    assert zscore_fusion({}) == []


def test_a_one_hit_or_tied_leg_still_credits_what_it_returned() -> None:
    # With no spread every z was 0 and so was the floor: the keyword leg's only hit C tied with chunks it never
    # returned, and the vector leg alone decided (B first). Now its hits get +1 and the rest -1.
    vector = [(B, 0.9), (C, 0.5), (D, 0.1)]
    fused = zscore_fusion({"keyword": [(C, 7.0)], "vector": vector})
    assert [f.key for f in fused] == [C, B, D]
    assert {f.key: f.score for f in fused}[C] == pytest.approx(1.0)  # +1 and the vector z of 0.5, which is 0
    assert [f.key for f in zscore_fusion({"keyword": [(A, 2.0), (C, 2.0)], "vector": vector})] == [C, B, A, D]


def test_zscore_graph_fusion_is_rrf_of_the_text_ranking_and_the_weighted_graph_ranking() -> None:
    text = {"keyword": [(A, 3.0), (B, 2.0), (C, 1.0)], "vector": [(B, 0.9), (D, 0.5)]}  # z-score order B, A, D, C
    fused = zscore_graph_fusion({**text, "graph": [(C, 0.4), (X, 0.3)]}, k=10, graph_weight=2.0)
    score = {f.key: f.score for f in fused}
    assert score[C] == pytest.approx(1 / 14 + 2 / 11)  # text rank 4, graph rank 1
    assert score[X] == pytest.approx(2 / 12)  # the graph alone found it
    assert score[B] == pytest.approx(1 / 11)
    assert [f.key for f in fused] == [C, X, B, A, D]
    c = next(f for f in fused if f.key == C)  # provenance keeps every leg that found it, for --explain and the gate
    assert {ls.leg for ls in c.legs} == {"keyword", "graph"}
    # with no graph hits it is exactly the z-score ranking
    assert [f.key for f in zscore_graph_fusion({**text, "graph": []}, k=10, graph_weight=2.0)] == \
        [f.key for f in zscore_fusion(text)]
    with pytest.raises(ValueError):
        zscore_graph_fusion(text, k=0, graph_weight=1.0)


@given(st.permutations(range(8)))
def test_zscore_graph_fusion_order_does_not_depend_on_key_values(perm: list[int]) -> None:
    legs = {"keyword": [(0, 2.0), (1, 2.0), (2, 1.0)], "vector": [(3, 0.5), (0, 0.4)], "graph": [(4, 0.2), (2, 0.1)]}
    renamed = {leg: [(perm[k] + 100, s) for k, s in hits] for leg, hits in legs.items()}
    order = [f.key for f in zscore_graph_fusion(legs, k=10, graph_weight=2.0)]
    assert [f.key - 100 for f in zscore_graph_fusion(renamed, k=10, graph_weight=2.0)] == [perm[k] for k in order]
