"""Attack on search diagnostics (round 4): ``diagnostics.vectors_pending`` must count the caller's chunks only.

Under ``groundsearch serve`` an upload is written text-first and embedded by a background thread, and every
search reported how many chunks still wait for a vector — of the whole store. Tenant B polling searches saw the
number jump by 37 the moment tenant A uploaded a 37-chunk file, drafts included: the same disclosure the health
endpoint's store-wide counts made (``test_health_disclosure.py``). It now counts the chunks the search's own
filter admits (tenant, status). On SQLite and the real Postgres.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import Server, backend_server


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"pending-{request.param}")) as server:
        yield server


def _pending(client: httpx.Client) -> int | None:
    r = client.post("/api/search", json={"query": "orrery gear train"})
    assert r.status_code == 200, r.text
    return r.json()["diagnostics"]["vectors_pending"]


def _deferred(server: Server, tenant: str, name: str, text: str) -> None:
    """What ``serve`` does with an upload: the text now, the vectors later (its background embedder)."""
    path = server.tmp / tenant / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert server.engine.ingest([path], "docs", tenant=tenant, defer_embedding=True).added == 1


def test_attack_another_tenants_pending_upload_is_not_counted(server: Server, tmp_path: Path) -> None:
    other = server.client(server.key("viewer", "pending-b"))
    own_viewer = server.client(server.key("viewer", "pending-a"))
    own_editor = server.client(server.key("editor", "pending-a"))
    assert _pending(other) == 0
    body = "\n\n".join(f"Orrery gear train step {i}: the brass wheel turns once a year." * 8 for i in range(30))
    _deferred(server, "pending-a", "orrery.md", f"# Orrery\n\n{body}\n")
    _deferred(server, "pending-a", "draft.md", f"---\nstatus: draft\n---\n# Draft orrery\n\n{body}\n")
    try:
        waiting = server.engine.store.count_pending_vectors()
        assert waiting > 2  # both files wait for their vectors
        assert _pending(other) == 0  # nothing of B's waits
        published = _pending(own_viewer)
        assert published is not None and 0 < published < waiting  # A's published file, never its draft
        assert own_editor.post("/api/search", json={"query": "orrery", "include_drafts": True}
                               ).json()["diagnostics"]["vectors_pending"] == waiting
    finally:
        server.engine.embed_pending()
    assert _pending(own_viewer) == 0
