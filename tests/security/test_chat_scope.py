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
