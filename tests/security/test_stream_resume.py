"""SSE reconnect and resume, attacked with another principal's ids over the real app.

The streams have no resume: a reconnect is a new request, and ``Last-Event-ID`` is not read. This probe pins that a
reconnect naming another key's conversation (and a ``Last-Event-ID`` as a resuming client sends it) replays
nothing of that conversation and starts the caller's own, on the chat stream and on the search stream. It fails
if a resume that trusted the id were added (an author's turn text in the stream, or ``turn`` past 1).
"""

from __future__ import annotations

from tests.api.sse import parse

from .conftest import Server, chat

SECRET = "the kestrel merger closes on friday"


def _stream(client, path: str, body: dict, **headers: str) -> list[tuple[str, dict]]:  # type: ignore[no-untyped-def]
    with client.stream("POST", path, json=body, headers={"Accept": "text/event-stream", **headers}) as r:
        assert r.status_code == 200, r.read()
        return list(parse(r.iter_lines()))


def test_attack_a_reconnect_with_another_keys_conversation_replays_nothing(server: Server) -> None:
    author = server.client(server.key("editor", "resume-t"))
    first = chat(author, SECRET, conversation_id="resume-mine")
    assert first["turn"] == 1
    for other in (server.client(server.key("viewer", "resume-t")), server.client(server.key("editor", "resume-u")),
                  server.client(server.key("admin", "", all_tenants=True))):
        events = _stream(other, "/api/chat?stream=true", {"message": "go on", "conversation_id": "resume-mine"},
                         **{"Last-Event-ID": "1"})
        assert SECRET not in str(events)
        complete = [data for name, data in events if name == "complete"]
        assert complete and complete[-1]["conversation_id"] == "resume-mine", events[-3:]
        assert complete[-1]["turn"] == 1, complete  # its own conversation, not the author's second turn
    assert [t["user"] for t in author.get("/api/chat/resume-mine").json()["turns"]] == [SECRET]


def test_attack_a_search_stream_reconnect_carries_nothing_of_another_request(server: Server) -> None:
    a = server.client(server.key("editor", "resume-a"))
    assert a.post("/api/items", files={"file": ("k.md", f"# Kestrel\n\n{SECRET}.\n".encode(), "text/markdown")}
                  ).status_code == 200
    rid = a.post("/api/search", json={"query": "kestrel merger"}).json()["diagnostics"]["request_id"]
    b = server.client(server.key("viewer", "resume-b"))
    events = _stream(b, "/api/search?stream=true", {"query": "kestrel merger"}, **{"Last-Event-ID": rid})
    assert [name for name, _ in events][-1] == "complete", events[-2:]
    assert SECRET not in str(events) and rid not in str(events)
    mine = _stream(a, "/api/search?stream=true", {"query": "kestrel merger"}, **{"Last-Event-ID": rid})
    assert SECRET in str(mine)  # the control: the author's own stream does carry it
