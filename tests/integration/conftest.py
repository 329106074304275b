"""The real demo corpus in a real SQLite store with the real MiniLM embedder, built once per session.

Ingests exactly what ``./run demo`` ingests: the repository's ``README.md`` and ``docs/`` as ``docs``, and
the generated ``demo/releases.jsonl`` / ``demo/papers.jsonl``. No LLM: synthesis is extractive.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import onnxruntime  # noqa: F401  -- must load before usearch: the reverse order segfaults (usearch 2.26.6 + ort 1.31.1)
import pytest

from groundsearch.engine import Engine
from groundsearch.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
DEMO_CONFIG = ROOT / "demo" / "groundsearch.toml"


def demo_settings(data_dir: Path) -> Settings:
    # env={}: an operator's GROQ_API_KEY or LLM URL must not turn these extractive tests into LLM tests
    return load_settings(DEMO_CONFIG, env={}, data_dir=data_dir)


@pytest.fixture(scope="session")
def demo_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    settings = demo_settings(tmp_path_factory.mktemp("demo") / "data")
    with Engine.open(settings) as engine:
        docs = [ROOT / "README.md"] + ([ROOT / "docs"] if (ROOT / "docs").is_dir() else [])
        for paths, collection in ((docs, "docs"), ([ROOT / "demo" / "releases.jsonl"], "releases"),
                                  ([ROOT / "demo" / "papers.jsonl"], "papers")):
            report = engine.ingest(paths, collection)
            assert not report.errors, report.errors
        yield engine
