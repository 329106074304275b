"""The pipeline with the real default embedder: what it embeds is what the vector leg finds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from groundsearch.ingest.ids import document_id, source_key
from groundsearch.ingest.pipeline import ingest_paths
from groundsearch.models.onnx import MiniLMEmbedder
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import SearchFilter


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=2)


def test_vector_leg_finds_the_section_a_question_is_about(tmp_path: Path, fixtures: Path, specs, minilm) -> None:
    store = SQLiteStore.open(tmp_path / "data", dim=384)
    try:
        report = ingest_paths([fixtures / "docs"], specs["docs"], store, minilm, batch_size=8)
        assert report.errors == () and report.added == 5
        guide_id = document_id("docs", source_key(fixtures / "docs" / "guide.md"))
        vectors = store.item_vectors(guide_id)
        assert vectors.dtype == np.float32 and vectors.shape[1] == 384
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)

        query = minilm.embed_queries(["how do I narrow results to a date range or tenant?"])[0]
        top, _ = store.vector_search(query, SearchFilter(), 3).hits[0]
        view = store.hydrate([top])[top]
        assert view.chunk.heading_path == ("Search Guide", "Querying", "Filters")

        query = minilm.embed_queries(["quarterly report on keyword query latency"])[0]
        top, _ = store.vector_search(query, SearchFilter(), 3).hits[0]
        assert store.hydrate([top])[top].item.title == "Quarterly Search Report"
    finally:
        store.close()
