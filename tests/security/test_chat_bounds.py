"""Oversized and malformed chat input over the real app: a clear 4xx, nothing stored, the server unharmed."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from groundsearch.types import MAX_QUERY_CHARS

from .conftest import Server


def _chunked(parts: list[bytes]):  # type: ignore[no-untyped-def]
    yield from parts


def test_attack_oversized_chat_bodies_are_refused_before_parsing(server: Server) -> None:
    """A body over ``api.max_body_bytes`` is a 413 whether it declares its length or streams chunks of unknown
    size; a message over the query limit is a 400 naming the field. No conversation is created by any of them."""
    limit = server.engine.settings.api.max_body_bytes
    key = server.key("viewer", "bounds")
    with server.client(key) as c:
        huge = b'{"message": "' + b"a" * (limit + 10) + b'", "conversation_id": "bounds-1"}'
        declared = c.post("/api/chat", content=huge, headers={"Content-Type": "application/json"})
        assert declared.status_code == 413 and declared.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
        chunked = c.post("/api/chat", content=_chunked([huge[i:i + 4096] for i in range(0, len(huge), 4096)]),
                         headers={"Content-Type": "application/json"})
        assert chunked.status_code == 413, chunked.text
        long = c.post("/api/chat", json={"message": "a" * (MAX_QUERY_CHARS + 1), "conversation_id": "bounds-1"})
        assert long.status_code == 400 and "message" in long.text
        assert c.get("/api/chat/bounds-1").status_code == 404
        assert c.post("/api/chat", json={"message": "still serving?"}).status_code == 200


@pytest.mark.parametrize("cid", ["../../etc/passwd", "a" * 65, "x y", "ä", "%2e%2e", "a/b"])
def test_attack_path_tricks_in_conversation_ids_are_400_or_404(server: Server, cid: str) -> None:
    """Ids are 1–64 of ``[A-Za-z0-9_-]``: anything else is refused in the body (400) and in the path (400, or
    404 where the router does not match), never looked up or stored."""
    with server.client(server.key("viewer", "bounds")) as c:
        made = c.post("/api/chat", json={"message": "hello", "conversation_id": cid})
        assert made.status_code == 400, made.text
        assert c.get(f"/api/chat/{cid}").status_code in (400, 404)
        assert c.delete(f"/api/chat/{cid}").status_code in (400, 404)


@pytest.mark.parametrize("cid", ["bounds-2\n", "bounds-2\r\n", "bounds-2\t", " bounds-2", "bounds-2 ",
                                 "a" * 65, "x y", "ä", "bounds\x002"])
def test_attack_conversation_ids_are_validated_exactly_at_the_boundary(server: Server, cid: str) -> None:
    """An id the router matches but the rule refuses is a 400 naming the field, in the path as in the body, and
    in the body it is refused rather than trimmed into another id. Before session 13 the check was ``re.match`` with ``$``, which
    also matches before a final newline: ``GET /api/chat/bounds-2%0A`` was looked up (a 404, a store read) instead
    of refused, and the body trimmed ``" bounds-2"`` into ``bounds-2`` and continued that conversation."""
    with server.client(server.key("viewer", "bounds")) as c:
        first = c.post("/api/chat", json={"message": "hello", "conversation_id": "bounds-2"})
        assert first.status_code == 200, first.text
        for r in (c.get(f"/api/chat/{quote(cid, safe='')}"), c.delete(f"/api/chat/{quote(cid, safe='')}"),
                  c.post("/api/chat", json={"message": "again", "conversation_id": cid})):
            assert r.status_code == 400, (r.request.method, r.status_code, r.text)
            assert "conversation_id" in str(r.json()["error"]["details"]), r.text
        assert c.get("/api/chat/bounds-2").json()["state"]["turns"] == 1  # nothing continued it
