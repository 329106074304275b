"""Attacks on the chat surface and the records a caller keeps, over the real app (HTTP, real keys), on SQLite and
on the real Postgres the suite starts.

A conversation keeps what its retrieval saw — the dossier's source text, the signals, the replies. Whoever may
read or continue a conversation therefore reads what its author could search. These tests try to reach another
scope's conversation with a valid key.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


from .conftest import Server, backend_server, chat, upload


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The security server on each backend: on Postgres the items, the conversations and the telemetry all
    live in the real Postgres the suite starts."""
    with backend_server(request, tmp_path_factory.mktemp(f"scope-{request.param}")) as server:
        yield server


def test_attack_the_default_tenant_cannot_read_or_continue_an_operator_conversation(server: Server) -> None:
    """The operator's chat searched every tenant, so its dossier holds tenant A's text. A viewer of the default
    tenant ``''`` who learns the conversation id must get the same 404 as for an unknown id — before the fix the
    conversation was stored under ``''`` (the operator's *write* tenant) and this viewer read it whole."""
    editor_a = server.client(server.key("editor", "chat-op-a"))
    assert upload(editor_a, "merger.md", "# Zephyrine merger\n\nThe zephyrine merger closes on the 9th; price "
                                         "4.2 billion.\n").status_code == 200
    operator = server.client(server.key("admin", "", all_tenants=True))
    made = chat(operator, "what about the zephyrine merger?", conversation_id="ops-review")
    assert any("zephyrine" in s["text"].lower() for s in made["dossier"]["sources"])  # it did see tenant A

    default_viewer = server.client(server.key("viewer", ""))
    assert default_viewer.get("/api/chat/ops-review").status_code == 404
    assert default_viewer.delete("/api/chat/ops-review").status_code == 404
    continued = chat(default_viewer, "and what did you find before?", conversation_id="ops-review")
    assert continued["turn"] == 1  # its own, new conversation: nothing of the operator's carried over
    assert "zephyrine" not in str(continued).lower()

    own = operator.get("/api/chat/ops-review")
    assert own.status_code == 200 and [t["user"] for t in own.json()["turns"]] == ["what about the zephyrine merger?"]


def test_attack_a_viewer_key_cannot_mint_the_operator_conversation_scope(server: Server) -> None:
    """The operator's conversations live under a scope no key may hold: minting a key for that tenant name is
    refused, so no key can ever be made that reads them."""
    from groundsearch.assistant.turn import ALL_TENANTS_SCOPE
    from groundsearch.errors import InvalidInput

    try:
        server.keys.create("viewer", tenant=ALL_TENANTS_SCOPE)
    except InvalidInput as exc:
        assert "reserved" in exc.message
    else:
        raise AssertionError("a key for the reserved conversation scope was minted")
    operator = server.client(server.key("admin", "", all_tenants=True))
    r = operator.post("/api/keys", json={"role": "viewer", "tenant": ALL_TENANTS_SCOPE})
    assert r.status_code == 400, r.text


def test_attack_the_operators_searches_are_not_the_default_tenants_popular_topics(server: Server) -> None:
    """The operator searches across every tenant; its searches must not be counted as the default tenant's.
    Before the fix they were recorded under ``''`` (``tenant or ""``), so what the operator looked for — here
    'quillback', a name in the default tenant's corpus too — led the default tenant's popular topics."""
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    editor = server.client(server.key("editor", ""))
    assert upload(editor, "fish.md", "# Fish of the reef\n\nDivers meet Quillback and Lingcod on the reef. "
                                     "Divers log Quillback and Lingcod at dawn.\n").status_code == 200
    operator = server.client(server.key("admin", "", all_tenants=True))
    for _ in range(5):
        assert operator.post("/api/search", json={"query": "quillback"}).status_code == 200
    viewer = server.client(server.key("viewer", ""))
    assert viewer.post("/api/search", json={"query": "lingcod"}).status_code == 200
    popular = viewer.get("/api/search/suggestions", params={"limit": 10})
    assert popular.status_code == 200
    assert popular.json()["suggestions"] == ["lingcod"]  # the default tenant's own searches, not the operator's


def test_attack_the_default_tenant_cannot_mark_the_operators_results(server: Server) -> None:
    """Feedback is accepted only on a request of the caller's own scope. The operator's search showed tenant A's
    item; a default-tenant viewer holding that request id must get 404 — before the fix the operator's requests
    were recorded under ``''`` and the mark was accepted, steering the operator's ranking of tenant A's items."""
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    editor_a = server.client(server.key("editor", "mark-a"))
    assert upload(editor_a, "tern.md", "# Arctic tern survey\n\nThe arctic tern survey counted nests.\n").status_code == 200
    operator = server.client(server.key("admin", "", all_tenants=True))
    shown = operator.post("/api/search", json={"query": "arctic tern survey"}).json()
    item = next(r["item_id"] for r in shown["results"] if "tern" in r["title"].lower())
    mark = {"request_id": shown["diagnostics"]["request_id"], "item_id": item, "useful": True}
    viewer = server.client(server.key("viewer", ""))
    assert viewer.post("/api/feedback", json=mark).status_code == 404
    assert operator.post("/api/feedback", json=mark).status_code == 201  # the operator's own mark is accepted


def test_attack_a_viewer_chat_never_grounds_on_a_draft(server: Server) -> None:
    """A viewer may not read drafts (403 on ``include_drafts``); the chat's dossier retrieves for it, so the
    draft's text must not appear in the dossier, the reply or the stored turn either."""
    editor = server.client(server.key("editor", "chat-draft"))
    assert upload(editor, "plan.md", "---\nstatus: draft\n---\n# Heliotrope launch plan\n\nThe heliotrope launch "
                                     "moves to May; budget 7.7 million.\n").status_code == 200
    assert upload(editor, "pub.md", "# Heliotrope overview\n\nHeliotrope is our garden planner.\n").status_code == 200
    viewer = server.client(server.key("viewer", "chat-draft"))
    answer = chat(viewer, "what is the heliotrope launch plan and budget?")
    assert any("heliotrope" in s["text"].lower() for s in answer["dossier"]["sources"])  # it did retrieve
    stored = viewer.get(f"/api/chat/{answer['conversation_id']}").json()
    assert "7.7 million" not in str(answer) and "7.7 million" not in str(stored)
