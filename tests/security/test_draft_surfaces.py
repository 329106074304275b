"""Drafts through every read surface (round 10): search (JSON and SSE), browse, preview, suggestions, trending,
the chat dossier, the graph leg, ``/similar`` and the MCP tool, over the real app with real keys, on SQLite and
on the real Postgres.

One tenant's editor writes a published plan and a draft that share an entity; the draft alone names a secret
codename (Zephyrine) and a second entity (Quoravex). A viewer of that tenant, and any key of another tenant (even
an editor asking for drafts), must never meet the codename, the draft's id or the draft-only entity — whatever
flag, filter or route it tries. The draft's own editor, asking with ``include_drafts``, does: the sign that each
probe can find the draft at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from groundsearch.errors import GroundsearchError
from groundsearch.interfaces.mcp_server import find

from .conftest import Server, backend_server, chat, upload

TENANT, OTHER = "drafts-r10", "drafts-r10-other"
PUBLISHED = ("---\ndate: 2026-11-20\n---\n# Halvard rollout\n\nHalvard ships to the northern region in December. "
             "The Halvard team owns the rollout.\n")
DRAFT = ("---\nstatus: draft\ndate: 2026-11-21\n---\n# Halvard takeover memo\n\nZephyrine is the codename: Halvard "
         "will buy Quoravex for Brindlemoor shares. Quoravex and Halvard sign in January. Zephyrine stays secret.\n")
SECRETS = ("zephyrine", "quoravex", "brindlemoor", "takeover memo")


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"draft-surfaces-{request.param}")) as served:
        yield served


@pytest.fixture(scope="module")
def planted(server: Server) -> dict[str, str]:
    editor = server.client(server.key("editor", TENANT))
    for name, text in (("rollout.md", PUBLISHED), ("acquisition.md", DRAFT)):
        r = upload(editor, name, text)
        assert r.status_code == 200 and r.json()["added"] == 1, r.text
    hits = editor.post("/api/search", json={"query": "Halvard", "include_drafts": True, "limit": 50}).json()
    ids = {("draft" if "acquisition" in h["item_id"] else "live"): h["item_id"] for h in hits["results"]}
    assert set(ids) == {"draft", "live"}, hits
    return ids


def _leaks(text: str, draft_id: str, asked: str = "") -> list[str]:
    """The draft's words and id in ``text``, but for those the caller itself typed (``asked``: echoed back)."""
    low, asked = text.casefold(), asked.casefold()
    return [s for s in (*SECRETS, draft_id.casefold()) if s in low and s not in asked]


def _asked(r: httpx.Response) -> str:
    from urllib.parse import unquote_plus

    return unquote_plus(str(r.request.url)) + r.request.content.decode()


def _callers(server: Server) -> dict[str, httpx.Client]:
    return {"viewer": server.client(server.key("viewer", TENANT)),
            "other viewer": server.client(server.key("viewer", OTHER)),
            "other editor": server.client(server.key("editor", OTHER))}


def _probes(planted: dict[str, str]) -> dict[str, Any]:
    """Each probe: a request a caller may send; its whole answer text is searched for the draft."""
    live = planted["live"]
    return {
        "search": lambda c: c.post("/api/search", json={"query": "Zephyrine Quoravex codename", "limit": 50}),
        "search, status filter": lambda c: c.post("/api/search", json={
            "query": "Zephyrine", "filters": {"status": "draft"}, "limit": 50}),
        "search, tenant filter": lambda c: c.post("/api/search", json={
            "query": "Zephyrine", "filters": {"tenant": TENANT}, "limit": 50}),
        "intelligent search": lambda c: c.post("/api/intelligent-search", json={"query": "Who will Halvard buy?"}),
        "search stream": lambda c: c.get("/api/search", params={"q": "Zephyrine Quoravex", "stream": "true"}),
        "graph leg (entity neighbours)": lambda c: c.post("/api/search", json={
            "query": "Halvard acquisition partners", "limit": 50}),
        "vector profile": lambda c: c.post("/api/search", json={"query": "Zephyrine codename", "profile": "vector"}),
        "keyword profile": lambda c: c.post("/api/search", json={"query": "Zephyrine", "profile": "keyword"}),
        "browse": lambda c: c.get("/api/browse", params={"limit": 100}),
        "browse, status filter": lambda c: c.get("/api/browse", params={"filter": "status=draft"}),
        "preview": lambda c: c.get("/api/search/preview", params={"q": "Halvard"}),
        "preview of the codename": lambda c: c.get("/api/search/preview", params={"q": "Zephyr"}),
        "suggestions": lambda c: c.get("/api/search/suggestions", params={"limit": 50}),
        "trending": lambda c: c.get("/api/trending", params={"as_of": "2026-11-30", "limit": 50}),
        "thematic trending": lambda c: c.get("/api/trending", params={"as_of": "2026-11-30", "mode": "thematic"}),
        "similar": lambda c: c.get(f"/api/items/{live}/similar"),
        "chat": lambda c: c.post("/api/chat", json={"message": "What is the Halvard codename Zephyrine about?"}),
        "chat stream": lambda c: c.post("/api/chat?stream=true", json={"message": "Who is Quoravex?"}),
    }


PROBES = list(_probes({"live": "x", "draft": "y"}))


@pytest.mark.parametrize("probe", PROBES)
def test_attack_no_read_surface_shows_a_draft_to_a_viewer_or_another_tenant(
        server: Server, planted: dict[str, str], probe: str) -> None:
    send = _probes(planted)[probe]
    for who, client in _callers(server).items():
        r = send(client)
        assert r.status_code in (200, 400, 403, 404), (who, r.status_code, r.text[:300])
        assert not _leaks(r.text, planted["draft"], _asked(r)), (who, probe, r.text[:2000])


def test_the_drafts_editor_does_meet_it_when_asking(server: Server, planted: dict[str, str]) -> None:
    """The probes above can see the draft at all: its own editor, with the flag, finds it."""
    editor = server.client(server.key("editor", TENANT))
    r = editor.post("/api/search", json={"query": "Zephyrine Quoravex", "include_drafts": True, "limit": 50})
    assert _leaks(r.text, planted["draft"])
    assert planted["draft"] in {h["item_id"] for h in r.json()["results"]}
    assert chat(editor, "Halvard rollout region")["conversation_id"]  # chat runs for the tenant at all


@pytest.mark.parametrize("tenant", [TENANT, OTHER])
def test_attack_the_mcp_tool_never_finds_a_draft(server: Server, planted: dict[str, str], tenant: str) -> None:
    """``find`` is the MCP tool's whole work; scoped to the draft's tenant it still sees published items only,
    also when asked by a draft-only word, with a status filter, or ``similar_to`` the draft itself."""
    attempts: list[dict[str, Any]] = [
        {"query": "Zephyrine codename", "similar_to": None, "filters": None},
        {"query": "Halvard acquisition", "similar_to": None, "filters": None},
        {"query": "Zephyrine", "similar_to": None, "filters": {"status": "draft"}},
        {"query": None, "similar_to": planted["live"], "filters": None},
        {"query": None, "similar_to": planted["draft"], "filters": None},
    ]
    for attempt in attempts:
        try:
            answer = find(server.engine, kind="chunks", collections=None, limit=50, offset=0, tenant=tenant, **attempt)
        except GroundsearchError as exc:  # refused (unknown field, unknown seed): what it says must not leak
            assert not _leaks(str(exc), planted["draft"], json.dumps(attempt)), exc
            continue
        assert not _leaks(json.dumps(answer.model_dump(), default=str), planted["draft"], json.dumps(attempt)), answer
