"""Attacks on conversation ownership inside one tenant, over the real app (HTTP, real keys), on SQLite and on the
real Postgres the suite starts; and on conversations stored before scopes and owners existed.

A conversation holds what its author's retrieval saw: an editor's dossier can quote the tenant's drafts, and its
turns are what that person asked. A user of a multi-user deployment expects a conversation to be private to the
key that started it — another key of the same tenant (a viewer, or another editor) gets the same 404 as for an
unknown id, and a turn it sends with that id starts its own conversation, leaving the author's untouched.
Operators (every-tenant callers: the operator key, local mode, the CLI) share the reserved scope ``*``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from tests.api.live import serve

from .conftest import Server, backend_server, chat, on_postgres, open_engine, upload


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"owner-{request.param}")) as server:
        yield server


def test_attack_a_viewer_cannot_read_continue_or_delete_an_editors_conversation(server: Server) -> None:
    """The editor asked with drafts in its tenant's store; the viewer of the same tenant learns the id (a shared
    screen, a log line). Before owners the viewer read the turns whole, continued the conversation with the
    editor's history in the prompt, and could delete it."""
    editor = server.client(server.key("editor", "own-t"))
    assert upload(editor, "layoffs.md", "# Quillfeather layoffs\n\nThe quillfeather layoffs affect 140 people "
                                        "in March.\n").status_code == 200
    made = chat(editor, "what do we know about the quillfeather layoffs?", conversation_id="hr-private")
    assert any("quillfeather" in s["text"].lower() for s in made["dossier"]["sources"])

    viewer = server.client(server.key("viewer", "own-t"))
    assert viewer.get("/api/chat/hr-private").status_code == 404
    assert viewer.delete("/api/chat/hr-private").status_code == 404
    continued = chat(viewer, "and what did I ask before?", conversation_id="hr-private")
    assert continued["turn"] == 1  # its own new conversation under the same id: nothing of the editor's
    assert "quillfeather layoffs?" not in str(continued).lower()

    own = editor.get("/api/chat/hr-private")
    assert own.status_code == 200
    assert [t["user"] for t in own.json()["turns"]] == ["what do we know about the quillfeather layoffs?"]
    assert own.json()["state"]["turns"] == 1  # the viewer's turn did not overwrite the editor's state
    assert viewer.get("/api/chat/hr-private").json()["turns"][0]["user"] == "and what did I ask before?"


def test_attack_another_editor_and_the_tenant_admin_cannot_read_it_either(server: Server) -> None:
    """Privacy is per key, not per role: a second editor and the tenant's admin get 404 too, and deleting
    through them leaves the author's conversation in place."""
    author = server.client(server.key("editor", "own-u"))
    chat(author, "notes on my review", conversation_id="mine-only")
    for other in (server.client(server.key("editor", "own-u")), server.client(server.key("admin", "own-u"))):
        assert other.get("/api/chat/mine-only").status_code == 404
        assert other.delete("/api/chat/mine-only").status_code == 404
    assert author.get("/api/chat/mine-only").status_code == 200
    assert author.delete("/api/chat/mine-only").status_code == 204
    assert author.get("/api/chat/mine-only").status_code == 404


def test_operators_share_the_all_tenants_scope(server: Server) -> None:
    """Operators excepted: one operator key reads and continues another operator's conversation (both run as
    every tenant, under the reserved scope), and no tenant key reaches it."""
    first = server.client(server.key("admin", "", all_tenants=True))
    chat(first, "operator audit notes", conversation_id="ops-shared")
    second = server.client(server.key("admin", "", all_tenants=True))
    got = second.get("/api/chat/ops-shared")
    assert got.status_code == 200 and got.json()["turns"][0]["user"] == "operator audit notes"
    assert chat(second, "continue", conversation_id="ops-shared")["turn"] == 2
    assert server.client(server.key("admin", "")).get("/api/chat/ops-shared").status_code == 404


# ---- conversations stored before owners and the reserved scope existed ---------------------------------------

_OLD_SQLITE = """
CREATE TABLE conversations (tenant TEXT NOT NULL, id TEXT NOT NULL, assistant TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT '{}', created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (tenant, id));
CREATE TABLE conversation_turns (tenant TEXT NOT NULL, conversation_id TEXT NOT NULL, seq INTEGER NOT NULL,
    user_text TEXT NOT NULL, reply TEXT NOT NULL, assistant TEXT NOT NULL, dossier TEXT NOT NULL DEFAULT '{}',
    audit TEXT NOT NULL DEFAULT '{}', tools TEXT NOT NULL DEFAULT '[]', created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, conversation_id, seq));
"""
_NOW = "2026-11-30T10:00:00+00:00"


def _plant_old(execute) -> None:  # type: ignore[no-untyped-def]
    """A local-mode conversation of the old layout (under ``''``, searched every tenant), one tenant-key one,
    and an operator one under ``*`` whose id collides with a ``''`` one."""
    for tenant, cid, user in (("", "local-old", "every tenant's secret plan"), ("acme", "acme-old", "acme notes"),
                              ("*", "clash", "operator clash"), ("", "clash", "local clash")):
        execute("INSERT INTO conversations (tenant, id, assistant, state, created_at, updated_at) "
                "VALUES (?, ?, 'default', '{\"turns\": 1}', ?, ?)", (tenant, cid, _NOW, _NOW))
        execute("INSERT INTO conversation_turns (tenant, conversation_id, seq, user_text, reply, assistant, "
                "created_at) VALUES (?, ?, 1, ?, 'r', 'default', ?)", (tenant, cid, user, _NOW))


def _legacy_is_out_of_reach(server: Server) -> None:
    for tenant in ("", "acme"):
        for role in ("viewer", "admin"):
            client = server.client(server.key(role, tenant))
            for cid in ("local-old", "acme-old", "clash"):
                assert client.get(f"/api/chat/{cid}").status_code == 404, (tenant, role, cid)
    operator = server.client(server.key("admin", "", all_tenants=True))
    local = operator.get("/api/chat/local-old")
    assert local.status_code == 200 and local.json()["turns"][0]["user"] == "every tenant's secret plan"
    assert operator.get("/api/chat/clash").json()["turns"][0]["user"] == "operator clash"


def test_attack_an_old_local_mode_conversation_is_out_of_a_default_tenant_keys_reach_sqlite(
        tmp_path: Path) -> None:
    """A store written before the reserved scope: local-mode conversations sit under ``''``. After the upgrade
    no default-tenant key — viewer or admin — reads them; the operator does. Before the migration a
    default-tenant viewer read ``local-old`` whole."""
    engine = open_engine(tmp_path)
    db = engine.settings.data_dir / "store" / "store.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.executescript(_OLD_SQLITE)
        _plant_old(conn.execute)
    keys = KeyStore(tmp_path / "keys.json")
    with engine, serve(create_app(engine, engine.settings, keys=keys)) as url:
        _legacy_is_out_of_reach(Server(url, engine, keys, tmp_path))


def test_attack_an_old_local_mode_conversation_is_out_of_a_default_tenant_keys_reach_postgres(
        tmp_path: Path, postgres_database) -> None:  # type: ignore[no-untyped-def]
    """The same on Postgres: rows written at schema version 5 (before migration 0006), then the store opened."""
    import psycopg

    from groundsearch.store import pg_migrations
    dsn = postgres_database()
    old = [m for m in pg_migrations.known_migrations() if m.version <= 5]
    original = pg_migrations.known_migrations
    pg_migrations.known_migrations = lambda: old  # type: ignore[assignment]
    try:
        pg_migrations.apply_migrations(dsn)
    finally:
        pg_migrations.known_migrations = original  # type: ignore[assignment]
    with psycopg.connect(dsn, autocommit=True) as conn:
        _plant_old(lambda sql, params: conn.execute(sql.replace("?", "%s"), params))
    engine = on_postgres(open_engine(tmp_path), dsn)
    keys = KeyStore(tmp_path / "keys.json")
    with engine, serve(create_app(engine, engine.settings, keys=keys)) as url:
        _legacy_is_out_of_reach(Server(url, engine, keys, tmp_path))


def test_an_operator_key_cannot_read_or_delete_a_tenant_keys_conversation_by_id(server: Server) -> None:
    """The decision for operators (docs/security.md): a conversation is its author's, the operator's included.
    The operator reads every tenant's *items*, but a person's conversation is what they asked; the API is no
    support console. The operator key gets the same 404 as for an unknown id, cannot delete it, and a turn it sends
    with that id starts the operator's own conversation (turn 1) and leaves the author's untouched. What an
    operator gets instead is the purge of unreachable conversations (``test_chat_purge.py``), which reads counts,
    never content."""
    author = server.client(server.key("editor", "own-op"))
    chat(author, "my private review of the vendor", conversation_id="not-the-operators")
    operator = server.client(server.key("admin", "", all_tenants=True))
    assert operator.get("/api/chat/not-the-operators").status_code == 404
    assert operator.delete("/api/chat/not-the-operators").status_code == 404
    assert chat(operator, "show me that review", conversation_id="not-the-operators")["turn"] == 1
    mine = author.get("/api/chat/not-the-operators").json()["turns"]
    assert [t["user"] for t in mine] == ["my private review of the vendor"]
