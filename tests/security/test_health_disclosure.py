"""``GET /api/search/health`` with keys required, as an anonymous caller and as a key of tenant B.

Health is open without a key so load balancers can probe it. It reported the store's item, chunk and pending-vector
counts — every tenant's, drafts included — and index details naming server files: anyone could watch the
counts move as tenant A uploaded a draft (activity and unpublished work, of tenants one cannot even name). Now a
caller that is not an operator gets liveness only (status, index states, how the server is run); the operator key
and local mode get everything.
"""

from __future__ import annotations

import pytest

from .conftest import Server, upload

PRIVATE = {"items", "chunks", "vectors_pending", "background_embedding", "embedder", "llm", "backend"}


def test_attack_health_tells_an_outsider_nothing_of_the_tenants_data(server: Server) -> None:
    anonymous = server.client(None)
    other = server.client(server.key("viewer", "health-b"))
    forged = server.client("gs_000000000000_not-a-key")
    before = {name: c.get("/api/search/health") for name, c in
              (("anonymous", anonymous), ("tenant B", other), ("forged", forged))}
    editor = server.client(server.key("editor", "health-a"))
    assert upload(editor, "plan.md", "---\nstatus: draft\n---\n# Merger plan\n\nDraft terms.\n").status_code == 200
    for name, c in (("anonymous", anonymous), ("tenant B", other), ("forged", forged)):
        r = c.get("/api/search/health")
        assert r.status_code == 200, (name, r.text)  # still a probe a load balancer can use
        body = r.json()
        assert body["status"] in ("ok", "degraded") and body["auth"] == "api-keys"
        assert not PRIVATE & set(body), (name, body)  # before: items/chunks counted every tenant and draft
        assert all(set(v) <= {"state", "search"} for v in body["indexes"].values()), body
        assert body == before[name].json(), name  # A's upload moved nothing an outsider sees
    full = server.client(server.key("admin", "", all_tenants=True)).get("/api/search/health").json()
    assert full["items"] >= 1 and "chunks" in full  # the operator, the control: the counts are there


def test_attack_an_anonymous_health_probe_reads_no_store_counts(server: Server,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Health is open without a key and spends no budget (a load balancer probes it), but it ran the store-wide
    counts (items, chunks, waiting vectors: four ``count(*)`` over whole tables on Postgres) for every caller and
    then dropped them for all but the operator, so anyone on the network could make the server count every table
    as fast as it could send probes. Now only the callers who are shown the counts make the store count."""
    counted: list[str] = []
    store = server.engine.store
    for name in ("count", "count_chunks", "count_pending_vectors"):
        real = getattr(store, name)
        monkeypatch.setattr(store, name,
                            lambda *a, _real=real, _name=name, **kw: counted.append(_name) or _real(*a, **kw))
    for c in (server.client(None), server.client("gs_000000000000_not-a-key"),
              server.client(server.key("admin", "health-c"))):
        assert all(c.get("/api/search/health").status_code == 200 for _ in range(5))
    assert counted == [], counted  # before: 15 probes, 45 store counts
    full = server.client(server.key("admin", "", all_tenants=True)).get("/api/search/health").json()
    assert "chunks" in full and counted, counted  # the operator, the control: its counts come from the store
