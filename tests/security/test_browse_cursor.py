"""Forged browse cursors over the real app: a cursor is the caller's input, so a bad one is a 400, never a 500,
and no cursor moves a page outside the caller's tenant."""

from __future__ import annotations

import base64
import json

import pytest

from .conftest import Server, upload


def _cursor(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


FORGED = {
    "deep nesting": _cursor(b"[" * 1400),
    "deep nesting inside the key": _cursor(b'["date","2026-01-01",[' + b"[" * 1300 + b"]"),
    "an object": _cursor(b'{"a":1,"b":2,"c":3}'),
    "not base64": "%%%%",
    "wrong sort": _cursor(json.dumps(["quality", "2026-01-01", [0, "x"]]).encode()),
}


@pytest.mark.parametrize("name", list(FORGED))
def test_attack_a_forged_cursor_is_a_clear_400(server: Server, name: str) -> None:
    """Before the fix a cursor nesting JSON arrays past Python's recursion limit escaped as a 500 INTERNAL."""
    with server.client(server.key("viewer", "cursor-a")) as c:
        r = c.get("/api/browse", params={"cursor": FORGED[name]})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["details"].get("field") == "cursor"


def test_attack_a_cursor_from_another_tenant_pages_only_the_callers_items(server: Server) -> None:
    editor_a, editor_b = (server.client(server.key("editor", t)) for t in ("cursor-a", "cursor-b"))
    for i in range(3):
        assert upload(editor_a, f"a{i}.md", f"# Alpha note {i}\n\nAlpha {i}.\n").status_code == 200
        assert upload(editor_b, f"b{i}.md", f"# Bravo note {i}\n\nBravo {i}.\n").status_code == 200
    with server.client(server.key("viewer", "cursor-b")) as b, server.client(server.key("viewer", "cursor-a")) as a:
        first = b.get("/api/browse", params={"limit": 1}).json()
        assert first["next_cursor"]
        # B's cursor replayed by A: it can only position A's own page
        page = a.get("/api/browse", params={"limit": 50, "cursor": first["next_cursor"]})
        assert page.status_code == 200
        assert all(item["title"].startswith("Alpha") for item in page.json()["items"]), page.json()
