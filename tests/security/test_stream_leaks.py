"""What a token-streamed chat shows before the audit settles it: never a tool call the model writes as text.

The stream forwards the model's text as ``token`` events while it writes, holding back whatever may still turn
out to be a tool call (``assistant/streaming.visible``). The tool-call reader (``models/tool_calls``) accepts more
shapes than the hold-back knew: a bare fence around a call. Whatever the reader takes as a call must never have
been shown to the reader of the stream — its arguments are the model's internal work (a rationale it gives
for a handoff, the question it proposes), not the reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest

from groundsearch.models.llm import OpenAICompatLLM

from .conftest import Server, backend_server, upload

CALL = {"name": "ask_discovery_question", "arguments": {"signal": "product", "question": "QZX which operator runs it?"}}


@pytest.fixture(scope="module")
def streaming(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(None, tmp_path_factory.mktemp("stream-leaks")) as server:
        editor = server.client(server.key("editor", "stream-t"))
        assert upload(editor, "ferry.md", "# Ferry timetable\n\nThe Harwich ferry leaves at 09:40 daily.\n"
                      ).status_code == 200
        yield server


def endpoint(replies: list[str]) -> OpenAICompatLLM:
    """The real OpenAI-compatible client (its stream parser and tool-call codec), over a transport that answers
    each chat request with the next scripted reply as SSE content deltas, a word at a time — how llama.cpp's
    server sends a tool call the model wrote as text."""
    def handler(request: httpx.Request) -> httpx.Response:
        text = replies.pop(0) if len(replies) > 1 else replies[0]
        chunks = [{"model": "m", "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                  for piece in re.findall(r"\S+\s*|\s+", text)]
        body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return httpx.Response(200, content=body.encode(), headers={"content-type": "text/event-stream"})

    return OpenAICompatLLM("http://llm.test/v1", "m", dialect="llamacpp", transport=httpx.MockTransport(handler))


def _events(server: Server, wrapped: str) -> list[tuple[str, dict]]:
    server.engine.llm = endpoint([wrapped, "The Harwich ferry leaves at 09:40 daily [1]."])
    viewer = server.client(server.key("viewer", "stream-t"))
    with viewer.stream("POST", "/api/chat", params={"stream": "true"},
                       json={"message": "when does the Harwich ferry leave?"}) as r:
        assert r.status_code == 200
        body = "".join(r.iter_text())
    out, name = [], None
    for line in body.splitlines():
        if line.startswith("event:"):
            name = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and name:
            out.append((name, json.loads(line.split(":", 1)[1])))
    return out


@pytest.mark.parametrize("wrapped", [
    "```\n" + json.dumps(CALL) + "\n```",
    "```json\n" + json.dumps(CALL) + "\n```",
    json.dumps(CALL),
    "<tool_call>" + json.dumps(CALL) + "</tool_call>",
], ids=["bare-fence", "json-fence", "bare-object", "hermes-tag"])
def test_attack_a_tool_call_written_as_text_never_streams_as_tokens(streaming: Server, wrapped: str) -> None:
    events = _events(streaming, wrapped)
    shown = "".join(e["text"] for n, e in events if n == "token")
    assert [n for n, _ in events][-1] == "complete", events[-3:]
    reply = next(e for n, e in events if n == "reply")
    assert any(t["name"] == CALL["name"] and t["by"] == "model" for t in reply["tools"]), reply["tools"]  # a call
    assert CALL["name"] not in shown and '"arguments"' not in shown and "QZX" not in shown, shown
