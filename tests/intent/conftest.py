from __future__ import annotations

import json

import pytest

from groundsearch.models.fake import HashEmbedder
from groundsearch.settings import load_settings


def intent_json(**overrides) -> str:
    base = {
        "domains": [], "retrieval_pattern": "pipeline", "format": "default", "chart_subtype": None,
        "horizon_days": None, "comparison_targets": [], "topic_keywords": ["bm25"], "complexity": "simple",
        "confidence": 0.7,
    }
    return json.dumps({**base, **overrides})


@pytest.fixture
def settings(tmp_path):
    return load_settings(env={}, data_dir=str(tmp_path / "data"))


@pytest.fixture
def embedder():
    return HashEmbedder(dim=64)
