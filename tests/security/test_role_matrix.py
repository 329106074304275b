"""Every route by every role (round 10): a key below a route's role gets 403 and changes nothing.

``MIN_ROLE`` is this test's own statement of who may do what, checked against the app's OpenAPI routes, so a
route added later without a line here fails by name rather than passing unexamined. Each refused request aims
at something real — an existing item, key, job and conversation of the caller's own tenant — and the test
checks afterwards that it is still there.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import Server, chat, upload
from .test_anonymous import ROUTES

ROLES = ("viewer", "editor", "admin")
MIN_ROLE: dict[tuple[str, str], str] = {
    ("GET", "/api/search/health"): "anonymous",
    ("POST", "/api/search"): "viewer", ("GET", "/api/search"): "viewer",
    ("POST", "/api/intelligent-search"): "viewer", ("GET", "/api/search/preview"): "viewer",
    ("GET", "/api/search/suggestions"): "viewer", ("GET", "/api/trending"): "viewer",
    ("GET", "/api/browse"): "viewer", ("POST", "/api/validate-urls"): "viewer",
    ("GET", "/api/items/{item_id}"): "viewer", ("GET", "/api/items/{item_id}/similar"): "viewer",
    ("POST", "/api/chat"): "viewer", ("GET", "/api/chat/{conversation_id}"): "viewer",
    ("DELETE", "/api/chat/{conversation_id}"): "viewer",  # the caller's own conversation (test_chat_owner.py)
    ("POST", "/api/feedback"): "viewer", ("DELETE", "/api/feedback/{feedback_id}"): "viewer",  # own marks
    ("POST", "/api/items"): "editor", ("POST", "/api/items/records"): "editor",
    ("DELETE", "/api/items/{item_id}"): "editor",
    ("GET", "/api/jobs"): "editor", ("GET", "/api/jobs/{job_id}"): "editor", ("DELETE", "/api/jobs/{job_id}"): "editor",
    ("GET", "/api/keys"): "admin", ("POST", "/api/keys"): "admin", ("DELETE", "/api/keys/{key_id}"): "admin",
    ("POST", "/api/search/cache/clear"): "admin",
}
TENANT = "roles-r10"


def test_every_route_has_a_stated_role() -> None:
    assert set(ROUTES) == set(MIN_ROLE), set(ROUTES) ^ set(MIN_ROLE)


@pytest.fixture(scope="module")
def targets(server: Server) -> dict[str, str]:
    """Real objects of the tenant for the refused requests to aim at."""
    editor = server.client(server.key("editor", TENANT))
    r = upload(editor, "roles.md", "# Roles memo\n\nThe Wexford ledger is kept by the editors.\n")
    assert r.status_code == 200, r.text
    item = editor.post("/api/search", json={"query": "Wexford ledger"}).json()["results"][0]["item_id"]
    r = editor.post("/api/items", params={"background": "true"},
                    files={"file": ("later.md", b"# Later\n\nQueued Wexford notes.\n", "text/markdown")})
    assert r.status_code == 202, r.text
    key_id = server.keys.create("viewer", tenant=TENANT)[0].id
    return {"item_id": item, "job_id": r.json()["id"], "key_id": key_id, "feedback_id": "fb-none",
            "conversation_id": chat(editor, "Wexford ledger?")["conversation_id"]}


BODIES: dict[tuple[str, str], Any] = {
    ("POST", "/api/items/records"): {"collection": "rel", "records": [
        {"id": "r1", "product": "Wexford", "version": "1", "notes": "written by a refused key"}]},
    ("POST", "/api/keys"): {"role": "admin"},
}


def _send(server: Server, key: str, method: str, path: str, targets: dict[str, str]) -> Any:
    url = re.sub(r"\{([^}]+)\}", lambda m: targets[m.group(1)], path)
    with server.client(key) as c:
        if (method, path) == ("POST", "/api/items"):
            return c.post(url, files={"file": ("refused.md", b"# Refused\n\nWritten by a refused key.\n",
                                               "text/markdown")})
        body = BODIES.get((method, path), {} if method == "POST" else None)
        return c.request(method, url, json=body)


BELOW = [(m, p, role) for (m, p), need in MIN_ROLE.items() if need in ROLES
         for role in ROLES[:ROLES.index(need)]]


@pytest.mark.parametrize(("method", "path", "role"), BELOW, ids=[f"{r} {m} {p}" for m, p, r in BELOW])
def test_attack_a_key_below_the_routes_role_is_refused_and_changes_nothing(
        server: Server, targets: dict[str, str], method: str, path: str, role: str) -> None:
    r = _send(server, server.key(role, TENANT), method, path, targets)
    assert r.status_code == 403, (r.status_code, r.text[:300])
    assert r.json()["error"]["details"]["required_role"] == MIN_ROLE[(method, path)]
    editor = server.client(server.key("editor", TENANT))
    assert editor.get(f"/api/items/{targets['item_id']}").status_code == 200  # not deleted
    assert editor.get(f"/api/jobs/{targets['job_id']}").json()["cancel_requested"] is False
    assert targets["key_id"] in {k["id"] for k in server.client(server.key("admin", TENANT)).get("/api/keys").json()}
    found = editor.post("/api/search", json={"query": "written by a refused key", "limit": 50}).json()["results"]
    assert not [h for h in found if "refused" in (h["snippet"] + h["title"]).casefold()], found  # nothing written
