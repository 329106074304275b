"""Engine verbs over a real SQLite store (hash embedder: logic, not quality)."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsearch.engine import Engine
from groundsearch.errors import ConfigError, NotFound
from groundsearch.models.fake import HashEmbedder
from groundsearch.settings import load_settings

LONG = "\n\n".join(
    f"## Part {i}\n\n" + " ".join(f"topic{i} detail{j} words" for j in range(60)) for i in range(6)
)


@pytest.fixture
def engine(tmp_path: Path):
    settings = load_settings(env={}, data_dir=tmp_path / "data", embedder="hash")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "original.md").write_text("# Guide\n\n" + LONG)
    (docs / "copy.md").write_text("# Guide\n\n" + LONG)
    (docs / "other.md").write_text("# Other\n\nCompletely different subject about gardening and tomatoes.")
    with Engine.open(settings, embedder=HashEmbedder(dim=384)) as engine:
        report = engine.ingest([docs], "docs")
        assert report.errors == () and report.added == 3
        yield engine


def ids_by_name(engine: Engine) -> dict[str, str]:
    from groundsearch.types import SearchRequest

    _, plan = engine.answer_pipeline().plan(SearchRequest(query="guide gardening topic0", limit=50))
    hits = engine.retrieve(plan).hits
    return {Path(h.item.source or "").name: h.item.id for h in hits}


def test_ids_do_not_reveal_server_paths(engine: Engine) -> None:
    ids = ids_by_name(engine)
    assert set(ids) == {"original.md", "copy.md", "other.md"}
    for item_id in ids.values():
        assert "/" not in item_id and item_id.startswith("docs:")


def test_similar_flags_an_exact_copy_of_a_multi_chunk_document(engine: Engine) -> None:
    ids = ids_by_name(engine)
    assert len(engine.store.item_chunks(ids["original.md"])) > 2
    hits = engine.similar(ids["original.md"], limit=5)
    top = hits[0]
    assert top.item.id == ids["copy.md"] and top.cosine == pytest.approx(1.0, abs=1e-4) and top.likely_duplicate
    other = next(h for h in hits if h.item.id == ids["other.md"])
    assert not other.likely_duplicate and other.cosine < 0.95
    assert [i.id for i in engine.duplicates(ids["original.md"])] == [ids["copy.md"]]
    with pytest.raises(NotFound):
        engine.similar("docs:missing")


def test_engine_refuses_an_index_built_by_another_embedder(tmp_path: Path) -> None:
    settings = load_settings(env={}, data_dir=tmp_path / "data", embedder="hash")
    Engine.open(settings, embedder=HashEmbedder(dim=32)).close()
    other = HashEmbedder(dim=32)
    other.model_id = "another-model"
    with pytest.raises(ConfigError, match="built with embedder 'hash-32'"):
        Engine.open(settings, embedder=other)
