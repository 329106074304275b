"""LLM narration with a real local model (llama.cpp's server over the pinned Qwen2.5 0.5B GGUF).

What is claimed: the pipeline's prose comes from the model (``mode == "llm"``) through the versioned
synthesis prompts, stays one short paragraph when tables carry the content, and every sentence the model
wrote is either verified against the evidence it cites or visibly marked — a small model may well
produce unverifiable sentences, and the claim is that none of them reaches the reader unmarked.
Skipped on a machine without ``scripts/setup_llm.sh``'s build; failed under CI, like the tier-3 tests.
"""

from __future__ import annotations

from functools import partial

import pytest

from groundsearch.answer.audit import UNVERIFIED_MARKER
from groundsearch.answer.pipeline import AnswerPipeline, fold
from groundsearch.engine import Engine
from groundsearch.models.llm import OpenAICompatLLM, load_prompt
from groundsearch.query.intent.cascade import IntentCascade
from groundsearch.types import SearchRequest
from tests.llm.conftest import gguf, llama_server  # noqa: F401  (session fixtures: the real server)

pytestmark = pytest.mark.slow


def test_local_llm_narrates_tables_and_every_sentence_is_checked(llama_server, demo_engine: Engine) -> None:  # noqa: F811
    llm = OpenAICompatLLM(llama_server.base_url, "local", timeout_s=120)
    pipeline = AnswerPipeline(demo_engine.settings, demo_engine.retriever,
                              IntentCascade(demo_engine.settings, demo_engine.embedder, None), llm=llm,
                              load_prompt=partial(load_prompt, version=demo_engine.settings.llm.prompts_version))
    response = fold(pipeline.run(SearchRequest(query="What's the latest AI trends for research and product "
                                                     "releases. share this in a table")))
    assert {r.collection for r in response.structured_results if r.kind == "table"} == {"releases", "papers"}
    assert response.prose.mode == "llm", response.diagnostics.degraded
    assert response.diagnostics.latency_ms["synthesize"] > 0
    assert 0 < len(response.prose.text.split()) <= 80 + len(UNVERIFIED_MARKER.split())
    ids = {r.id for r in response.results}
    for s in response.prose.sentences:
        assert set(s.citations) <= ids
        assert s.verified or s.text == UNVERIFIED_MARKER
