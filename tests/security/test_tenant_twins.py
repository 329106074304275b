"""Identical content in two tenants (session 12), over the real app on SQLite and the real Postgres.

Two tenants upload the same file — same name, same bytes, so the same content hash, the same chunk texts and the
same vectors. Every surface that groups by content (exact duplicates, likely duplicates, the keyword and vector
legs, browse, preview) is a place where one tenant's copy could stand in for, or be listed beside, the other's;
and a delete or re-upload keyed by content could reach the twin. A probe with no hole found: each assertion fails
if a read, listing or delete stops being scoped by tenant (e.g. ``exact_duplicates`` compared hashes store-wide).
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest

from .conftest import Server, backend_server, upload

A, B = "twins-a-r12", "twins-b-r12"
TEXT = ("# Marlowe intake\n\nThe Marlowe intake form routes claims to the regional desk.\n\n"
        "## Escalation\n\nMarlowe claims over the limit go to the review board.\n")
SIBLING = "# Marlowe intake (copy)\n\nThe Marlowe intake form routes claims to the regional desk.\n"


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"twins-{request.param}")) as served:
        yield served


@pytest.fixture(scope="module")
def twins(server: Server) -> dict[str, str]:
    ids = {}
    for tenant in (A, B):
        editor = server.client(server.key("editor", tenant))
        for name, text in (("intake.md", TEXT), ("intake-copy.md", TEXT), ("sibling.md", SIBLING)):
            r = upload(editor, name, text)
            assert r.status_code == 200 and r.json()["added"] == 1, r.text
        hits = editor.post("/api/search", json={"query": "Marlowe intake", "limit": 50}).json()["results"]
        ids[tenant] = sorted({h["item_id"] for h in hits})
        assert len(ids[tenant]) == 3, hits
    assert not set(ids[A]) & set(ids[B])
    return {"a": ids[A], "b": ids[B]}  # type: ignore[dict-item]


def _surfaces(c: httpx.Client, own: list[str]) -> dict[str, str]:
    first = quote(own[0], safe="")
    return {
        "search": c.post("/api/search", json={"query": "Marlowe intake regional desk", "limit": 50}).text,
        "vector": c.post("/api/search", json={"query": "Marlowe intake", "profile": "vector", "limit": 50}).text,
        "keyword": c.post("/api/search", json={"query": "Marlowe", "profile": "keyword", "limit": 50}).text,
        "similar": c.get(f"/api/items/{first}/similar", params={"limit": 100}).text,
        "browse": c.get("/api/browse", params={"limit": 100}).text,
        "preview": c.get("/api/search/preview", params={"q": "Marlowe"}).text,
        "chat": c.post("/api/chat", json={"message": "Where do Marlowe claims go?"}).text,
    }


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_tenant_never_meets_its_twins_copies(server: Server, twins: dict[str, list[str]], role: str) -> None:
    with server.client(server.key(role, B)) as c:
        seen = _surfaces(c, twins["b"])
        similar = c.get(f"/api/items/{quote(twins['b'][0], safe='')}/similar").json()
    for surface, text in seen.items():
        assert not [i for i in twins["a"] if i in text], f"{surface} shows tenant A's copy"
    # its own copies are found, as duplicates of each other: the probe can see duplicates at all
    assert set(similar["exact_duplicates"]) | {s["id"] for s in similar["similar"]} <= set(twins["b"])
    assert similar["exact_duplicates"], similar


def test_deleting_one_tenants_copy_leaves_the_twin(server: Server, twins: dict[str, list[str]]) -> None:
    a, b = server.client(server.key("editor", A)), server.client(server.key("editor", B))
    victim = twins["a"][-1]
    assert b.delete(f"/api/items/{quote(victim, safe='')}").status_code == 404  # B cannot delete A's copy
    assert a.get(f"/api/items/{quote(victim, safe='')}").status_code == 200
    assert a.delete(f"/api/items/{quote(victim, safe='')}").status_code == 204
    assert upload(a, "intake.md", TEXT + "\nUpdated by A.\n").status_code == 200  # a re-upload replaces only A's
    for own in twins["b"]:
        r = b.get(f"/api/items/{quote(own, safe='')}")
        assert r.status_code == 200 and "Updated by A" not in r.text, r.text
    hits = b.post("/api/search", json={"query": "Marlowe", "profile": "vector", "limit": 50}).json()["results"]
    assert {h["item_id"] for h in hits} == set(twins["b"])
