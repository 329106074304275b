"""Caches shared by every tenant of one server, attacked by a key of tenant B over the real app.

The intent cache is keyed by the normalised request text. Its entries are built from the text alone (no tenant's
data), but a hit is reported (``diagnostics.cache_hit``) and is faster, so with one cache for every tenant B
learned that *someone* — another tenant — asked exactly this within the TTL: "zorblax acquisition of
quimbly, q3" coming back as a hit tells B what A is working on (the per-tenant link-check cache closed the same
channel for ``cached: true``). Each caller scope now has its own entries, in process and in Redis.
The same on two workers sharing one Redis: ``test_two_workers.py``.
"""

from __future__ import annotations

from .conftest import Server


def hit(client, query: str) -> bool:  # type: ignore[no-untyped-def]
    r = client.post("/api/search", json={"query": query, "limit": 5})
    assert r.status_code == 200, r.text
    return bool(r.json()["diagnostics"]["cache_hit"])


def test_attack_another_tenants_search_is_not_an_intent_cache_hit(server: Server) -> None:
    a = server.client(server.key("viewer", "cache-a"))
    b = server.client(server.key("viewer", "cache-b"))
    secret = "zorblax acquisition of quimbly, q3 board pack"
    assert hit(a, secret) is False
    assert hit(a, secret) is True  # the control: the cache works within a tenant
    assert hit(b, secret) is False  # before: True — B saw that another tenant had asked exactly this
    assert hit(b, secret) is True
    operator = server.client(server.key("admin", "", all_tenants=True))
    assert hit(operator, secret) is False  # the operator's scope is its own too
    default = server.client(server.key("viewer", ""))
    assert hit(operator, "an operator's own question on tenants") is False
    assert hit(default, "an operator's own question on tenants") is False
