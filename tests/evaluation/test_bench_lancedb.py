"""The LanceDB side-by-side compares like with like: every embedded chunk of the store, its indexed text and
its stored vector, goes into the LanceDB table, and both sides answer every query. (Speed is not asserted:
the figures come from ``groundsearch bench --suite lancedb``.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from groundsearch.evaluation.bench import parse_suites
from groundsearch.evaluation.bench_lancedb import _stored_chunks, bench_lancedb
from tests.api.live import make_engine

pytest.importorskip("lancedb")


def test_the_table_gets_every_stored_chunk_and_both_sides_are_timed(tmp_path: Path) -> None:
    engine = make_engine(tmp_path)
    try:
        keys, texts, vectors = _stored_chunks(engine.store.data_dir, engine.store.dim)
        assert len(keys) == engine.store.count_chunks() > 0
        views = engine.store.hydrate(keys[:3])
        assert [t.split("\n", 1)[1] for t in texts[:3]] == [views[k].chunk.text for k in keys[:3]]
        np.testing.assert_array_equal(vectors[:1], engine.store.item_vectors(views[keys[0]].item.id)[:1])
        out = bench_lancedb(engine, ["atlas release", "rate limits"], rounds=2)
    finally:
        engine.close()
    assert out["chunks"] == len(keys)
    assert out["groundsearch"]["p50_ms"] > 0 and out["lancedb"]["p50_ms"] > 0


def test_the_suite_is_named_but_not_part_of_all() -> None:
    assert parse_suites("lancedb") == ("lancedb",)
    assert "lancedb" not in parse_suites("all")
