"""The orchestrator on a real SQLite store (hash embeddings: this tests logic, not ranking quality).

The classifier here is a stand-in that returns a fixed intent, so each branch of the pipeline can be
driven directly; the real cascade is exercised by ``tests/integration``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from groundsearch.orchestrate import NOTHING_RELEVANT, AnswerPipeline, fold
from groundsearch.engine import Engine
from groundsearch.errors import EmbeddingFailed, InvalidFilter, InvalidQuery, StoreUnavailable
from groundsearch.models.fake import HashEmbedder, ScriptedLLM
from groundsearch.query.retrieve import Retriever
from groundsearch.settings import Settings
from groundsearch.types import Hints, Intent, SearchRequest

from .helpers import DOCS, PAPERS, RELEASES

TODAY = dt.date(2026, 11, 29)


@dataclasses.dataclass
class Fixed:
    """Stand-in for the intent cascade: always the same intent (or raises ``error``)."""

    intent: Intent
    error: BaseException | None = None
    calls: int = 0

    def classify(self, query: str, hints: Hints | None, **_: Any) -> Any:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return type("C", (), {"intent": self.intent, "cache_hit": False, "model": None,
                              "latency_ms": {"rules": 0.1}, "degraded": ()})()


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("kb")
    releases = [
        {"id": "r1", "date": "2026-10", "product": "ragkit", "version": "1.2.0", "summary": "RAG toolkit for LLM agents",
         "url": "https://pypi.org/project/ragkit/1.2.0/"},
        {"id": "r2", "date": "2026-11", "product": "agentx", "version": "0.9.1",
         "summary": "Agents with MCP tools and LLM routing", "url": "https://pypi.org/project/agentx/0.9.1/"},
        {"id": "r3", "date": "2026-09", "product": "vecdb", "version": "3.0.0",
         "summary": "Vector database with HNSW and RAG support", "url": "https://pypi.org/project/vecdb/3.0.0/"},
    ]
    papers = [
        {"id": "p1", "date": "2025-03", "title": "Dense Retrieval for RAG with LLM Agents", "authors": ["Ada Lovelace"],
         "venue": "ICLR 2025", "url": "https://arxiv.org/abs/2503.00001"},
        {"id": "p2", "date": "2025-05", "title": "Scaling LLM Agents with HNSW Memory", "authors": ["Alan Turing"],
         "venue": "arXiv", "url": "https://arxiv.org/abs/2505.00002"},
    ]
    (root / "releases.jsonl").write_text("\n".join(json.dumps(r) for r in releases))
    (root / "papers.jsonl").write_text("\n".join(json.dumps(p) for p in papers))
    (root / "guide.md").write_text("# Guide\n\n## Install\n\nInstall groundsearch with pip. The RAG pipeline uses "
                                   "LLM Agents and HNSW indexes.\n\n## Search\n\nHybrid search fuses BM25 and vectors "
                                   "with Reciprocal Rank Fusion for RAG.\n")
    settings = Settings(data_dir=root / "data", embedder="hash", collections=(DOCS, RELEASES, PAPERS),
                        domains={"releases": ("releases",), "papers": ("papers",), "docs": ("docs",)})
    with Engine.open(settings, embedder=HashEmbedder()) as e:
        e.ingest([root / "guide.md"], "docs")
        e.ingest([root / "releases.jsonl"], "releases")
        e.ingest([root / "papers.jsonl"], "papers")
        yield e


def pipeline(engine: Engine, intent: Intent, **kw: Any) -> AnswerPipeline:
    return AnswerPipeline(engine.settings, engine.retriever, kw.pop("classifier", Fixed(intent)),
                          today=lambda: TODAY, **kw)


def events(p: AnswerPipeline, query: str, **request: Any) -> list[Any]:
    return list(p.run(SearchRequest(query=query, **request)))


def test_events_in_stage_order_and_fold(engine: Engine) -> None:
    intent = Intent(domains=("releases", "papers"), format="table", topic_keywords=("rag",))
    evs = events(pipeline(engine, intent), "RAG agents releases and papers in a table")
    names = [e.name for e in evs]
    assert names == ["intent", "plan", "keyword", "vector", "table", "table", "results", "prose", "complete"]
    response = fold(evs)
    assert response.intent == intent
    assert {t.collection for t in response.structured_results} == {"releases", "papers"}
    assert {r.collection for r in response.results} == {"releases", "papers"}
    d = response.diagnostics
    assert d.plan["pattern"] == "agentic" and d.latency_ms["total"] > 0
    assert {"classify", "plan", "retrieve", "normalize", "synthesize", "audit"} <= set(d.latency_ms)
    assert evs[-1].data["total_latency_ms"] == d.latency_ms["total"]
    assert all(s.verified for s in response.prose.sentences) and response.prose.sentences


def test_engine_search_is_the_fold_of_engine_stream(engine: Engine) -> None:
    request = SearchRequest(query="hybrid search BM25", collections=("docs",))
    a, b = engine.search(request), fold(engine.stream(request))
    strip = lambda r: r.model_copy(update={"diagnostics": r.diagnostics.model_copy(update={"latency_ms": {},  # noqa: E731
                                                                                          "cache_hit": False,
                                                                                          "request_id": None,
                                                                                          "degraded": ()})})
    assert strip(a) == strip(b) and a.results


def test_horizon_that_empties_a_collection_is_relaxed_and_said(engine: Engine) -> None:
    intent = Intent(domains=("releases", "papers"), horizon_days=90, format="table")
    response = fold(events(pipeline(engine, intent), "latest RAG agents"))
    assert response.diagnostics.plan["filter"]["date_from"] == "2026-08-31"
    assert {t.collection for t in response.structured_results} == {"releases", "papers"}
    assert any("nothing in papers since 2026-08-31" in n for n in response.diagnostics.degraded)
    assert [r.collection for r in response.results][:2] in (["releases", "papers"], ["papers", "releases"])


def test_gate_reformulates_once_then_downgrades(engine: Engine) -> None:
    intent = Intent(topic_keywords=("zebra", "umbrella"), format="table")
    response = fold(events(pipeline(engine, intent), "completely unrelated zebra umbrella", threshold=0.99))
    kinds = [r.kind for r in response.structured_results]
    assert kinds[0] == "low-confidence" and "table" in kinds[1:]
    low = response.structured_results[0]
    assert low.threshold == 0.99 and low.best_score < 0.99
    assert "retrieve.gate.reformulate" in response.diagnostics.latency_ms
    assert response.results, "the broader results are still shown"
    assert response.prose.text == NOTHING_RELEVANT  # not a quote of irrelevant evidence posing as an answer


def test_classifier_failure_degrades_to_hints(engine: Engine) -> None:
    p = pipeline(engine, Intent(), classifier=Fixed(Intent(), error=RuntimeError("prototype file unreadable")))
    response = fold(events(p, "RAG toolkit", hints=Hints(domain="releases", format="table")))
    assert response.intent.tier == "hint" and response.intent.domains == ("releases",)
    assert [t.collection for t in response.structured_results] == ["releases"]
    assert any("intent cascade failed" in n for n in response.diagnostics.degraded)


def test_bad_input_propagates_before_any_event(engine: Engine) -> None:
    p = pipeline(engine, Intent())
    with pytest.raises(InvalidFilter):
        next(p.run(SearchRequest(query="x", filters={"colour": "red"})))
    with pytest.raises(InvalidQuery):
        next(pipeline(engine, Intent(), classifier=Fixed(Intent(), error=InvalidQuery("bad"))).run(
            SearchRequest(query="x")))


def test_failed_embedder_propagates(engine: Engine) -> None:
    class Broken(HashEmbedder):
        def embed_queries(self, texts: Any) -> np.ndarray:
            raise EmbeddingFailed("onnxruntime session failed")

    broken = Retriever(engine.store, Broken(), engine.settings.retrieval, engine.settings.collections)
    p = AnswerPipeline(engine.settings, broken, Fixed(Intent()), today=lambda: TODAY)
    with pytest.raises(EmbeddingFailed):
        list(p.run(SearchRequest(query="RAG")))
    broken.close()


def test_store_failure_degrades_instead_of_failing(engine: Engine) -> None:
    class DownRetriever:
        embedder = HashEmbedder()
        llm = None
        judge = None  # no multilingual gate judge configured

        def stored_gate_threshold(self) -> float | None:
            return None

        def retrieve(self, plan: Any) -> Any:
            raise StoreUnavailable("connection refused")

    p = AnswerPipeline(engine.settings, DownRetriever(), Fixed(Intent()), today=lambda: TODAY)  # type: ignore[arg-type]
    response = fold(list(p.run(SearchRequest(query="RAG"))))
    assert response.results == () and any("retrieval failed" in n for n in response.diagnostics.degraded)


def test_llm_narration_and_its_failure(engine: Engine) -> None:
    intent = Intent(domains=("docs",))
    ok = ScriptedLLM(lambda messages: "Install groundsearch with pip [e1].")
    response = fold(events(pipeline(engine, intent, llm=ok, load_prompt=lambda n: n), "how to install"))
    assert response.prose.mode == "llm" and response.prose.sentences[0].verified
    down = ScriptedLLM([TimeoutError("read timed out")])
    response = fold(events(pipeline(engine, intent, llm=down, load_prompt=lambda n: n), "how to install"))
    assert response.prose.mode == "extractive"
    assert any("LLM narration failed" in n for n in response.diagnostics.degraded)


def test_a_narrated_sentence_the_audit_rejects_is_restated_once_then_checked_again(engine: Engine) -> None:
    intent = Intent(domains=("docs",))

    def script(messages) -> str:
        if messages[0].content == "repair_sentence":
            assert "Windows" in messages[1].content  # the rejected sentence travels with its problem
            return "Install groundsearch with pip [e1]."
        return "Install groundsearch with pip on Windows 11 [e1]."  # names and numbers the guide lacks

    llm = ScriptedLLM(script)
    response = fold(events(pipeline(engine, intent, llm=llm, load_prompt=lambda n: n), "how to install"))
    assert response.prose.mode == "llm"
    assert [s.text for s in response.prose.sentences] == ["Install groundsearch with pip."]
    assert response.prose.sentences[0].verified
    assert [c["messages"][0].content for c in llm.calls] == ["synthesis_default", "repair_sentence"]
    notes = response.diagnostics.degraded
    assert any(n.startswith("audit: sentence 1") for n in notes) and any("restated 1 of 1" in n for n in notes)


def test_graph_leg_runs_for_comparisons(engine: Engine) -> None:
    intent = Intent(comparison_targets=("HNSW", "RAG"), complexity="complex")
    response = fold(events(pipeline(engine, intent), "HNSW vs RAG"))
    plan = response.diagnostics.plan
    assert "graph" in plan["legs"] and plan["graph_seeds"][:2] == ["hnsw", "rag"]
    assert any("graph" in r.legs for r in response.results)
    assert plan["rewrite"] == "multi_query" and "retrieve.rewrite" in response.diagnostics.latency_ms


def test_chart_and_unsupported_events(engine: Engine) -> None:
    intent = Intent(format="chart", chart_subtype="tornado")
    names = [e.name for e in events(pipeline(engine, intent), "RAG agents trends")]
    assert names.index("unsupported-format") < names.index("chart") < names.index("results")


def test_stopping_the_stream_stops_the_stages(engine: Engine) -> None:
    fixed = Fixed(Intent())
    p = pipeline(engine, Intent(), classifier=fixed)
    stream = p.run(SearchRequest(query="RAG"))
    assert next(stream).name == "intent"
    stream.close()
    assert fixed.calls == 1


def test_clear_caches_drops_query_vectors_and_the_intent_cache(engine: Engine) -> None:
    engine.search(SearchRequest(query="RAG toolkit"))
    cleared = engine.clear_caches()
    assert cleared["query_vectors"] >= 1 and cleared["intent_cache"] == 1
    assert engine.clear_caches() == {"query_vectors": 0, "intent_cache": 0}
    assert engine.search(SearchRequest(query="RAG toolkit")).diagnostics.cache_hit is False


@pytest.mark.parametrize(("intent", "requested"), [
    (Intent(domains=("releases",), format="table"), "table"),
    (Intent(domains=("releases",), format="chart", chart_subtype="donut", chart_requested="gráfico de anillo"),
     "gráfico de anillo"),
])
def test_a_shape_whose_building_fails_is_still_named(engine: Engine, monkeypatch: pytest.MonkeyPatch,
                                                     intent: Intent, requested: str) -> None:
    """normalize raising left a table request with no structured result at all: a silent drop (issue 10)."""
    import groundsearch.orchestrate as orchestrate

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("venue")

    monkeypatch.setattr(orchestrate, "normalize", broken)
    response = fold(events(pipeline(engine, intent), "RAG releases"))
    (notice,) = response.structured_results
    assert notice.kind == "unsupported-format" and requested in notice.requested and notice.substitute == "none"
    assert "KeyError" in notice.reason and response.results
    assert any(n.startswith("normalize: failed (KeyError") for n in response.diagnostics.degraded)
    plain = fold(events(pipeline(engine, Intent(domains=("releases",))), "RAG releases"))
    assert plain.structured_results == ()  # a plain question asked no shape, so none is named
