"""The HNSW graph's knobs: what new graphs are built with, the search beam growing with the rows, stores built
with older knobs still opening and searching, and the ``retrieval.hnsw_ef`` override (issue 15)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from groundsearch.settings import load_settings
from groundsearch.store import vectors as vector_module
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.store.vectors import NO_DATE, VectorIndex, VectorRows, search_ef
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter
from tests.hits import item_ids

DIM = 16


def _clustered(rng: np.random.Generator, n: int) -> np.ndarray:
    centres = rng.standard_normal((12, DIM)).astype(np.float32)
    v = centres[rng.integers(0, 12, n)] + 0.5 * rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _writes(vectors: np.ndarray, start: int = 0) -> list[ItemWrite]:
    out = []
    for i, v in enumerate(vectors, start):
        item = Item(id=f"r{i}", collection="c", title=f"R{i}", text=f"record {i}")
        out.append(ItemWrite(item=item, chunks=(Chunk(f"r{i}#0", f"r{i}", 0, item.text),), vectors=v[None, :]))
    return out


def _rows(keys: np.ndarray, vectors: np.ndarray) -> VectorRows:
    n = len(keys)
    return VectorRows(keys=keys.astype(np.int64), vectors=vectors, item_rowids=keys.astype(np.int64),
                      collections=["c"] * n, statuses=["published"] * n, superseded=np.zeros(n, dtype=bool),
                      tenants=[""] * n, date_ords=np.full(n, NO_DATE, dtype=np.int32))


def _top(vectors: np.ndarray, q: np.ndarray, k: int) -> list[str]:
    return [f"r{i}" for i in np.argsort(-(vectors @ q), kind="stable")[:k]]


def test_the_search_beam_grows_with_the_live_rows() -> None:
    # the measured points at 1M real-derived MiniLM vectors (connectivity 32 / expansion_add 200): ef 512 gave
    # recall@10 0.951, a 0.001 margin; ef 1024 gave 0.968
    assert search_ef(1_000_000) == 1024
    assert search_ef(200_001) == search_ef(256_000) == 256  # just over the default exact_vector_max
    assert search_ef(500_000) == 512
    assert search_ef(0) == search_ef(50_000) == search_ef(128_000) == 128  # never below the old beam
    assert search_ef(10**9) == vector_module._MAX_EF
    sizes = range(0, 5_000_000, 12_345)
    assert all(search_ef(a) <= search_ef(b) for a, b in zip(sizes, sizes[1:]))


def test_new_graphs_are_built_with_the_measured_knobs_and_keep_them_after_reopen(tmp_path: Path) -> None:
    """Before issue 15's change the store built connectivity 16 / expansion_add 64 graphs, which reached at most
    recall@10 0.88 at 1M whatever the beam."""
    rng = np.random.default_rng(2)
    store = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50)
    store.upsert(_writes(_clustered(rng, 200)))
    graph = store._vectors._hnsw
    assert (graph.connectivity, graph.expansion_add) == (32, 200)
    store.close()
    for read_only in (False, True):
        again = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50, read_only=read_only)
        try:
            assert (again._vectors._hnsw.connectivity, again._vectors._hnsw.expansion_add) == (32, 200)
        finally:
            again.close()


def test_the_beam_follows_the_row_count_through_writes_and_reopens(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # one beam slot per row, so a few hundred rows cross the steps that a million would cross in production
    monkeypatch.setattr(vector_module, "_ROWS_PER_EF", 1)
    rng = np.random.default_rng(3)
    vectors = _clustered(rng, 300)
    store = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50)
    try:
        store.upsert(_writes(vectors[:200]))
        assert store._vectors._hnsw.expansion_search == 256
        store.upsert(_writes(vectors[200:], 200))
        assert store._vectors._hnsw.expansion_search == 512
        store.delete([f"r{i}" for i in range(100)])  # 200 live rows: back down a step
        assert store._vectors._hnsw.expansion_search == 256
    finally:
        store.close()
    for read_only in (False, True):
        again = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50, read_only=read_only)
        try:
            assert again._vectors._hnsw.expansion_search == 256
        finally:
            again.close()


def test_a_beam_set_on_purpose_stays_until_the_size_crosses_a_step() -> None:
    """A bench sweeping ef sets the graph's beam itself; a write that leaves the default unchanged keeps it."""
    rng = np.random.default_rng(5)
    index = VectorIndex(DIM, 50, Path("unused"))
    index.append(_rows(np.arange(1, 201), _clustered(rng, 200)))
    index.ensure_graph()
    index._hnsw.expansion_search = 999
    index.append(_rows(np.arange(201, 211), _clustered(rng, 10)))
    assert index._hnsw.expansion_search == 999


def test_a_store_built_with_the_old_knobs_opens_and_searches_without_a_rebuild(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(6)
    vectors = _clustered(rng, 400)
    with monkeypatch.context() as old:
        old.setattr(vector_module, "_CONNECTIVITY", 16)
        old.setattr(vector_module, "_EXPANSION_ADD", 64)
        store = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50)
        store.upsert(_writes(vectors[:350]))
        assert store._vectors._hnsw.connectivity == 16
        store.close()
    builds: list[int] = []
    original = VectorIndex._build_hnsw
    monkeypatch.setattr(VectorIndex, "_build_hnsw", lambda self: (builds.append(self.live), original(self))[1])
    monkeypatch.setattr(vector_module, "_ROWS_PER_EF", 1)
    store = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50)
    try:
        graph = store._vectors._hnsw
        assert builds == [] and store._vectors.repair is None  # the old file is restored, not rebuilt
        assert graph.connectivity == 16  # usearch keeps it in the file
        assert (graph.expansion_search, graph.expansion_add) == (512, 200)  # re-applied on restore
        store.upsert(_writes(vectors[350:], 350))  # rows added to the old graph are found too
        queries = np.concatenate([vectors[::40], vectors[350::10]])
        recall = np.mean([len(set(item_ids(store, store.vector_search(q, SearchFilter(), 10).hits))
                                  & set(_top(vectors, q, 10))) / 10 for q in queries])
        assert recall >= 0.9  # a mean: a graph built on all cores differs run to run, one query may miss two
        assert item_ids(store, store.vector_search(vectors[390], SearchFilter(), 1).hits) == ["r390"]
    finally:
        store.close()


def test_hnsw_ef_setting_fixes_the_beam_at_any_size(tmp_path: Path) -> None:
    settings = load_settings(env={"GROUNDSEARCH_HNSW_EF": "300"})
    assert settings.retrieval.hnsw_ef == 300
    assert load_settings(env={}).retrieval.hnsw_ef is None
    rng = np.random.default_rng(7)
    store = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50, hnsw_ef=settings.retrieval.hnsw_ef)
    try:
        store.upsert(_writes(_clustered(rng, 200)))
        assert store._vectors._hnsw.expansion_search == 300
    finally:
        store.close()
    again = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50, hnsw_ef=300, read_only=True)
    try:
        assert again._vectors._hnsw.expansion_search == 300
    finally:
        again.close()


def test_status_and_collection_masks_equal_isin_for_any_codes() -> None:
    """The mask compares codes one by one instead of ``np.isin`` (which sorts every query); same rows either way."""
    from groundsearch.store.vectors import _in_codes

    rng = np.random.default_rng(9)
    values = rng.integers(-1, 20, 5_000).astype(np.int32)
    for codes in ([], [3], [-1, 0], [0, 1, 2], list(range(9)), list(range(-1, 20)), [25]):
        assert np.array_equal(_in_codes(values, codes), np.isin(values, codes)), codes
    statuses = values.astype(np.int8)
    assert np.array_equal(_in_codes(statuses, [1, 2]), np.isin(statuses, [1, 2]))
