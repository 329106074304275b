"""Attacks on the chat surface over the real app (HTTP, real SQLite stores, real keys).

A conversation keeps what its retrieval saw — the dossier's source text, the signals, the replies. Whoever may
read or continue a conversation therefore reads what its author could search. These tests try to reach another
scope's conversation with a valid key.
"""

from __future__ import annotations

from .conftest import Server, upload


def _chat(client, message: str, **body):  # type: ignore[no-untyped-def]
    r = client.post("/api/chat", json={"message": message, **body})
    assert r.status_code == 200, r.text
    return r.json()


def test_attack_the_default_tenant_cannot_read_or_continue_an_operator_conversation(server: Server) -> None:
    """The operator's chat searched every tenant, so its dossier holds tenant A's text. A viewer of the default
    tenant ``''`` who learns the conversation id must get the same 404 as for an unknown id — before the fix the
    conversation was stored under ``''`` (the operator's *write* tenant) and this viewer read it whole."""
    editor_a = server.client(server.key("editor", "chat-op-a"))
    assert upload(editor_a, "merger.md", "# Zephyrine merger\n\nThe zephyrine merger closes on the 9th; price "
                                         "4.2 billion.\n").status_code == 200
    operator = server.client(server.key("admin", "", all_tenants=True))
    made = _chat(operator, "what about the zephyrine merger?", conversation_id="ops-review")
    assert any("zephyrine" in s["text"].lower() for s in made["dossier"]["sources"])  # it did see tenant A

    default_viewer = server.client(server.key("viewer", ""))
    assert default_viewer.get("/api/chat/ops-review").status_code == 404
    assert default_viewer.delete("/api/chat/ops-review").status_code == 404
    continued = _chat(default_viewer, "and what did you find before?", conversation_id="ops-review")
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
        import pytest

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
