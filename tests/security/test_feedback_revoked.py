"""Attack on the ranking signal (round 4): a revoked key's feedback marks must stop counting.

The weighted profile lifts an item by the tenant's marks on it (``Engine.feedback_stats``). Before this round a
revoked key's marks stayed in that count for ever: a key that marked its favourite item on many requests, then
was revoked (a leaver, a leaked key, an admin rotating keys to mint fresh ones), kept steering every colleague's
ranking with nobody able to remove its marks (a mark belongs to its key, and the key was gone). Revoking — over
HTTP or with ``groundsearch keys revoke`` — now deletes the key's marks with it. On SQLite and the real Postgres.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from click.testing import CliRunner

from groundsearch.interfaces.cli import main

from .conftest import Server, backend_server, upload


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"revoked-{request.param}")) as server:
        yield server


def _mark(client: httpx.Client, query: str, title: str, times: int) -> str:
    """``times`` searches for ``query``, each marking ``title``'s item useful; returns the item id."""
    item = ""
    for _ in range(times):
        body = client.post("/api/search", json={"query": query}).json()
        item = next(r["item_id"] for r in body["results"] if r["title"] == title)
        r = client.post("/api/feedback", json={"request_id": body["diagnostics"]["request_id"], "item_id": item,
                                               "useful": True})
        assert r.status_code == 201, r.text
    return item


def _cli(server: Server, *args: str) -> str:
    env = {"GROUNDSEARCH_DATABASE_URL": server.engine.settings.database_url or "",
           "GROUNDSEARCH_KEYS_FILE": str(server.keys.path)}
    result = CliRunner().invoke(main, ["--config", str(server.tmp / "groundsearch.toml"), "--data-dir",
                                       str(server.engine.settings.data_dir), "keys", *args],
                                env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("how", ["http", "cli"])
def test_attack_a_revoked_keys_marks_stop_counting(server: Server, how: str) -> None:
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    tenant = f"revoked-{how}"
    editor = server.client(server.key("editor", tenant))
    assert upload(editor, "astrolabe.md", "# Astrolabe repair\n\nAstrolabe repair needs a steady hand.\n"
                  ).status_code == 200
    admin = server.client(server.key("admin", tenant))
    made = admin.post("/api/keys", json={"role": "viewer", "label": "leaver"})
    assert made.status_code == 201, made.text
    leaver = server.client(made.json()["key"])
    stays = server.client(server.key("viewer", tenant))
    item = _mark(leaver, "astrolabe repair", "Astrolabe repair", 3)
    _mark(stays, "astrolabe repair", "Astrolabe repair", 1)
    assert server.engine.feedback_stats(tenant, [item]) == {item: (2, 2)}  # two keys, one voice each

    if how == "http":
        assert admin.delete(f"/api/keys/{made.json()['id']}").status_code == 204
    else:
        _cli(server, "revoke", made.json()["id"])
    assert leaver.post("/api/search", json={"query": "astrolabe"}).status_code == 401
    assert server.engine.feedback_stats(tenant, [item]) == {item: (1, 1)}  # the live colleague's mark stays


def test_the_purge_takes_marks_of_keys_revoked_before_and_nothing_else(server: Server) -> None:
    """Marks left by a key revoked before revoking deleted them (planted under an owner no key has) go with
    ``keys purge-conversations --yes``; a live key's marks and the marks from before owners (``''``) stay."""
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    tenant = "revoked-purge"
    editor = server.client(server.key("editor", tenant))
    assert upload(editor, "sextant.md", "# Sextant sighting\n\nA sextant sighting at noon.\n").status_code == 200
    live = server.keys.create("viewer", tenant=tenant)
    item = _mark(server.client(live[1]), "sextant sighting", "Sextant sighting", 1)
    telemetry = server.engine.recorder.store
    for owner in ("0123456789ab", ""):  # a key id that is no longer in the keys file; a mark from before owners
        telemetry.put_feedback(tenant, f"old-{owner or 'blank'}", item, True, owner=owner)
    assert server.engine.feedback_stats(tenant, [item]) == {item: (3, 3)}

    listed = _cli(server, "purge-conversations")  # a dry run lists and deletes nothing
    assert "key 0123456789ab\t1 feedback mark(s)" in listed and live[0].id not in listed
    assert server.engine.feedback_stats(tenant, [item]) == {item: (3, 3)}
    assert "deleted: 1 feedback mark(s)" in _cli(server, "purge-conversations", "--yes")
    assert server.engine.feedback_stats(tenant, [item]) == {item: (2, 2)}
    assert (tenant, "0123456789ab") not in {(t, o) for t, o, _ in telemetry.feedback_owners()}
