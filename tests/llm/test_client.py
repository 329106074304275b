"""The OpenAI-compatible client at the network edge (httpx MockTransport): dialects, errors, budget, prompts."""

from __future__ import annotations

import json

import httpx
import pytest

from groundsearch.errors import ConfigError, LLMError
from groundsearch.models.base import ChatMessage, Completion
from groundsearch.models.llm import (
    FallbackLLM,
    OpenAICompatLLM,
    TokenBudget,
    build_llm,
    llm_chain,
    load_prompt,
    models_of,
    response_format,
)
from groundsearch.settings import LLMSettings, load_settings

SCHEMA = {"type": "object", "title": "intent_v1", "properties": {}, "required": [], "additionalProperties": False}
MSGS = [ChatMessage("user", "hi")]


def server(owned_by="me", status=200, seen=None, reply="{}", finish="stop"):
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"object": "list", "data": [{"id": "m", "owned_by": owned_by}]})
        body = json.loads(request.content)
        if seen is not None:
            seen.append({"body": body, "headers": dict(request.headers)})
        if status != 200:
            return httpx.Response(status, text="boom")
        return httpx.Response(200, json={
            "model": body["model"],
            "choices": [{"message": {"role": "assistant", "content": reply}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5},
        })

    return httpx.MockTransport(handler)


def test_response_format_shapes_per_dialect():
    assert response_format("openai", SCHEMA, "intent_v1") == {
        "type": "json_schema", "json_schema": {"name": "intent_v1", "strict": True, "schema": SCHEMA}}
    assert response_format("llamacpp", SCHEMA) == {"type": "json_object", "schema": SCHEMA}


@pytest.mark.parametrize(("owner", "dialect"), [("me", "llamacpp"), ("openai", "openai"), ("system", "openai")])
def test_auto_dialect_from_models_listing(owner, dialect):
    seen = []
    llm = OpenAICompatLLM("http://x/v1", "m", transport=server(owner, seen=seen))
    done = llm.complete(MSGS, max_tokens=32, json_schema=SCHEMA)
    assert llm.dialect == dialect
    sent = seen[0]["body"]
    assert sent["response_format"]["type"] == ("json_object" if dialect == "llamacpp" else "json_schema")
    assert sent["max_tokens"] == 32 and sent["messages"] == [{"role": "user", "content": "hi"}]
    assert done == Completion(text="{}", model="m", finish_reason="stop", prompt_tokens=11, completion_tokens=5)


def test_explicit_dialect_skips_detection_and_sends_key():
    seen = []
    llm = OpenAICompatLLM("http://x/v1", "llama-3.1-8b-instant", api_key="sk-test", dialect="openai",
                          transport=server("me", seen=seen))
    llm.complete(MSGS, max_tokens=16, json_schema=SCHEMA)
    assert seen[0]["body"]["response_format"]["json_schema"]["strict"] is True
    assert seen[0]["headers"]["authorization"] == "Bearer sk-test"


def test_no_schema_sends_no_response_format():
    seen = []
    OpenAICompatLLM("http://x/v1", "m", transport=server(seen=seen)).complete(MSGS, max_tokens=8)
    assert "response_format" not in seen[0]["body"]


def _raise(exc):
    def handler(request):
        raise exc

    return httpx.MockTransport(handler)


@pytest.mark.parametrize(
    ("transport", "kind", "text"),
    [
        (server(status=500), "http", "HTTP 500"),
        (server(status=429), "http", "HTTP 429"),
        (_raise(httpx.ReadTimeout("slow")), "timeout", "timed out"),
        (_raise(httpx.ConnectError("refused")), "unreachable", "unreachable"),
    ],
)
def test_failures_are_llm_errors_with_kind(transport, kind, text):
    llm = OpenAICompatLLM("http://x/v1", "m", dialect="openai", transport=transport)
    with pytest.raises(LLMError) as info:
        llm.complete(MSGS, max_tokens=8)
    assert info.value.details["kind"] == kind and text in info.value.message


def test_really_unreachable_port_is_an_llm_error():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = OpenAICompatLLM(f"http://127.0.0.1:{port}/v1", "m", dialect="openai", timeout_s=2)
    with pytest.raises(LLMError) as info:
        llm.complete(MSGS, max_tokens=8)
    assert info.value.details["kind"] == "unreachable"


def test_token_budget_clamps_and_stops():
    budget = TokenBudget(100)
    assert budget.allow(512) == 100
    budget.charge(Completion("x", "m", "stop", prompt_tokens=60, completion_tokens=40))
    with pytest.raises(LLMError) as info:
        budget.allow(10)
    assert info.value.details["kind"] == "budget"


def test_fallback_llm_tries_in_order():
    bad = OpenAICompatLLM("http://x/v1", "a", dialect="openai", transport=server(status=503))
    good = OpenAICompatLLM("http://x/v1", "b", dialect="openai", transport=server(reply="ok"))
    chain = FallbackLLM([bad, good])
    assert chain.complete(MSGS, max_tokens=8).text == "ok"
    assert models_of(chain) == (bad, good) and models_of(good) == (good,)
    with pytest.raises(LLMError, match="every model"):
        FallbackLLM([bad]).complete(MSGS, max_tokens=8)


def test_chain_from_settings_and_groq_mapping():
    s = load_settings(env={"GROQ_API_KEY": "gsk-x"})
    assert s.llm.base_url.startswith("https://api.groq.com") and s.llm.enabled
    chain = llm_chain(s.llm.model_copy(update={"models": ("a", "b")}))
    assert [m.name for m in chain] == ["a", "b"]
    assert isinstance(build_llm(s.llm.model_copy(update={"models": ("a", "b")})), FallbackLLM)
    with pytest.raises(ConfigError, match="no LLM configured"):
        llm_chain(LLMSettings())


def test_missing_gguf_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="setup_llm.sh"):
        build_llm(LLMSettings(gguf_path=tmp_path / "none.gguf"))


def test_prompts_are_versioned_files():
    for name in ("intent", "synthesis_default", "synthesis_tables"):
        assert len(load_prompt(name, "v1")) > 100
    with pytest.raises(ConfigError, match="prompts_version"):
        load_prompt("intent", "v999")
    with pytest.raises(ConfigError):
        load_prompt("../../etc/passwd", "v1")
