"""Probe (session 8): unbounded shapes in the JSON bodies and page parameters of every route — no hole found.

JSON nested 20,000 levels (inside the 64 KiB body limit) on each route that takes JSON is a 400 naming the depth,
not a 500 from Python's parser; a search offset past its bound or negative is a 400; page sizes out of range are
clamped (documented), never run as asked. Each case fails if its bound goes.
"""

from __future__ import annotations

import httpx
import pytest

from .conftest import Server, upload

DEEP = ("{\"x\": " + "[" * 20_000 + "]" * 20_000 + "}").encode()


@pytest.fixture(scope="module")
def editor(server: Server) -> httpx.Client:
    c = server.client(server.key("editor", "unbounded"))
    assert upload(c, "u.md", "# Umbel survey\n\nUmbel notes one.\n\n## More\n\nUmbel notes two.\n").status_code == 200
    return c


@pytest.mark.parametrize("path", ["/api/search", "/api/chat", "/api/feedback", "/api/validate-urls",
                                  "/api/items/records", "/api/keys"])
def test_deep_json_is_a_400_naming_the_depth(editor: httpx.Client, path: str) -> None:
    r = editor.post(path, content=DEEP, headers={"content-type": "application/json"})
    if path == "/api/keys":  # admin only: refused before the body is read
        assert r.status_code == 403, r.text[:200]
        return
    assert r.status_code == 400, r.text[:200]
    assert "nested too deeply" in r.json()["error"]["message"]


@pytest.mark.parametrize("offset", [10**9, -5])
def test_a_search_offset_out_of_bounds_is_a_400(editor: httpx.Client, offset: int) -> None:
    r = editor.post("/api/search", json={"query": "umbel", "offset": offset})
    assert r.status_code == 400, r.text[:200]
    assert any(f["field"].endswith("offset") for f in r.json()["error"]["details"]["fields"])


@pytest.mark.parametrize(("path", "params", "key"), [
    ("/api/browse", {"limit": 10**9}, "items"),
    ("/api/search/preview", {"q": "umb", "limit": 10**9}, "items"),
])
def test_a_huge_page_size_is_clamped(editor: httpx.Client, path: str, params: dict[str, int], key: str) -> None:
    r = editor.get(path, params=params)
    assert r.status_code == 200, r.text[:200]
    assert 1 <= len(r.json()[key]) <= 100
