"""Learning what another tenant searches, or what a draft says, through popular topics
(``/api/search/suggestions``), on SQLite and on the real Postgres (items and telemetry both there).

Popular topics are the caller's tenant's most searched terms that are words of its own published corpus. The
attacks: tenant A searches a name that tenant B's published corpus also holds (B must not see A's interest);
an editor of B searches a name that only B's draft holds (B's viewers must not learn it).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


from .conftest import Server, backend_server, upload


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"popular-{request.param}")) as server:
        if server.engine.recorder is None:
            pytest.skip("telemetry is off in this configuration")
        yield server


def test_attack_another_tenants_searches_and_a_drafts_names_stay_out_of_popular_topics(server: Server) -> None:
    editor_b = server.client(server.key("editor", "pop-b"))
    assert upload(editor_b, "reef.md", "# Reef survey\n\nDivers meet Quillback and Lingcod on the reef. "
                                       "Divers log Quillback and Lingcod at dawn.\n").status_code == 200
    draft = editor_b.post("/api/items", files={"file": ("plan.md", b"---\nstatus: draft\n---\n# Merger plan\n\n"
                                                         b"Divers meet Vantablack and Lingcod on the reef. Divers "
                                                         b"log Vantablack and Lingcod at dawn.\n",
                                                         "text/markdown")})
    assert draft.status_code == 200, draft.text
    tenant_a = server.client(server.key("viewer", "pop-a"))
    for _ in range(5):
        assert tenant_a.post("/api/search", json={"query": "quillback"}).status_code == 200
    for _ in range(5):
        assert editor_b.post("/api/search", json={"query": "vantablack", "include_drafts": True}
                             ).status_code == 200
    viewer_b = server.client(server.key("viewer", "pop-b"))
    assert viewer_b.post("/api/search", json={"query": "lingcod"}).status_code == 200
    popular = viewer_b.get("/api/search/suggestions", params={"limit": 20})
    assert popular.status_code == 200
    names = [s.casefold() for s in popular.json()["suggestions"]]
    assert "lingcod" in names  # B's own search is there: the list is the searched terms, not the cold start
    assert "quillback" not in names and "vantablack" not in names, names
