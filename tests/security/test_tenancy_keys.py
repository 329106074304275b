"""Attacks on key management (issue 9, item 2) over HTTP, and the scoping of keys themselves (item 1).

The model: an admin key belongs to one tenant and manages only that tenant's keys; one global operator role
exists, only as an admin key created explicitly with ``all_tenants``. Another tenant's key is *not found* to a
tenant admin, so key ids do not leak either.
"""

from __future__ import annotations

import pytest

from groundsearch.errors import InvalidInput

from .conftest import Server, upload


def test_a_tenant_admin_sees_and_manages_only_its_tenant(server: Server) -> None:
    admin_a = server.client(server.key("admin", "k1-a"))
    b_record, b_key = server.keys.create("viewer", tenant="k1-b")
    listed = admin_a.get("/api/keys")
    assert listed.status_code == 200
    assert {k["tenant"] for k in listed.json()} == {"k1-a"}

    minted = admin_a.post("/api/keys", json={"role": "viewer", "tenant": "k1-b"})
    assert minted.status_code == 403, minted.text
    assert all(r.tenant != "k1-b" or r.id == b_record.id for r in server.keys.records())
    assert admin_a.post("/api/keys", json={"role": "admin", "all_tenants": True}).status_code == 403

    assert admin_a.delete(f"/api/keys/{b_record.id}").status_code == 404
    assert server.client(b_key).post("/api/search", json={"query": "anything"}).status_code == 200


def test_a_tenant_admin_mints_keys_for_its_own_tenant(server: Server) -> None:
    admin = server.client(server.key("admin", "k2"))
    made = admin.post("/api/keys", json={"role": "editor"})
    assert made.status_code == 201 and made.json()["tenant"] == "k2"
    editor = server.client(made.json()["key"])
    assert upload(editor, "k2.md", "# K2 notes\n\nOwn tenant.\n").json()["added"] == 1
    assert admin.delete(f"/api/keys/{made.json()['id']}").status_code == 204
    assert editor.post("/api/search", json={"query": "notes"}).status_code == 401


def test_the_operator_is_explicit_and_sees_every_tenant(server: Server) -> None:
    operator = server.client(server.key("admin", "", all_tenants=True))
    made = operator.post("/api/keys", json={"role": "viewer", "tenant": "k3-other"})
    assert made.status_code == 201 and made.json()["tenant"] == "k3-other"
    assert "k3-other" in {k["tenant"] for k in operator.get("/api/keys").json()}
    assert operator.delete(f"/api/keys/{made.json()['id']}").status_code == 204
    # the operator names the tenant of a key it mints: no silent default
    assert operator.post("/api/keys", json={"role": "viewer"}).status_code == 400


def test_all_tenants_is_an_admin_only_and_explicit_scope(server: Server) -> None:
    with pytest.raises(InvalidInput):
        server.keys.create("viewer", tenant="", all_tenants=True)
    with pytest.raises(InvalidInput):
        server.keys.create("editor", tenant="t", all_tenants=True)
    with pytest.raises(TypeError):
        server.keys.create("viewer")  # type: ignore[call-arg]  # a tenant must always be named


def test_a_default_tenant_key_sees_only_the_default_tenant(server: Server) -> None:
    owner = server.client(server.key("editor", "k4-owner"))
    assert upload(owner, "k4.md", "# Kestrel ledger\n\nKestrel ledger totals.\n").json()["added"] == 1
    default = server.client(server.key("viewer", ""))
    found = default.post("/api/search", json={"query": "kestrel ledger", "limit": 50}).json()["results"]
    assert "Kestrel ledger" not in [h["title"] for h in found]
    assert default.get("/api/search/preview", params={"q": "kestrel"}).json()["items"] == []
