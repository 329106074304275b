"""HyDE through the real retriever on a real SQLite store: a scripted LLM writes the hypothetical passage
and the hash embedder scores by shared words, so what moves is exactly what the passage names (a logic
test; the quality figure is measured with the local GGUF in bench-retrieval.md)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundsearch.engine import Engine
from groundsearch.models.fake import HashEmbedder, ScriptedLLM
from groundsearch.query.planner import PLAN_PROFILES, plan_retrieval
from groundsearch.query.retrieve import Retriever
from groundsearch.settings import Settings
from groundsearch.types import CollectionSpec, Intent, SearchRequest

TEXTS = ["zebra stripes and camouflage", "umbrella repair shop hours", "migration of birds in autumn",
         "oak trees in the park", "savanna wildlife at dusk"]
QUERY = "why are those animals patterned"  # shares no word with any document
SETTINGS = Settings(embedder="hash", collections=(CollectionSpec("docs", "documents"),))


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("hyde")
    docs = root / "docs"
    docs.mkdir()
    for i, text in enumerate(TEXTS):
        (docs / f"d{i}.md").write_text(f"# Note {i}\n\n{text}\n")
    with Engine.open(SETTINGS.model_copy(update={"data_dir": root / "data"}), embedder=HashEmbedder(dim=256)) as e:
        assert e.ingest([docs], "docs").errors == ()
        yield e


def plan(has_llm: bool):
    return plan_retrieval(Intent(), SearchRequest(query=QUERY, limit=3), SETTINGS, tenant=None,
                          today=dt.date(2026, 12, 1), profile=PLAN_PROFILES["zscore+hyde"], has_llm=has_llm)


def retriever(engine: Engine, llm: ScriptedLLM) -> Retriever:
    return Retriever(engine.store, engine.embedder, SETTINGS.retrieval, SETTINGS.collections, llm=llm)


def test_without_an_llm_the_planner_drops_hyde_and_says_why() -> None:
    p = plan(has_llm=False)
    assert p.rewrite == "none" and any("HyDE needs a configured LLM" in r for r in p.reasons)
    assert plan(has_llm=True).rewrite == "hyde"


def test_the_hypothetical_passage_moves_the_vector_leg_to_what_it_names(engine: Engine) -> None:
    llm = ScriptedLLM(["Zebra stripes work as camouflage."])
    evidence = retriever(engine, llm).retrieve(plan(has_llm=True))
    assert evidence.hits[0].chunk.text.strip().endswith("zebra stripes and camouflage")
    assert len(llm.calls) == 1 and llm.calls[0]["messages"][-1].content == QUERY
    assert "hyde.generate" in evidence.latency_ms
    first_pass = engine.retrieve(plan(has_llm=False))
    assert not first_pass.hits or not first_pass.hits[0].chunk.text.strip().endswith("zebra stripes and camouflage")


def test_a_failing_or_silent_llm_keeps_the_first_pass_and_says_so(engine: Engine) -> None:
    baseline = [h.chunk.id for h in engine.retrieve(plan(has_llm=False)).hits]
    for reply, note in ((TimeoutError("llm timed out"), "hyde: the LLM failed"), ("   ", "hyde: the LLM wrote nothing")):
        evidence = retriever(engine, ScriptedLLM([reply])).retrieve(plan(has_llm=True))
        assert [h.chunk.id for h in evidence.hits] == baseline
        assert any(n.startswith(note) for n in evidence.degraded)
