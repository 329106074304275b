"""POST /api/chat, GET/DELETE /api/chat/{id} through the real app over HTTP (offline assistant: no LLM)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore

from .conftest import fresh
from .live import make_engine, make_settings, serve
from .sse import parse


def test_turns_continue_persist_and_delete(client: httpx.Client) -> None:
    first = client.post("/api/chat", json={"message": "How do I ingest JSONL records?"})
    assert first.status_code == 200, first.text
    body = first.json()
    cid = body["conversation_id"]
    assert body["turn"] == 1 and body["reply"] and body["mode"] in ("offline", "fallback")
    assert set(body["dossier"]) >= {"retrieval_entities", "qualification_signals", "sources", "canonical_match",
                                    "suggested_discovery_question", "supported_entities", "source_urls"}
    assert body["tools"][0]["name"] == "prepare_dossier"
    second = client.post("/api/chat", json={"message": "We have 2 million documents", "conversation_id": cid})
    assert second.status_code == 200 and second.json()["turn"] == 2
    assert {"signal": "scale", "value": "2 million documents", "turn": 2} in second.json()["dossier"]["qualification_signals"]
    stored = client.get(f"/api/chat/{cid}")
    assert stored.status_code == 200
    assert [t["user"] for t in stored.json()["turns"]] == ["How do I ingest JSONL records?", "We have 2 million documents"]
    assert stored.json()["state"]["signals"][0]["signal"] == "scale"
    assert client.delete(f"/api/chat/{cid}").status_code == 204
    assert client.get(f"/api/chat/{cid}").status_code == 404
    assert client.delete(f"/api/chat/{cid}").status_code == 404


def test_stream_has_search_stages_then_chat_events(client: httpx.Client) -> None:
    with client.stream("POST", "/api/chat?stream=true", json={"message": "release notes for search tools"}) as r:
        assert r.status_code == 200
        names = [name for name, _ in parse(r.iter_lines())]
    assert names[0] == "intent" and "results" in names
    assert names.index("results") < names.index("dossier") < names.index("audit") < names.index("reply")
    assert names[-1] == "complete"


def test_bad_input_is_a_clear_400(client: httpx.Client) -> None:
    assert client.post("/api/chat", json={"message": "   "}).status_code in (400, 422)
    r = client.post("/api/chat", json={"message": "hi", "conversation_id": "../../etc"})
    assert r.status_code in (400, 422)
    r = client.get("/api/chat/" + "x" * 65)
    assert r.status_code == 400 and "conversation_id" in r.text
    r = client.post("/api/chat", json={"message": "hi", "assistant": "nobody"})
    assert r.status_code == 400 and "unknown assistant" in r.text


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("chat-tenants")
    engine = fresh(tmp, local_mode=False, search_per_minute=1000, preview_per_minute=1000)
    keys = KeyStore(tmp / "keys.json")
    made = {"a": keys.create("viewer", tenant="acme")[1], "b": keys.create("viewer", tenant="globex")[1]}
    with engine, serve(create_app(engine, keys=keys)) as url:
        yield url, made


def test_attack_another_tenants_conversation_is_404(tenants: tuple[str, dict[str, str]]) -> None:
    """Tenant B knows tenant A's conversation id: it can neither read, delete nor continue it."""
    url, keys = tenants
    a, b = ({"Authorization": f"Bearer {keys[k]}"} for k in ("a", "b"))
    with httpx.Client(base_url=url, timeout=60) as c:
        assert c.post("/api/chat", json={"message": "hi"}).status_code == 401  # no key, no chat
        made = c.post("/api/chat", headers=a, json={"message": "I'm a research lead with a budget of $9000",
                                                    "conversation_id": "acme-secret"})
        assert made.status_code == 200, made.text
        assert c.get("/api/chat/acme-secret", headers=b).status_code == 404
        assert c.delete("/api/chat/acme-secret", headers=b).status_code == 404
        hijack = c.post("/api/chat", headers=b, json={"message": "what did we say?", "conversation_id": "acme-secret"})
        assert hijack.status_code == 200
        assert hijack.json()["turn"] == 1  # a conversation of B's own: nothing of A's carried over
        assert hijack.json()["dossier"]["qualification_signals"] == []
        own = c.get("/api/chat/acme-secret", headers=a).json()
        assert [t["user"] for t in own["turns"]] == ["I'm a research lead with a budget of $9000"]
        assert {s["signal"] for s in own["state"]["signals"]} == {"role", "budget"}


GROUNDED = "Atlas 2.0 added hybrid vector search [1]."
INVENTED = "Globex Corporation cut its search latency by 73% with it [1]."
WORD_DELAY = 0.15  # the scripted model's pace: 17 words take ~2.5 s to write


@pytest.fixture(scope="module")
def writer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app over HTTP with a scripted model that streams word by word (logic, not a quality claim)."""
    from groundsearch.models.base import ChatMessage, Completion
    from groundsearch.models.fake import ScriptedLLM

    def model(messages: list[ChatMessage]) -> Completion:
        if messages[-1].content.startswith("This sentence of your reply could not be verified"):
            return Completion(text="Globex Corporation saw 73% faster search.", model="scripted", finish_reason="stop")
        return Completion(text=GROUNDED + "\n\n" + INVENTED, model="scripted", finish_reason="stop")

    tmp = tmp_path_factory.mktemp("chat-stream")
    settings = make_settings(tmp, retrieval={"gate_threshold": 0.0})
    with make_engine(tmp, settings) as engine:
        engine.llm = ScriptedLLM(model, token_delay=WORD_DELAY)
        with serve(create_app(engine)) as url:
            yield url


def test_the_reply_streams_over_http_token_by_token_and_settles_per_paragraph(writer: str) -> None:
    arrivals: list[tuple[float, str, dict]] = []
    with httpx.Client(base_url=writer, timeout=120) as c, \
            c.stream("POST", "/api/chat?stream=true", json={"message": "What did Atlas 2.0 add?"}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        for name, data in parse(r.iter_lines()):
            arrivals.append((time.perf_counter(), name, data))
    names = [n for _, n, _ in arrivals]
    tokens = [(t, d["text"]) for t, n, d in arrivals if n == "token"]
    assert "".join(text for _, text in tokens) == GROUNDED + "\n\n" + INVENTED
    # delivered as written, not buffered until the end: the words reach the client over the whole ~2.5 s
    assert tokens[-1][0] - tokens[0][0] > 10 * WORD_DELAY
    audits = [d for _, n, d in arrivals if n == "audit"]
    assert [(a["paragraph"], a["replaced"]) for a in audits] == [(0, False), (1, True)]
    p0 = names.index("audit")
    assert any(n == "token" for n in names[p0:]), "paragraph 0 was settled only after the whole reply"
    reply = next(d for _, n, d in arrivals if n == "reply")
    assert reply["text"] == GROUNDED + "\n\n[could not verify this claim against the provided sources]"
    assert reply["audit"]["marked"] == 1 and reply["audit"]["rerolls"] == 2
    complete = arrivals[-1][2]
    assert names[-1] == "complete" and complete["first_token_ms"] < complete["total_latency_ms"]


def test_the_json_answer_is_the_fold_of_the_streamed_turn(writer: str) -> None:
    with httpx.Client(base_url=writer, timeout=120) as c:
        body = c.post("/api/chat", json={"message": "What did Atlas 2.0 add?"}).json()
    assert body["mode"] == "llm" and body["audit"]["marked"] == 1 and body["audit"]["paragraphs"] == 2
    assert body["reply"].startswith(GROUNDED) and "Globex" not in body["reply"]
