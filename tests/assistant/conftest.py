"""An engine over the API fixture corpus (real SQLite, hash embedder) for the assistant's logic tests.

The relevance gate is off here (hash vectors have no calibrated cosine); the tests that need "nothing grounds"
turn it up themselves. Quality claims never come from these tests: they check the turn loop's rules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from groundsearch.engine import Engine
from tests.api.live import make_engine, make_settings


@pytest.fixture
def engine(tmp_path) -> Iterator[Engine]:
    settings = make_settings(tmp_path, retrieval={"gate_threshold": 0.0})
    with make_engine(tmp_path, settings) as e:
        yield e
