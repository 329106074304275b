"""Revoking a key when its feedback marks cannot be deleted: the key is revoked, and the caller is told what is left.

Revoking deletes the key's marks (test_feedback_revoked.py). When that second step failed — the telemetry
database locked by another process past its busy timeout, a Postgres that went away — ``DELETE /api/keys/{id}``
answered 500 although the key was already revoked, and ``groundsearch keys revoke`` printed "the database is
damaged or unreadable; restore it from a backup" and exited 4. Either way the operator was told the revoke had
failed, and retrying it was a 404. Now the revoke stands (telemetry trouble must never keep a leaked key alive)
and both report that the marks are still there and that ``keys purge-conversations --yes`` deletes them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import httpx
import pytest
from click.testing import CliRunner

from groundsearch.interfaces.cli import main
from groundsearch.store.sqlite_telemetry import FILE_NAME

from .conftest import Server, backend_server, upload


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(None, tmp_path_factory.mktemp("revoke-marks")) as server:
        yield server


def _marked(server: Server, tenant: str) -> tuple[str, str, str]:
    """A viewer key of ``tenant`` that marked an item useful: (key id, key, item id)."""
    editor = server.client(server.key("editor", tenant))
    assert upload(editor, "orrery.md", "# Orrery gears\n\nOrrery gears mesh slowly.\n").status_code == 200
    record, key = server.keys.create("viewer", tenant=tenant)
    viewer = server.client(key)
    body = viewer.post("/api/search", json={"query": "orrery gears"}).json()
    item = body["results"][0]["item_id"]
    r = viewer.post("/api/feedback", json={"request_id": body["diagnostics"]["request_id"], "item_id": item,
                                           "useful": True})
    assert r.status_code == 201, r.text
    assert server.engine.feedback_stats(tenant, [item]) == {item: (1, 1)}
    return record.id, key, item


def _locked(server: Server) -> sqlite3.Connection:
    """Another process holding the telemetry database's write lock (a long purge, a backup)."""
    conn = sqlite3.connect(server.engine.settings.data_dir / "store" / FILE_NAME, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    return conn


def _cli(server: Server, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--config", str(server.tmp / "groundsearch.toml"), "--data-dir",
                                       str(server.engine.settings.data_dir), "keys", *args],
                                env={"GROUNDSEARCH_KEYS_FILE": str(server.keys.path)})
    return result.exit_code, result.output


def _purged(server: Server, tenant: str, item: str, key: str) -> None:
    assert httpx.get(f"{server.url}/api/keys", headers={"Authorization": f"Bearer {key}"}).status_code == 401
    assert server.engine.feedback_stats(tenant, [item]) == {item: (1, 1)}  # left behind, as reported
    code, out = _cli(server, "purge-conversations", "--yes")
    assert code == 0 and "deleted: 1 feedback mark(s)" in out, out
    assert server.engine.feedback_stats(tenant, [item]) == {}


def test_revoking_over_http_when_the_marks_cannot_be_deleted_revokes_and_says_so(server: Server) -> None:
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    tenant = "marks-fail-http"
    key_id, key, item = _marked(server, tenant)
    admin = server.client(server.key("admin", tenant))
    lock = _locked(server)
    try:
        r = admin.delete(f"/api/keys/{key_id}")
    finally:
        lock.rollback()
        lock.close()
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["id"] == key_id and body["revoked"] is True and body["feedback_marks_deleted"] is False
    assert "purge-conversations --yes" in body["message"]
    _purged(server, tenant, item, key)


def test_revoking_with_the_cli_when_the_marks_cannot_be_deleted_revokes_and_says_so(server: Server) -> None:
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    tenant = "marks-fail-cli"
    key_id, key, item = _marked(server, tenant)
    lock = _locked(server)
    try:
        code, out = _cli(server, "revoke", key_id)
    finally:
        lock.rollback()
        lock.close()
    assert code == 1, out
    assert f"revoked {key_id}" in out and "purge-conversations --yes" in out and "damaged" not in out, out
    _purged(server, tenant, item, key)


def test_the_lock_is_what_fails_the_deletion(server: Server) -> None:
    """The failure above is real: with the lock held, deleting marks raises (so the tests above test it)."""
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    lock = _locked(server)
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            server.engine.forget_feedback_owner("marks-fail-none", "0123456789ab")
    finally:
        lock.rollback()
        lock.close()
