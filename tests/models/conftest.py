"""Real models, loaded once per test session (loading costs ~1 s and hashing the files ~0.2 s)."""

from __future__ import annotations

import pytest

from groundsearch.models.e5 import E5Embedder
from groundsearch.models.onnx import MiniLMEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=2, batch_size=4)


@pytest.fixture(scope="session")
def e5() -> E5Embedder:
    return E5Embedder(threads=2, batch_size=4)
