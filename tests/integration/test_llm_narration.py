"""LLM narration with a real local model (llama.cpp's server over the pinned Qwen2.5 0.5B GGUF).

What is claimed: a question's prose comes from the model (``mode == "llm"``) through the versioned synthesis
prompt; a table request's narration stays one short paragraph or is refused with a stated reason; and every
sentence the model wrote is either verified against the evidence it cites or visibly marked — a small model
may well produce unverifiable sentences, and the claim is that none of them reaches the reader unmarked.
Skipped on a machine without ``scripts/setup_llm.sh``'s build; failed under CI, like the tier-3 tests.
"""

from __future__ import annotations

from functools import partial

import pytest

from groundsearch.answer.audit import UNVERIFIED_MARKER
from groundsearch.orchestrate import AnswerPipeline, fold
from groundsearch.engine import Engine
from groundsearch.models.llm import OpenAICompatLLM, load_prompt
from groundsearch.query.intent.cascade import IntentCascade
from groundsearch.types import SearchRequest
from tests.llm.conftest import gguf, llama_server  # noqa: F401  (session fixtures: the real server)

pytestmark = pytest.mark.slow


def _pipeline(llama_server, demo_engine: Engine) -> AnswerPipeline:  # noqa: F811
    llm = OpenAICompatLLM(llama_server.base_url, "local", timeout_s=120)
    return AnswerPipeline(demo_engine.settings, demo_engine.retriever,
                          IntentCascade(demo_engine.settings, demo_engine.embedder, None), llm=llm,
                          load_prompt=partial(load_prompt, version=demo_engine.settings.llm.prompts_version))


def _every_sentence_checked(response) -> None:
    ids = {r.id for r in response.results}
    for s in response.prose.sentences:
        assert not s.text.startswith(("|", "#", "-")), s.text  # the model's own Markdown is never prose
        assert set(s.citations) <= ids
        assert s.verified or s.text == UNVERIFIED_MARKER


def test_local_llm_answers_a_question_in_checked_prose(llama_server, demo_engine: Engine) -> None:  # noqa: F811
    response = fold(_pipeline(llama_server, demo_engine).run(
        SearchRequest(query="How does groundsearch fuse keyword and vector results?")))
    assert response.prose.mode == "llm", response.diagnostics.degraded
    assert response.prose.sentences and response.diagnostics.latency_ms["synthesize"] > 0
    _every_sentence_checked(response)


def test_local_llm_narration_of_tables_is_checked_or_refused_with_a_reason(llama_server,  # noqa: F811
                                                                          demo_engine: Engine) -> None:
    """The pinned 0.5B coder model tends to answer "share this in a table" with a Markdown table of its own.
    That is not prose: the parser drops it, and with nothing left the answer falls back to the extractive
    introduction and says why. Either way no table debris and no unchecked sentence reaches the reader."""
    response = fold(_pipeline(llama_server, demo_engine).run(SearchRequest(
        query="What's the latest AI trends for research and product releases. share this in a table")))
    assert {r.collection for r in response.structured_results if r.kind == "table"} == {"releases", "papers"}
    assert response.diagnostics.latency_ms["synthesize"] > 0
    if response.prose.mode != "llm":
        assert response.prose.mode == "extractive"
        assert any(n.startswith("synthesis: LLM narration failed") for n in response.diagnostics.degraded)
    assert 0 < len(response.prose.text.split()) <= 80 + len(UNVERIFIED_MARKER.split())
    _every_sentence_checked(response)
