"""Attack on the ranking signal (round 4): one key is one voice, however many searches it marks.

The weighted profile lifts an item only once it has ``feedback_min_marks`` (2) marks — "one click is not evidence"
(``query.scoring.feedback_boost``). But a mark is per (key, request, item) and every search is a new request, so a
single viewer searching twice and marking twice lifted the item for its whole tenant, and fifty searches marked
"useful" outvoted five colleagues' "not useful". Each key now counts once per item, by its latest mark; marks
without a key to tell people apart (owner ``''``: from before owners, or every-tenant callers) count one each, as
before. Over the real app with real keys, on SQLite and on the real Postgres.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from .conftest import Server, backend_server, upload


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"weight-{request.param}")) as server:
        yield server


def _mark(client: httpx.Client, item_title: str, useful: bool, times: int = 1) -> str:
    item = ""
    for _ in range(times):
        body = client.post("/api/search", json={"query": "armillary sphere"}).json()
        item = next(r["item_id"] for r in body["results"] if r["title"] == item_title)
        r = client.post("/api/feedback", json={"request_id": body["diagnostics"]["request_id"], "item_id": item,
                                               "useful": useful})
        assert r.status_code == 201, r.text
    return item


def test_attack_one_key_marking_many_searches_is_one_voice(server: Server) -> None:
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    tenant = "weight-t"
    editor = server.client(server.key("editor", tenant))
    assert upload(editor, "armillary.md", "# Armillary sphere\n\nAn armillary sphere models the sky.\n"
                  ).status_code == 200
    booster = server.client(server.key("viewer", tenant))
    item = _mark(booster, "Armillary sphere", True, times=3)
    assert server.engine.feedback_stats(tenant, [item]) == {item: (1, 1)}  # below feedback_min_marks: no lift

    colleagues = [server.client(server.key("viewer", tenant)) for _ in range(2)]
    for colleague in colleagues:
        _mark(colleague, "Armillary sphere", False)
    _mark(booster, "Armillary sphere", True, times=5)  # piling on more searches changes nothing
    assert server.engine.feedback_stats(tenant, [item]) == {item: (1, 3)}

    _mark(booster, "Armillary sphere", False)  # a key's latest mark is its voice
    assert server.engine.feedback_stats(tenant, [item]) == {item: (0, 3)}
