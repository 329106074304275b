"""Probes (session 13) that held: body limits on every route that takes a body, and path tricks on the static
mounts. Each case fails if its bound goes; new routes are covered as they are added (the routes are listed from
the app, not from this file)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from groundsearch.interfaces.api.routes_items import UPLOAD_MAX_BYTES

from .conftest import Server


def _chunks(head: bytes, total: int, size: int = 1 << 20) -> Iterator[bytes]:
    """``head``, then spaces to ``total`` bytes, in chunks: a body of no declared length."""
    yield head
    sent = len(head)
    while sent < total:
        part = min(size, total - sent)
        sent += part
        yield b" " * part


MULTIPART = (b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\n'
             b"Content-Type: text/markdown\r\n\r\n")


@pytest.fixture(scope="module")
def routes(server: Server) -> list[tuple[str, str, bool]]:
    import httpx

    spec = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    found = [(method.upper(), path, "requestBody" in op) for path, ops in spec["paths"].items()
             for method, op in ops.items() if method in ("post", "put", "patch", "delete")]
    assert ("POST", "/api/search", True) in found and ("POST", "/api/items", True) in found  # the listing works
    return found


def test_every_route_refuses_a_body_over_its_limit(server: Server, routes: list[tuple[str, str, bool]]) -> None:
    """A declared (Content-Length) body past ``api.max_body_bytes`` — past 32 MiB for ``POST /api/items`` — is a
    413 ``PAYLOAD_TOO_LARGE`` on every POST/PUT/PATCH/DELETE route, and so is a streamed one (chunked, no length)
    on every route that takes a body; a route without one answers without reading it. The key is an admin's,
    so no role check answers first, and the budget is never the reason."""
    limit = server.engine.settings.api.max_body_bytes
    admin = server.client(server.key("admin", "probe13"))
    for method, template, takes_body in routes:
        path = template.replace("{conversation_id}", "c1").replace("{item_id}", "rel:x").replace(
            "{feedback_id}", "f1").replace("{job_id}", "j1").replace("{key_id}", "k1").replace("{item_id:path}", "x")
        cap = UPLOAD_MAX_BYTES if path == "/api/items" else limit
        upload = path == "/api/items"
        headers = {"Content-Type": "multipart/form-data; boundary=b" if upload else "application/json"}
        head = MULTIPART if upload else b"{"
        declared = admin.request(method, path, content=head + b" " * cap, headers=headers)
        assert declared.status_code == 413, (method, path, declared.status_code, declared.text[:200])
        if takes_body:
            streamed = admin.request(method, path, content=_chunks(head, cap + 2), headers=headers)
            assert streamed.status_code == 413, (method, path, streamed.status_code, streamed.text[:200])
            assert streamed.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"


@pytest.mark.parametrize("path", ["/static/..%2f..%2f..%2fpyproject.toml", "/static/%2e%2e/%2e%2e/settings.py",
                                  "/static/..%5c..%5cengine.py", "/docs/assets/..%2f..%2fsecurity.md",
                                  "/static/%252e%252e%252fapp.py", "/static//etc/passwd"])
def test_static_mounts_serve_nothing_outside_their_folder(server: Server, path: str) -> None:
    import httpx

    with httpx.Client(base_url=server.url, timeout=30) as c:
        r = c.send(c.build_request("GET", path))
    assert r.status_code in (400, 404), (path, r.status_code, r.text[:200])
    assert "groundsearch" not in r.text.lower() or r.headers.get("content-type", "").startswith("application/json")
