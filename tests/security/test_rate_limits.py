"""Rate-limit bypass attempts over the real app: every route that runs retrieval spends the key's budget.

A key's search budget is what stops one caller from keeping the shared machine busy; a route that searches
without counting is a way around it. Each test uses a fresh key, so budgets never carry between tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from tests.api.live import serve

from .conftest import Server, open_engine, upload

BUDGET = 3


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("limits")
    engine = open_engine(tmp)
    # this module's tenant spends many keys' budgets on purpose; the tenant's own budget is attacked below
    api = engine.settings.api.model_copy(update={"search_per_minute": BUDGET, "preview_per_minute": BUDGET,
                                                 "ingest_per_minute": BUDGET, "tenant_budget_keys": 1000})
    settings = engine.settings.model_copy(update={"api": api})
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, settings, keys=keys)) as url:
        server = Server(url, engine, keys, tmp)
        editor = server.client(server.key("editor", "rl"))
        r = upload(editor, "rl.md", "# Quillwort survey\n\nQuillwort grows in cold lakes.\n\n## Range\n\n"
                                    "Quillwort is found across the north.\n")
        assert r.status_code == 200, r.text
        yield server


def _item_id(server: Server) -> str:
    with server.client(server.key("viewer", "rl")) as c:
        hits = c.post("/api/search", json={"query": "quillwort"}).json()["results"]
    return hits[0]["item_id"]


CALLS: dict[str, Callable[[httpx.Client, Server], httpx.Response]] = {
    "search": lambda c, s: c.post("/api/search", json={"query": "quillwort"}),
    "chat, a new conversation each turn": lambda c, s: c.post("/api/chat", json={"message": "quillwort?"}),
    "similar": lambda c, s: c.get(f"/api/items/{s.item}/similar"),  # type: ignore[attr-defined]
    "trending": lambda c, s: c.get("/api/trending"),
    "browse": lambda c, s: c.get("/api/browse"),
    "validate-urls": lambda c, s: c.post("/api/validate-urls", json={"urls": ["https://example.org/"]}),
    "suggestions": lambda c, s: c.get("/api/search/suggestions"),
    "preview": lambda c, s: c.get("/api/search/preview", params={"q": "quil"}),
    # round 10: the GET and streaming (SSE) forms, and a conversation continued turn after turn
    "search, GET": lambda c, s: c.get("/api/search", params={"q": "quillwort"}),
    "search, SSE stream": lambda c, s: c.get("/api/search", params={"q": "quillwort", "stream": "true"}),
    "search, POST stream": lambda c, s: c.post("/api/search?stream=true", json={"query": "quillwort"}),
    "intelligent search": lambda c, s: c.post("/api/intelligent-search", json={"query": "quillwort"}),
    "chat, SSE stream": lambda c, s: c.post("/api/chat?stream=true", json={"message": "quillwort?"}),
    "chat, one conversation continued": lambda c, s: _continued(c),
}


def _continued(c: httpx.Client) -> httpx.Response:
    conversation = getattr(c, "conversation", None)
    r = c.post("/api/chat", json={"message": "quillwort?", **({"conversation_id": conversation} if conversation
                                                                else {})})
    if r.status_code == 200:
        c.conversation = r.json()["conversation_id"]  # type: ignore[attr-defined]
    return r


@pytest.mark.parametrize("route", list(CALLS))
def test_attack_no_route_runs_retrieval_past_the_budget(limited: Server, route: str) -> None:
    """Before the fix, ``/similar`` (a vector search) and ``/suggestions`` (corpus term counts and telemetry)
    counted against nothing: a viewer could run them without end."""
    limited.item = _item_id(limited)  # type: ignore[attr-defined]  # before the key under test spends anything
    with limited.client(limited.key("viewer", "rl")) as c:
        codes = [CALLS[route](c, limited).status_code for _ in range(BUDGET + 1)]
    assert codes[:BUDGET] == [200] * BUDGET, codes
    assert codes[BUDGET] == 429, codes


BY_ID: dict[str, tuple[str, Callable[[httpx.Client, Server], httpx.Response]]] = {
    "item, real id": ("viewer", lambda c, s: c.get(f"/api/items/{s.item}")),  # type: ignore[attr-defined]
    "item, guessed id": ("viewer", lambda c, s: c.get("/api/items/rel:rl:guess")),
    "item, with the include flags": ("editor", lambda c, s: c.get(
        f"/api/items/{s.item}", params={"include_drafts": "true", "include_superseded": "true"})),  # type: ignore[attr-defined]
    "conversation, guessed id": ("viewer", lambda c, s: c.get("/api/chat/guessed-conversation")),
    "conversation delete, guessed id": ("viewer", lambda c, s: c.delete("/api/chat/guessed-conversation")),
    "feedback delete, guessed id": ("viewer", lambda c, s: c.delete("/api/feedback/guessed-mark")),
    "item delete, guessed id": ("editor", lambda c, s: c.delete("/api/items/rel:rl:guess")),
    # session 13: job polling and key listing were left unbudgeted; each is still a request the server answers
    "job list": ("editor", lambda c, s: c.get("/api/jobs")),
    "job, guessed id": ("editor", lambda c, s: c.get("/api/jobs/0123456789abcdef")),
    "job cancel, guessed id": ("editor", lambda c, s: c.delete("/api/jobs/0123456789abcdef")),
    "key list": ("admin", lambda c, s: c.get("/api/keys")),
}


@pytest.mark.parametrize("route", list(BY_ID))
def test_attack_reads_and_deletes_by_id_spend_a_budget(limited: Server, route: str) -> None:
    """Session 12: reads and deletes by id counted against nothing, so one key could walk guessed ids (record
    ids are ``rel:<tenant>:<record key>``), conversation ids and mark ids without end, each a store query. A read
    by id now spends the preview budget (a point read, like typeahead) and an item delete the ingest budget (a
    store write, like an upload); the 429 comes after the budget, whatever the id answered."""
    limited.item = _item_id(limited)  # type: ignore[attr-defined]
    role, call = BY_ID[route]
    with limited.client(limited.key(role, "rl")) as c:
        codes = [call(c, limited).status_code for _ in range(BUDGET + 1)]
    assert all(code in (200, 404) for code in codes[:BUDGET]), codes
    assert codes[BUDGET] == 429, codes


def test_attack_forwarding_headers_do_not_reset_a_keys_budget(limited: Server) -> None:
    """With keys, the budget is the key's: a new X-Forwarded-For (or X-Real-IP) per request changes nothing."""
    with limited.client(limited.key("viewer", "rl")) as c:
        codes = [c.post("/api/search", json={"query": "quillwort"},
                        headers={"X-Forwarded-For": f"203.0.113.{i}", "X-Real-IP": f"198.51.100.{i}"}).status_code
                 for i in range(BUDGET + 1)]
    assert codes == [200] * BUDGET + [429], codes


def test_attack_a_rejected_key_spends_nobody_elses_budget(limited: Server) -> None:
    """Requests with a wrong secret for a real key id are 401 and do not eat that key's budget."""
    key = limited.key("viewer", "rl")
    key_id = key.split("_")[1]
    with limited.client(f"gs_{key_id}_wrong-secret") as forged:
        assert all(forged.post("/api/search", json={"query": "x"}).status_code == 401 for _ in range(BUDGET + 1))
    with limited.client(key) as c:
        assert [c.post("/api/search", json={"query": "quillwort"}).status_code for _ in range(BUDGET)] == [200] * 3


TENANT_KEYS = 2  # the tenant's budget, in keys' budgets


@pytest.fixture(scope="module")
def per_tenant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("tenant-limits")
    engine = open_engine(tmp)
    api = engine.settings.api.model_copy(update={"search_per_minute": BUDGET, "preview_per_minute": BUDGET,
                                                 "tenant_budget_keys": TENANT_KEYS})
    settings = engine.settings.model_copy(update={"api": api})
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, settings, keys=keys)) as url:
        yield Server(url, engine, keys, tmp)


def test_attack_minting_and_rotating_keys_does_not_multiply_a_tenants_budget(per_tenant: Server) -> None:
    """A tenant admin mints keys at will (``POST /api/keys``), and revoking one and minting another gave a fresh
    budget: four keys ran four budgets (12 searches a minute here, unbounded with more keys). Now the tenant's
    requests stop at ``tenant_budget_keys`` keys' budgets, rotated keys included, with a 429 saying whose budget
    it is; another tenant's key keeps its own."""
    admin = per_tenant.client(per_tenant.key("admin", "rotator"))

    def mint() -> httpx.Client:
        made = admin.post("/api/keys", json={"role": "viewer"})
        assert made.status_code == 201, made.text
        client = per_tenant.client(made.json()["key"])
        client.key_id = made.json()["id"]  # type: ignore[attr-defined]
        return client

    codes, last = [], None
    for _ in range(4):
        last = mint()
        codes += [last.post("/api/search", json={"query": "budget"}).status_code for _ in range(BUDGET)]
    assert codes.count(200) == BUDGET * TENANT_KEYS, codes  # before: 12, every key's whole budget
    assert admin.delete(f"/api/keys/{last.key_id}").status_code == 204  # type: ignore[union-attr]
    r = mint().post("/api/search", json={"query": "budget"})
    assert r.status_code == 429 and r.json()["error"]["details"]["scope"] == "tenant", r.text
    assert 1 <= int(r.headers["retry-after"]) <= 60
    other = per_tenant.client(per_tenant.key("viewer", "bystander"))
    assert other.post("/api/search", json={"query": "budget"}).status_code == 200
