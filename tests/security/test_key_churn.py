"""Attack on the keys file (round 11): a tenant admin minting and revoking in a loop must spend a budget.

``api.max_keys_per_tenant`` bounds how many keys a tenant holds, not how often its admin rewrites the file: every
``POST`` and ``DELETE /api/keys`` rewrites the whole document, and every request of every tenant re-reads it after
a change (under the key store's lock). With 5,000 keys of other tenants in the file, two threads of one tenant
admin creating and revoking throwaway keys took another tenant's preview from p50 48 ms to 204–263 ms
(p95 49–63 → 400–585 ms; ``scripts/key_churn.py``, BENCHMARKS.md "Keys file churn"), with no budget to spend.
Key writes now count against ``api.keys_per_minute`` per key and the tenant's share of it, like every other bucket.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from tests.api.live import serve

from .conftest import Server, open_engine

BUDGET = 4


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp: Path = tmp_path_factory.mktemp("keychurn")
    engine = open_engine(tmp)
    api = engine.settings.api.model_copy(update={"keys_per_minute": BUDGET, "tenant_budget_keys": 2})
    settings = engine.settings.model_copy(update={"api": api})
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, settings, keys=keys)) as url:
        yield Server(url, engine, keys, tmp)


def test_attack_a_tenant_admin_cannot_rewrite_the_keys_file_without_end(server: Server) -> None:
    """Create and revoke alternate; each is a rewrite. Before the budget all ``2 * BUDGET`` writes and any number
    after them were answered; now the key's writes past its budget are 429 and write nothing."""
    with server.client(server.key("admin", "churn-a")) as admin:
        codes = []
        for _ in range(BUDGET):
            made = admin.post("/api/keys", json={"role": "viewer", "label": "throwaway"})
            codes.append(made.status_code)
            if made.status_code == 201:
                codes.append(admin.delete(f"/api/keys/{made.json()['id']}").status_code)
        assert codes[:BUDGET] == [201, 204] * (BUDGET // 2), codes
        assert set(codes[BUDGET:]) == {429}, codes  # every write before the fix
        before = server.keys.path.stat().st_mtime_ns
        refused = admin.post("/api/keys", json={"role": "viewer"})
        assert refused.status_code == 429 and refused.json()["error"]["details"]["bucket"] == "keys", refused.text
        assert server.keys.path.stat().st_mtime_ns == before  # refused before the file is touched
        assert admin.get("/api/keys").status_code == 200  # reading its keys is not a write


def test_attack_rotating_admin_keys_does_not_multiply_the_tenants_budget(server: Server) -> None:
    """An admin with a spent budget mints no fresh one: its tenant's other admin keys share the tenant's budget of
    ``tenant_budget_keys`` (2) keys' worth. Other tenants' admins keep theirs."""
    admins = [server.client(server.key("admin", "churn-b")) for _ in range(3)]
    codes = [admin.post("/api/keys", json={"role": "viewer"}).status_code for admin in admins
             for _ in range(BUDGET)]
    assert codes.count(201) == 2 * BUDGET and codes[-BUDGET:] == [429] * BUDGET, codes
    with server.client(server.key("admin", "churn-c")) as other:
        assert other.post("/api/keys", json={"role": "viewer"}).status_code == 201
    for admin in admins:
        admin.close()
