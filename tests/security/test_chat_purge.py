"""The purge of conversations no key reaches (``groundsearch keys purge-conversations``), through the real CLI
against the store a running app writes (SQLite file; the real Postgres), with keys made and revoked over HTTP.

Before the purge existed a revoked key's conversations — its dossiers quoting drafts, what that person asked —
stayed stored for ever with nobody able to read or delete them. The purge must take exactly those and nothing
else: live keys', operators' and the MCP tool's conversations stay readable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.interfaces.cli import main
from groundsearch.scope import ALL_TENANTS_SCOPE, MCP_OWNER
from groundsearch.store.chat_base import StoredTurn
from tests.api.live import serve

from .conftest import Server, chat, on_postgres, open_engine


@pytest.fixture(params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    engine = open_engine(tmp_path)
    if request.param == "postgres":
        engine = on_postgres(engine, request.getfixturevalue("postgres_database")())
    keys = KeyStore(engine.settings.data_dir / "api-keys.json")  # where the CLI looks for the server's keys
    with engine, serve(create_app(engine, engine.settings, keys=keys)) as url:
        yield Server(url, engine, keys, tmp_path)


def purge(server: Server, *args: str) -> tuple[str, str]:
    env = {"GROUNDSEARCH_DATABASE_URL": server.engine.settings.database_url or ""}
    result = CliRunner().invoke(main, ["--config", str(server.tmp / "groundsearch.toml"), "--data-dir",
                                       str(server.engine.settings.data_dir), "keys", "purge-conversations", *args],
                                env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_a_revoked_keys_conversations_are_purged_and_nothing_else(server: Server) -> None:
    admin_key = server.key("admin", "purge-t")
    admin = server.client(admin_key)
    made = admin.post("/api/keys", json={"role": "editor", "label": "leaver"})
    assert made.status_code == 201, made.text
    leaver = server.client(made.json()["key"])
    stays = server.client(server.key("viewer", "purge-t"))
    operator = server.client(server.key("admin", "", all_tenants=True))
    chat(leaver, "draft pricing for the leaver", conversation_id="gone-1")
    chat(leaver, "second thought", conversation_id="gone-2")
    chat(stays, "a viewer's question", conversation_id="kept")
    chat(operator, "operator notes", conversation_id="ops")
    server.engine.conversations.append_turn("purge-t", "mcp-conv", "default", {}, StoredTurn(
        seq=0, user="from the MCP tool", reply="r", assistant="default"), keep_turns=5, owner=MCP_OWNER)
    assert admin.delete(f"/api/keys/{made.json()['id']}").status_code == 204
    assert leaver.get("/api/chat/gone-1").status_code == 401

    listed, summary = purge(server)  # a dry run lists, deletes nothing
    assert made.json()["id"] in listed and "2 conversation(s)" in listed and "would delete" in summary
    assert "draft pricing" not in listed + summary  # counts, never content
    owners = {(t, o): n for t, o, n in server.engine.conversations.owners()}
    assert owners[("purge-t", made.json()["id"])] == 2

    _, summary = purge(server, "--yes")
    assert "deleted: 2 conversation(s)" in summary
    owners = {(t, o): n for t, o, n in server.engine.conversations.owners()}
    assert ("purge-t", made.json()["id"]) not in owners
    assert owners[(ALL_TENANTS_SCOPE, "")] >= 1 and owners[("purge-t", MCP_OWNER)] == 1
    assert stays.get("/api/chat/kept").status_code == 200
    assert operator.get("/api/chat/ops").json()["turns"][0]["user"] == "operator notes"
    _, summary = purge(server, "--yes")
    assert "deleted: 0 conversation(s)" in summary  # idempotent


def test_without_the_keys_file_the_purge_refuses(tmp_path: Path) -> None:
    """Pointed at the wrong place (no keys file) every key would look revoked: the purge refuses, exit 2."""
    engine = open_engine(tmp_path)
    with engine:
        engine.conversations.append_turn("t", "c", "default", {}, StoredTurn(
            seq=0, user="u", reply="r", assistant="default"), keep_turns=5, owner="k1")
    result = CliRunner().invoke(main, ["--config", str(tmp_path / "groundsearch.toml"), "--data-dir",
                                       str(tmp_path / "data"), "keys", "purge-conversations", "--yes"])
    assert result.exit_code == 2 and "no API keys file" in result.output, result.output
    with open_engine(tmp_path) as engine:
        assert engine.conversations.owners() == [("t", "k1", 1)]
