"""Rewrite arithmetic (pure): Rocchio's moved query vector and RRF across whole retrieval runs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundsearch.query.fusion import Fused, fuse_runs
from groundsearch.query.rewrite import rocchio
from groundsearch.types import LegScore


def test_rocchio_moves_the_query_toward_the_feedback_and_stays_unit() -> None:
    q = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    top = np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)
    moved = rocchio(q, top)
    assert np.linalg.norm(moved) == pytest.approx(1.0, abs=1e-6)
    assert moved @ top[0] > q @ top[0] and moved @ q > 0.7  # toward the feedback, still mostly the query
    assert moved == pytest.approx(np.array([1.0, 0.75, 0.0]) / 1.25, abs=1e-6)  # alpha 1, beta 0.75


def f(key: int, leg: str = "vector") -> Fused:
    return Fused(key, 0.0, (LegScore(leg, 1, 0.5),))  # type: ignore[arg-type]


def test_fuse_runs_scores_by_rank_across_runs_and_keeps_first_provenance() -> None:
    first = [f(1), f(2), f(3)]
    second = [f(3, "keyword"), f(4, "keyword")]
    fused = fuse_runs([first, second], k=60)
    assert [x.key for x in fused][:1] == [3]  # found by both runs
    assert next(x for x in fused if x.key == 3).legs[0].leg == "vector"  # the first run's legs
    assert fused[0].score == pytest.approx(1 / 63 + 1 / 61)


@given(st.lists(st.lists(st.integers(0, 20), max_size=15), min_size=1, max_size=4))
def test_fuse_runs_never_duplicates_and_covers_every_run(runs: list[list[int]]) -> None:
    fused = fuse_runs([[f(k) for k in run] for run in runs])
    keys = [x.key for x in fused]
    assert len(keys) == len(set(keys)) and set(keys) == {k for run in runs for k in run}
    assert all(a.score >= b.score for a, b in zip(fused, fused[1:]))
