from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundsearch.query.fusion import reciprocal_rank_fusion
from groundsearch.types import Hit


def hits(*ids: str) -> list[Hit]:
    return [Hit(chunk_id=i, item_id=i.split("#")[0], score=float(len(ids) - n)) for n, i in enumerate(ids)]


def test_rrf_matches_hand_computed_scores() -> None:
    fused = reciprocal_rank_fusion({"keyword": hits("a", "b", "c"), "vector": hits("b", "d")}, k=60)
    score = {f.chunk_id: f.score for f in fused}
    assert score["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert score["a"] == pytest.approx(1 / 61)
    assert score["c"] == pytest.approx(1 / 63)
    assert score["d"] == pytest.approx(1 / 62)
    assert [f.chunk_id for f in fused] == ["b", "a", "d", "c"]  # d (1/62) and c (1/63) by score
    b = next(f for f in fused if f.chunk_id == "b")
    assert {(ls.leg, ls.rank) for ls in b.legs} == {("keyword", 2), ("vector", 1)}


def test_rrf_k_changes_how_much_the_head_counts() -> None:
    legs = {"keyword": hits("a", "x", "y", "b"), "vector": hits("b", "z", "w", "a")}
    # symmetric ranks → a tie broken deterministically by best rank then id
    assert [f.chunk_id for f in reciprocal_rank_fusion(legs, k=1)][:2] == ["a", "b"]
    with pytest.raises(ValueError):
        reciprocal_rank_fusion(legs, k=0)


def test_duplicate_hits_in_one_leg_count_once_at_best_rank() -> None:
    fused = reciprocal_rank_fusion({"keyword": hits("a", "a", "b")}, k=60)
    assert [f.chunk_id for f in fused] == ["a", "b"]
    assert fused[1].score == pytest.approx(1 / 62)


ids = st.lists(st.sampled_from([f"d{i}" for i in range(30)]), max_size=25)


@given(ids, ids, st.integers(min_value=1, max_value=200))
def test_rrf_properties(kw: list[str], vec: list[str], k: int) -> None:
    a = reciprocal_rank_fusion({"keyword": hits(*kw), "vector": hits(*vec)}, k=k)
    b = reciprocal_rank_fusion({"vector": hits(*vec), "keyword": hits(*kw)}, k=k)
    out = [f.chunk_id for f in a]
    assert out == [f.chunk_id for f in b]  # independent of leg order
    assert len(out) == len(set(out)) == len(set(kw) | set(vec))  # never duplicates, never loses
    assert all(x.score >= y.score for x, y in zip(a, a[1:]))
    if kw and vec and kw[0] == vec[0]:
        assert out[0] == kw[0]  # unanimous first place wins
