"""A NUL character in any text a caller sends, on SQLite and Postgres: a 4xx or an answer, never a 500.

Postgres text cannot hold U+0000 (psycopg refuses the parameter), so a NUL that reaches a store query there
is a 500 where SQLite answers; search and filter values refuse it at the boundary (``query.filters``), and every
other route that passes caller text to the store must too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from .conftest import Server, backend_server, upload


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"nul-{request.param}")) as server:
        editor = server.client(server.key("editor", "nul"))
        assert upload(editor, "n.md", "# Numbat notes\n\nNumbats eat termites.\n").status_code == 200
        yield server


CALLS: dict[str, Callable[[httpx.Client], httpx.Response]] = {
    "preview": lambda c: c.get("/api/search/preview", params={"q": "num\x00bat"}),
    "item read": lambda c: c.get("/api/items/docs:n%00md"),
    "similar": lambda c: c.get("/api/items/docs:n%00md/similar"),
    "item delete": lambda c: c.delete("/api/items/docs:n%00md"),
    "feedback delete": lambda c: c.delete("/api/feedback/f%00b"),
    "feedback": lambda c: c.post("/api/feedback", json={"request_id": "r\x00", "item_id": "i\x00", "useful": True}),
    "browse": lambda c: c.get("/api/browse", params={"collection": "docs\x00"}),
    "trending": lambda c: c.get("/api/trending", params={"collection": "docs\x00"}),
    "chat": lambda c: c.post("/api/chat", json={"message": "num\x00bat?"}),
    "chat, assistant": lambda c: c.post("/api/chat", json={"message": "numbat?", "assistant": "a\x00"}),
    "records": lambda c: c.post("/api/items/records", json={"collection": "rel", "records": [
        {"id": "r\x00", "product": "P\x00", "version": "1", "notes": "numbat\x00 notes"}]}),
    "upload": lambda c: upload(c, "z.md", "# Zebra\x00 notes\n\nZebras\x00 run.\n"),
    "job": lambda c: c.get("/api/jobs/j%00"),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_a_nul_in_caller_text_is_never_a_500(served: Server, call: str) -> None:
    with served.client(served.key("editor", "nul")) as c:
        r = CALLS[call](c)
        assert r.status_code < 500, (call, r.status_code, r.text[:300])
        assert c.get("/api/search", params={"q": "numbat"}).status_code == 200  # still serving
