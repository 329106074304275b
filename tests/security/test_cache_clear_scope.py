"""Attack on shared capacity (round 5): one tenant's admin must not empty the caches every tenant's searches use.

``POST /api/search/cache/clear`` drops the process's memoised query vectors and intents and rebuilds the answer
pipeline (its classifiers and the multilingual judge load again on the next search). It was open to any admin and
has no rate limit; the clear itself costs nothing. Measured with the real models (MiniLM + e5-small, load ~10): a
search after a clear took 0.43 s instead of 0.017 s warm, a Czech one 0.83–0.88 s instead of 0.14–0.17 s, so a
tenant admin clearing in a loop made every other tenant's searches 5–25× slower. It also told nobody anything a
tenant admin needs: the caches hold no tenant data to refresh, and the reasons to clear them (cold timings, a new
gate calibration) are the operator's. The clear is now the operator's (every-tenant admin key) alone.
"""

from __future__ import annotations

from .conftest import Server, upload


def _hit(client: object, query: str) -> bool:
    r = client.post("/api/search", json={"query": query})  # type: ignore[attr-defined]
    assert r.status_code == 200, r.text
    return bool(r.json()["diagnostics"]["cache_hit"])


def test_attack_a_tenant_admin_cannot_empty_another_tenants_caches(server: Server) -> None:
    editor_b = server.client(server.key("editor", "cc-b"))
    assert upload(editor_b, "lathe.md", "# Lathe tooling\n\nLathe tooling wears at the tip.\n").status_code == 200
    viewer_b = server.client(server.key("viewer", "cc-b"))
    _hit(viewer_b, "lathe tooling wear")
    assert _hit(viewer_b, "lathe tooling wear")  # B's second search is served from its intent cache

    admin_a = server.client(server.key("admin", "cc-a"))
    refused = admin_a.post("/api/search/cache/clear")
    assert _hit(viewer_b, "lathe tooling wear"), "tenant A's admin emptied the caches tenant B's searches use"
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["details"]["required"] == "operator"

    operator = server.client(server.key("admin", "", all_tenants=True))
    assert operator.post("/api/search/cache/clear").status_code == 200
    assert not _hit(viewer_b, "lathe tooling wear")  # the operator's clear does empty them
