"""Attack on the keys file (round 4): a tenant admin must not grow it without end.

The keys file is one JSON document, rewritten whole on every create and re-read (under one lock) by every
request of every tenant after each change. ``POST /api/keys`` had no limit, so a tenant admin minting in a loop
slowed every tenant's requests: measured at 50k keys (load ~30), a re-read took 0.9 s and a create 3.7 s. A tenant
admin now holds at most ``api.max_keys_per_tenant`` keys in its tenant (1,000); the operator is not bound by it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from tests.api.live import serve

from .conftest import Server, open_engine

MOST = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp: Path = tmp_path_factory.mktemp("keyflood")
    engine = open_engine(tmp)
    settings = engine.settings.model_copy(update={"api": engine.settings.api.model_copy(
        update={"max_keys_per_tenant": MOST})})
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, settings, keys=keys)) as url:
        yield Server(url, engine, keys, tmp)


def test_attack_a_tenant_admin_cannot_mint_keys_without_end(server: Server) -> None:
    admin = server.client(server.key("admin", "flood-a"))
    made = [admin.post("/api/keys", json={"role": "viewer"}) for _ in range(MOST - 1)]  # the admin is the first
    assert [r.status_code for r in made] == [201] * (MOST - 1)
    refused = admin.post("/api/keys", json={"role": "viewer"})
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["details"]["max_keys_per_tenant"] == MOST
    assert sum(1 for r in server.keys.records() if r.tenant == "flood-a") == MOST

    other = server.client(server.key("admin", "flood-b"))  # another tenant's admin is not affected
    assert other.post("/api/keys", json={"role": "viewer"}).status_code == 201
    operator = server.client(server.key("admin", "", all_tenants=True))  # nor is the operator
    assert operator.post("/api/keys", json={"role": "viewer", "tenant": "flood-a"}).status_code == 201
    assert admin.delete(f"/api/keys/{made[0].json()['id']}").status_code == 204
    assert admin.post("/api/keys", json={"role": "viewer"}).status_code == 400  # still MOST with the operator's
    assert admin.delete(f"/api/keys/{made[1].json()['id']}").status_code == 204
    assert admin.post("/api/keys", json={"role": "viewer"}).status_code == 201  # below the limit again
