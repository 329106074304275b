"""``stream()`` of the OpenAI-compatible client at the network edge (httpx MockTransport serving the
chat-completion chunk stream): content as it arrives, tool calls joined from fragments, usage, errors,
the fallback chain and the request budget."""

from __future__ import annotations

import json

import httpx
import pytest

from groundsearch.errors import LLMError
from groundsearch.models import metering
from groundsearch.models.base import ChatMessage, Completion
from groundsearch.models.llm import FallbackLLM, OpenAICompatLLM

MSGS = [ChatMessage("user", "hello there")]
TOOLS = [{"type": "function", "function": {"name": "handoff_to_specialist", "parameters": {}}}]


def sse(*chunks: dict, done: bool = True) -> bytes:
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks] + (["data: [DONE]\n\n"] if done else [])
    return "".join(lines).encode()


def client(body: bytes, status: int = 200, seen: list | None = None) -> OpenAICompatLLM:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(json.loads(request.content))
        if status != 200:
            return httpx.Response(status, text="overloaded")
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return OpenAICompatLLM("http://llm.test/v1", "m", dialect="llamacpp", transport=httpx.MockTransport(handler))


def delta(**d) -> dict:
    return {"model": "m", "choices": [{"index": 0, "delta": d, "finish_reason": None}]}


def test_content_arrives_in_pieces_then_the_whole_completion_with_usage() -> None:
    seen: list = []
    llm = client(sse(delta(role="assistant"), delta(content="Atlas "), delta(content="2.0 [1]."),
                     {"model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                     {"model": "m", "choices": [], "usage": {"prompt_tokens": 31, "completion_tokens": 4}}), seen=seen)
    *pieces, last = list(llm.stream(MSGS, max_tokens=50))
    assert pieces == ["Atlas ", "2.0 [1]."]
    assert last == Completion(text="Atlas 2.0 [1].", model="m", finish_reason="stop", prompt_tokens=31,
                              completion_tokens=4)
    assert seen[0]["stream"] is True and seen[0]["max_tokens"] == 50


def test_tool_call_fragments_are_joined_and_parsed_once_the_stream_ends() -> None:
    llm = client(sse(
        delta(tool_calls=[{"index": 0, "id": "c1", "function": {"name": "handoff_to_specialist", "arguments": ""}}]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": '{"target": "papers'}}]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": '-expert"}'}}]),
    ))
    *pieces, last = list(llm.stream(MSGS, max_tokens=50, tools=TOOLS))
    assert pieces == [] and last.tool_calls[0].name == "handoff_to_specialist"
    assert last.tool_calls[0].arguments == {"target": "papers-expert"}


def test_a_tool_call_written_as_text_is_read_as_a_call_like_complete_does() -> None:
    llm = client(sse(delta(content='<tool_call>{"name": "handoff_to_specialist", '),
                     delta(content='"arguments": {"target": "x"}}</tool_call>')))
    *_, last = list(llm.stream(MSGS, max_tokens=50, tools=TOOLS))
    assert last.text == "" and last.tool_calls[0].arguments == {"target": "x"}


def test_without_a_usage_chunk_the_budget_is_still_charged() -> None:
    llm = client(sse(delta(content="a"), delta(content="b"), delta(content="c")))
    meter = metering.Meter(1000)
    with metering.metered(meter, "chat"):
        *_, last = list(llm.stream(MSGS, max_tokens=50))
    assert last.completion_tokens == 3 and last.prompt_tokens == (len("hello there") + 3) // 4
    assert meter.usage()["stages"]["chat"]["completion_tokens"] == 3


def test_http_errors_and_garbage_are_llm_errors() -> None:
    with pytest.raises(LLMError) as err:
        list(client(b"", status=503).stream(MSGS, max_tokens=5))
    assert err.value.details["kind"] == "http" and "503" in err.value.message
    with pytest.raises(LLMError) as err:
        list(client(b"data: {not json\n\n").stream(MSGS, max_tokens=5))
    assert "not chat-completion chunks" in err.value.message


def test_the_chain_hands_over_before_the_first_piece_only() -> None:
    good = client(sse(delta(content="from the second")))
    chain = FallbackLLM([client(b"", status=500), good])
    *pieces, last = list(chain.stream(MSGS, max_tokens=5))
    assert pieces == ["from the second"] and last.text == "from the second"
    cut = client(sse(delta(content="half"), done=False) + b"data: {broken\n\n")
    with pytest.raises(LLMError):
        list(FallbackLLM([cut, good]).stream(MSGS, max_tokens=5))  # text was shown: no silent switch of model


def test_a_server_that_ignores_stream_and_answers_json_still_gives_the_completion() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"model": "m", "usage": {"prompt_tokens": 7, "completion_tokens": 3},
                                         "choices": [{"message": {"content": "Whole reply."}, "finish_reason": "stop"}]})

    llm = OpenAICompatLLM("http://llm.test/v1", "m", dialect="openai", transport=httpx.MockTransport(handler))
    meter = metering.Meter(total_tokens=100)
    with metering.metered(meter, "narration"):
        *pieces, last = list(llm.stream(MSGS, max_tokens=20))
    assert pieces == ["Whole reply."] and last.text == "Whole reply." and last.finish_reason == "stop"
    assert meter.usage()["prompt_tokens"] == 7 and meter.usage()["completion_tokens"] == 3
