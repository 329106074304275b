"""Every LLM call's tokens and cost, counted against the request's one budget and reported per stage.

The model is the real OpenAI-compatible client over an ``httpx.MockTransport`` (mocked at the network edge
only), answering with fixed token usage so the arithmetic can be checked exactly.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import httpx
import pytest

from groundsearch.errors import LLMError
from groundsearch.models.base import ChatMessage
from groundsearch.models.llm import OpenAICompatLLM
from groundsearch.models.metering import Meter, metered
from groundsearch.settings import ModelPrice
from groundsearch.types import SearchRequest
from tests.api.live import make_engine, make_settings

PRICES = {"m-small": ModelPrice(prompt_per_mtok=1.0, completion_per_mtok=2.0)}
PER_CALL_USD = (100 * 1.0 + 20 * 2.0) / 1_000_000


def fake_llm(seen: list[dict]) -> OpenAICompatLLM:
    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        text = '{"score": 5}' if "response_format" in body else "The docs explain search [e1]."
        return httpx.Response(200, json={"model": "m-small", "usage": {"prompt_tokens": 100, "completion_tokens": 20},
                                         "choices": [{"message": {"content": text}, "finish_reason": "stop"}]})

    return OpenAICompatLLM("http://llm.test/v1", "m-small", dialect="openai", transport=httpx.MockTransport(handler))


def test_one_budget_across_calls_clamps_then_refuses() -> None:
    seen: list[dict] = []
    llm, meter = fake_llm(seen), Meter(total_tokens=150, prices=PRICES)
    ask = [ChatMessage("user", "hi")]
    with metered(meter, "narration"):
        llm.complete(ask, max_tokens=64)
    with metered(meter, "repair"):
        llm.complete(ask, max_tokens=64)  # 120 spent: only 30 left to ask for
        with pytest.raises(LLMError) as refused:
            llm.complete(ask, max_tokens=64)
    assert [b["max_tokens"] for b in seen] == [64, 30]  # the refused call never reached the endpoint
    assert refused.value.details["kind"] == "budget"
    usage = meter.usage()
    assert usage["stages"]["narration"] == {"calls": 1, "prompt_tokens": 100, "completion_tokens": 20,
                                            "cost_usd": pytest.approx(PER_CALL_USD)}
    assert usage["prompt_tokens"] == 200 and usage["completion_tokens"] == 40
    assert usage["cost_usd"] == pytest.approx(2 * PER_CALL_USD) and usage["unpriced_models"] == []


def test_unmetered_calls_and_unpriced_models() -> None:
    seen: list[dict] = []
    llm = fake_llm(seen)
    llm.complete([ChatMessage("user", "hi")], max_tokens=64)  # outside any request: nothing to charge
    meter = Meter(total_tokens=1000, prices={})
    with metered(meter, "chat"):
        llm.complete([ChatMessage("user", "hi")], max_tokens=64)
    assert meter.usage()["cost_usd"] == 0 and meter.usage()["unpriced_models"] == ["m-small"]


def test_search_reports_every_stage_in_diagnostics_and_telemetry(tmp_path: Path) -> None:
    from groundsearch.engine import Engine

    seen: list[dict] = []
    base = make_settings(tmp_path)
    settings = base.model_copy(update={
        "llm": base.llm.model_copy(update={"prices": PRICES, "request_token_budget": 4000}),
        "retrieval": base.retrieval.model_copy(update={"reranker": "llm", "rerank_depth": 3})})
    with make_engine(tmp_path, settings) as built:
        from groundsearch.models.rerank import LLMReranker

        llm = fake_llm(seen)
        engine = Engine(settings, built.store, built.embedder, llm=llm, reranker=LLMReranker(llm))
        r = engine.search(SearchRequest(query="how do I configure the embedder"))
    usage = r.diagnostics.usage
    assert usage is not None
    stages = usage["stages"]
    assert "narration" in stages and stages["rerank"]["calls"] == 3  # one grade per reranked passage
    assert "retrieve" not in stages  # the retriever names its step (rerank, rewrite) inside its block
    calls = sum(s["calls"] for s in stages.values())
    assert calls == len(seen) and usage["prompt_tokens"] == 100 * calls
    assert usage["cost_usd"] == pytest.approx(calls * PER_CALL_USD)
    (rec,) = [x for x in engine.recorder.store.requests(dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
              if x.id == r.diagnostics.request_id]
    assert (rec.prompt_tokens, rec.completion_tokens) == (100 * calls, 20 * calls)
    assert rec.cost_usd == pytest.approx(calls * PER_CALL_USD) and rec.model == "m-small"
    engine.recorder.close()


def test_a_step_inside_a_stage_names_itself() -> None:
    from groundsearch.models.metering import stage

    seen: list[dict] = []
    llm, meter = fake_llm(seen), Meter(total_tokens=1000, prices=PRICES)
    with stage("rewrite"):  # no request: nothing to charge, no error
        llm.complete([ChatMessage("user", "hi")], max_tokens=8)
    with metered(meter, "retrieve"):
        with stage("rewrite"):  # what the retriever does around HyDE
            llm.complete([ChatMessage("user", "hi")], max_tokens=8)
        llm.complete([ChatMessage("user", "hi")], max_tokens=8)
    assert {k: v["calls"] for k, v in meter.usage()["stages"].items()} == {"retrieve": 1, "rewrite": 1}
