"""The gate threshold is calibrated on a store's data and stored with the embedder's id in its metadata.

The engine test runs on a real SQLite store with the hash embedder (a logic test: which threshold the
plan uses and where it comes from, not the quality of any threshold).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsearch.engine import Engine
from groundsearch.models.fake import HashEmbedder
from groundsearch.query.gate import CALIBRATED_THRESHOLDS, calibrate, gate_meta_key, parse_calibration, threshold_for
from groundsearch.settings import Settings
from groundsearch.types import CollectionSpec, SearchRequest

TOPICS = ["zebra grazing on savanna grass", "umbrella repair shop hours", "migration of birds in autumn",
          "zebra crossing near the school", "umbrella stand made of oak", "bird migration across the sea",
          "zebra stripes and camouflage", "oak trees in the park", "savanna wildlife at dusk", "repair of a bicycle"]
OFFTOPIC = ["quantum chromodynamics lattice", "tax return deadline", "sourdough starter feeding", "knit a scarf",
            "jazz chord voicings", "tile a bathroom floor", "mortgage refinancing", "chess opening theory",
            "volcano eruption forecast", "learn the cello"]


def test_calibrate_splits_the_two_tails_and_round_trips_through_json() -> None:
    cal = calibrate("m", [0.5 + i / 100 for i in range(20)], [0.1 + i / 100 for i in range(20)])
    assert cal.own_q05 == pytest.approx(0.5095) and cal.offtopic_q95 == pytest.approx(0.2805)
    assert cal.threshold == pytest.approx(0.395) and cal.separated
    assert parse_calibration(cal.to_json(), "m") == cal
    assert parse_calibration(cal.to_json(), "another-model") is None  # made for other vectors: ignored
    assert parse_calibration("{not json", "m") is None and parse_calibration(None, "m") is None
    assert not calibrate("m", [0.2] * 10, [0.3] * 10).separated
    with pytest.raises(ValueError):
        calibrate("m", [0.5] * 9, [0.1] * 10)


def test_configured_beats_stored_beats_the_table() -> None:
    assert threshold_for("all-MiniLM-L6-v2-int8", None) == CALIBRATED_THRESHOLDS["all-MiniLM-L6-v2"]
    assert threshold_for("all-MiniLM-L6-v2-int8", None, stored=0.41) == 0.41
    assert threshold_for("all-MiniLM-L6-v2-int8", 0.2, stored=0.41) == 0.2
    assert threshold_for("unknown", None) == 0.0


def test_calibrate_gate_stores_the_threshold_and_later_plans_use_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, text in enumerate(TOPICS):
        (docs / f"d{i}.md").write_text(f"# Note {i}\n\n{text}\n")
    settings = Settings(data_dir=tmp_path / "data", embedder="hash", collections=(CollectionSpec("docs", "documents"),))
    embedder = HashEmbedder(dim=256)
    with Engine.open(settings, embedder=embedder) as engine:
        assert engine.ingest([docs], "docs").errors == ()
        _, before = engine.answer_pipeline().plan(SearchRequest(query="zebra"))
        assert before.gate_threshold == 0.0  # the hash embedder has no entry in the table: gate off
        cal = engine.calibrate_gate(TOPICS, OFFTOPIC)
        assert cal.model_id == embedder.model_id and 0 < cal.threshold <= 1
        assert parse_calibration(engine.store.meta_get(gate_meta_key(embedder.model_id)), embedder.model_id) == cal
        _, after = engine.answer_pipeline().plan(SearchRequest(query="zebra"))
        assert after.gate_threshold == cal.threshold
        assert any("calibrated on this store's data" in r for r in after.reasons)
    with Engine.open(settings, embedder=embedder) as reopened:  # persisted, not a process-local setting
        _, plan = reopened.answer_pipeline().plan(SearchRequest(query="zebra"))
        assert plan.gate_threshold == cal.threshold


def test_a_store_that_cannot_read_its_metadata_plans_with_the_fallback_and_retries_later() -> None:
    from groundsearch.errors import StoreUnavailable
    from groundsearch.query.retrieve import Retriever

    class Flaky:
        down = True

        def meta_get(self, key: str) -> str | None:
            if self.down:
                raise StoreUnavailable("connection refused")
            return calibrate("hash", [0.6] * 10, [0.2] * 10).to_json()

    store = Flaky()
    embedder = HashEmbedder(dim=16)
    embedder.model_id = "hash"  # type: ignore[misc]
    r = Retriever(store, embedder, Settings().retrieval, ())  # type: ignore[arg-type]
    assert r.stored_gate_threshold() is None
    store.down = False
    assert r.stored_gate_threshold() == 0.4  # not cached while down
