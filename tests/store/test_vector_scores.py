"""The vector leg's scores are a function of a row's values, not of its place in the matrix (session 17).

The float32 matrix product (BLAS sgemv) rounds a row's dot product by where the row falls in its blocks: on
main, 3,974 of 5,000 unit rows scored differently in the full product than alone, so a re-ingested chunk,
whose row moves, scored an ulp apart from a fresh build (tests/determinism/test_store_history.py). The chosen
rows are now rescored in float64; each case here fails on the float32 scores.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from groundsearch.store.vectors import VectorIndex, VectorRows, exact_search

N, DIM = 3_000, 384


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    m = rng.standard_normal((n, DIM), dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(17)
    return _unit(rng, N), _unit(rng, 8)


def _exact(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The reference: every row's dot product in float64, rounded once to float32."""
    return np.array([np.dot(r.astype(np.float64), query.astype(np.float64)) for r in matrix]).astype(np.float32)


@pytest.mark.parametrize("selective", [False, True], ids=["full product", "gathered rows"])
def test_a_rows_score_is_the_same_bits_wherever_the_row_sits(data: tuple[np.ndarray, np.ndarray],
                                                             selective: bool) -> None:
    matrix, queries = data
    keys = np.arange(N, dtype=np.int64)
    mask = np.zeros(N, dtype=bool)
    mask[: N // 8 if selective else N] = True  # under a quarter allowed: the gathered-rows path
    for q in queries:
        a_keys, a_scores = exact_search(matrix, keys, q, mask, 50)
        # a history: the same rows, shuffled, one other row deleted, and the best ones re-ingested last, where
        # they fall in the product's last, partial block
        rest = np.setdiff1d(keys, a_keys)
        moved = np.concatenate([np.random.default_rng(1).permutation(rest)[1:], a_keys[::-1]])
        b_keys, b_scores = exact_search(matrix[moved], keys[moved], q, mask[moved], 50)
        assert a_keys.tolist() == b_keys.tolist()
        assert a_scores.tobytes() == b_scores.tobytes()
        reference = _exact(matrix, q)
        assert a_scores.tobytes() == reference[a_keys].tobytes()  # the true dot products, rounded once
        order = np.lexsort((keys[mask], -reference[mask].astype(np.float64)))[:50]
        assert a_keys.tolist() == keys[mask][order].tolist()  # the exact top 50, best first


def test_a_larger_page_extends_a_smaller_one(data: tuple[np.ndarray, np.ndarray]) -> None:
    matrix, queries = data
    keys, mask = np.arange(N, dtype=np.int64), np.ones(N, dtype=bool)
    for q in queries:
        small, large = exact_search(matrix, keys, q, mask, 10), exact_search(matrix, keys, q, mask, 200)
        assert small[0].tolist() == large[0][:10].tolist() and small[1].tobytes() == large[1][:10].tobytes()


def test_the_graph_path_scores_as_the_exact_scan(data: tuple[np.ndarray, np.ndarray], tmp_path: Path) -> None:
    matrix, queries = data
    index = VectorIndex(DIM, exact_max=100, directory=tmp_path)
    index.append(VectorRows(keys=np.arange(N, dtype=np.int64), vectors=matrix,
                            item_rowids=np.arange(N, dtype=np.int64), collections=["docs"] * N,
                            statuses=["published"] * N, superseded=np.zeros(N, dtype=bool), tenants=[""] * N,
                            date_ords=np.zeros(N, dtype=np.int32)))
    index.ensure_graph()
    assert index.uses_hnsw
    mask = np.ones(N, dtype=bool)
    for q in queries:
        keys, scores = index.search(q, mask, 10)
        reference = _exact(matrix, q)
        assert scores.tobytes() == reference[keys].tobytes()
