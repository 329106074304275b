"""Attacks on feedback marks inside one tenant: a mark belongs to the key that made it.

A second key of the same tenant that learns a request id or a mark id (a shared screen, a log line) must not
replace or remove the first key's mark: over the real app (HTTP, real keys) on SQLite and on the real Postgres the
suite starts, and on the store contract of both backends. Every mark still counts in the tenant's ranking signal.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import Server, backend_server, upload


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"marks-{request.param}")) as server:
        yield server


def _searched(client: httpx.Client, query: str, title: str) -> tuple[str, str]:
    found = client.post("/api/search", json={"query": query})
    assert found.status_code == 200, found.text
    body = found.json()
    return body["diagnostics"]["request_id"], next(r["item_id"] for r in body["results"] if r["title"] == title)


def test_attack_another_key_of_the_tenant_cannot_replace_or_delete_a_mark(server: Server) -> None:
    """Before owners, key 2 posting key 1's request and item got back key 1's mark id with ``useful`` flipped,
    and deleting that id removed key 1's mark."""
    if server.engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    editor = server.client(server.key("editor", "marks-t"))
    assert upload(editor, "orrery.md", "# Orrery calibration\n\nOrrery calibration drifts in winter.\n"
                  ).status_code == 200
    first, second = server.client(server.key("viewer", "marks-t")), server.client(server.key("viewer", "marks-t"))
    rid, item = _searched(first, "orrery calibration", "Orrery calibration")
    mine = first.post("/api/feedback", json={"request_id": rid, "item_id": item, "useful": True})
    assert mine.status_code == 201, mine.text
    mark_id = mine.json()["id"]

    replayed = second.post("/api/feedback", json={"request_id": rid, "item_id": item, "useful": False})
    assert replayed.status_code == 201  # a mark of its own on a request of its tenant ...
    assert replayed.json()["id"] != mark_id  # ... never key 1's mark
    assert second.delete(f"/api/feedback/{mark_id}").status_code == 404  # as for an unknown id
    # both marks stand, and both count in the tenant's ranking signal: key 1's useful one, key 2's not useful one
    assert server.engine.feedback_stats("marks-t", [item]) == {item: (1, 2)}

    again = first.post("/api/feedback", json={"request_id": rid, "item_id": item, "useful": True})
    assert again.json()["id"] == mark_id  # key 1 still replaces its own mark
    assert first.delete(f"/api/feedback/{replayed.json()['id']}").status_code == 404
    assert first.delete(f"/api/feedback/{mark_id}").status_code == 204
    assert server.engine.feedback_stats("marks-t", [item]) == {item: (0, 1)}  # key 2's mark is untouched
    assert second.delete(f"/api/feedback/{replayed.json()['id']}").status_code == 204


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_attack_the_store_keeps_marks_per_owner(backend: str, request: pytest.FixtureRequest,
                                                tmp_path: Path) -> None:
    if backend == "sqlite":
        from groundsearch.store.sqlite_telemetry import SQLiteTelemetry

        store = SQLiteTelemetry.open(tmp_path / "telemetry.sqlite")
    else:
        from groundsearch.store.pg_telemetry import PgTelemetry

        store = PgTelemetry.open(request.getfixturevalue("postgres_database")())
    try:
        one = store.put_feedback("acme", "r1", "docs:a", True, owner="key-1")
        two = store.put_feedback("acme", "r1", "docs:a", False, owner="key-2")
        assert two.id != one.id
        assert store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (1, 2)}  # the tenant's signal: every mark
        assert not store.delete_feedback("acme", one.id, owner="key-2")
        assert not store.delete_feedback("acme", one.id, owner="")  # '' (old rows, operators) is an owner too
        assert store.put_feedback("acme", "r1", "docs:a", True, owner="key-1").id == one.id
        assert store.delete_feedback("acme", one.id, owner="key-1")
        assert store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (0, 1)}
    finally:
        store.close()


# ---- marks stored before owners existed -----------------------------------------------------------------------

_OLD_SQLITE = """
CREATE TABLE feedback (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, request_id TEXT NOT NULL, item_id TEXT NOT NULL,
    useful INTEGER NOT NULL, created_at REAL NOT NULL, UNIQUE (tenant, request_id, item_id));
CREATE INDEX feedback_item ON feedback (tenant, item_id);
"""


def _plant_old(execute) -> None:  # type: ignore[no-untyped-def]
    for fid, useful in (("old-1", True), ("old-2", False)):
        execute("INSERT INTO feedback (id, tenant, request_id, item_id, useful, created_at) "
                "VALUES (?, 'acme', ?, 'docs:a', ?, 1764583200)", (fid, f"r-{fid}", useful))


def _old_marks_are_owner_blank(store) -> None:  # type: ignore[no-untyped-def]
    """Old marks still count for the tenant, no key's owner reaches them, and an every-tenant caller (owner '')
    may still remove them."""
    assert store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (1, 2)}
    assert not store.delete_feedback("acme", "old-1", owner="key-1")
    replayed = store.put_feedback("acme", "r-old-1", "docs:a", False, owner="key-1")  # a key's own new mark
    assert replayed.id != "old-1" and store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (1, 3)}
    assert store.put_feedback("acme", "r-old-1", "docs:a", True, owner="").id == "old-1"
    assert store.delete_feedback("acme", "old-2", owner="")
    assert store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (1, 2)}


def test_attack_old_sqlite_marks_move_to_owner_blank(tmp_path: Path) -> None:
    import sqlite3

    from groundsearch.store.sqlite_telemetry import SQLiteTelemetry

    path = tmp_path / "telemetry.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(_OLD_SQLITE)
        _plant_old(conn.execute)
    store = SQLiteTelemetry.open(path)
    try:
        _old_marks_are_owner_blank(store)
    finally:
        store.close()
    SQLiteTelemetry.open(path).close()  # opening a rebuilt file again changes nothing


def test_attack_old_postgres_marks_move_to_owner_blank(postgres_database, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
                                                       ) -> None:
    """Rows written at schema version 7 (before migration 0008), then the telemetry store opened."""
    import psycopg

    from groundsearch.store import pg_migrations
    from groundsearch.store.pg_telemetry import PgTelemetry

    dsn = postgres_database()
    old = [m for m in pg_migrations.known_migrations() if m.version <= 7]
    with monkeypatch.context() as patched:
        patched.setattr(pg_migrations, "known_migrations", lambda: old)
        pg_migrations.apply_migrations(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        _plant_old(lambda sql, params: conn.execute(sql.replace("?", "%s").replace("1764583200", "now()"), params))
    store = PgTelemetry.open(dsn)
    try:
        _old_marks_are_owner_blank(store)
    finally:
        store.close()
