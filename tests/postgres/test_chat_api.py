"""The grounded assistant on Postgres through the real app over HTTP: the conversation store of migration 0003
behind ``POST /api/chat`` (JSON and SSE), ``GET`` and ``DELETE /api/chat/{id}``, on the embedded Postgres the
suite starts — and the tenant attack: tenant B, holding tenant A's conversation id, can neither read, continue
nor delete it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from groundsearch.engine import Engine, open_store
from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.models.factory import build_embedder
from tests.api.live import FIXTURES, make_settings, serve
from tests.api.sse import parse


@pytest.fixture(scope="module")
def pg_chat(tmp_path_factory: pytest.TempPathFactory, postgres_server: str) -> Iterator[tuple[str, str, dict]]:
    import uuid

    from psycopg import conninfo, sql

    name = f"gs_test_chat_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    dsn = conninfo.make_conninfo(postgres_server, dbname=name)
    tmp = tmp_path_factory.mktemp("pg-chat")
    settings = make_settings(tmp, database_url=dsn, retrieval={"gate_threshold": 0.0})
    settings = settings.model_copy(update={"api": settings.api.model_copy(update={
        "local_mode": False, "search_per_minute": 1000, "preview_per_minute": 1000})})
    embedder = build_embedder(settings)
    engine = Engine(settings, open_store(settings, embedder.dim), embedder)
    for path, collection in ((FIXTURES / "docs", "docs"), (FIXTURES / "releases.jsonl", "releases")):
        assert not engine.ingest([path], collection).errors
    assert not engine.ingest([FIXTURES / "docs"], "docs", tenant="acme").errors  # what A's chat may ground on
    keys = KeyStore(Path(tmp) / "keys.json")
    made = {"a": keys.create("viewer", tenant="acme")[1], "b": keys.create("viewer", tenant="globex")[1]}
    try:
        with engine, serve(create_app(engine, keys=keys)) as url:
            assert type(engine.conversations).__name__ == "PgConversationStore"
            yield url, dsn, made
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _rows(dsn: str, conversation_id: str) -> dict[str, list[tuple]]:
    with psycopg.connect(dsn) as conn:
        return {
            "conversations": conn.execute("SELECT tenant FROM conversations WHERE id = %s",
                                          (conversation_id,)).fetchall(),
            "turns": conn.execute("SELECT tenant, seq FROM conversation_turns WHERE conversation_id = %s "
                                  "ORDER BY tenant, seq", (conversation_id,)).fetchall(),
        }


def test_turns_stream_persist_in_postgres_read_back_and_delete_every_trace(pg_chat) -> None:
    url, dsn, keys = pg_chat
    a = {"Authorization": f"Bearer {keys['a']}"}
    with httpx.Client(base_url=url, timeout=120, headers=a) as c:
        first = c.post("/api/chat", json={"message": "How do I ingest JSONL records?", "conversation_id": "pg-1"})
        assert first.status_code == 200, first.text
        with c.stream("POST", "/api/chat?stream=true",
                      json={"message": "We have 2 million documents", "conversation_id": "pg-1"}) as r:
            assert r.status_code == 200
            events = list(parse(r.iter_lines()))
        names = [n for n, _ in events]
        assert names.index("dossier") < names.index("audit") < names.index("reply") and names[-1] == "complete"
        assert events[-1][1]["turn"] == 2
        assert _rows(dsn, "pg-1") == {"conversations": [("acme",)], "turns": [("acme", 1), ("acme", 2)]}
        stored = c.get("/api/chat/pg-1")
        assert stored.status_code == 200
        body = stored.json()
        assert [t["user"] for t in body["turns"]] == ["How do I ingest JSONL records?", "We have 2 million documents"]
        assert body["state"]["signals"][0] == {"signal": "scale", "value": "2 million documents", "turn": 2}
        assert body["turns"][1]["reply"] == next(d for n, d in events if n == "reply")["text"]
        assert body["turns"][1]["audit"]["ran"] is True and body["turns"][1]["dossier"]["sources"]
        assert c.delete("/api/chat/pg-1").status_code == 204
        assert _rows(dsn, "pg-1") == {"conversations": [], "turns": []}  # turns went with it (ON DELETE CASCADE)
        assert c.get("/api/chat/pg-1").status_code == 404


def test_attack_tenant_b_cannot_read_continue_or_delete_tenant_a_conversation_on_postgres(pg_chat) -> None:
    """Written to fail without the tenant check: with ``tenant = %s`` taken out of the store's WHERE clauses,
    B's GET returns A's turns, B's DELETE removes them, and B's message becomes turn 2 of A's conversation."""
    url, dsn, keys = pg_chat
    a, b = ({"Authorization": f"Bearer {keys[k]}"} for k in ("a", "b"))
    with httpx.Client(base_url=url, timeout=120) as c:
        made = c.post("/api/chat", headers=a, json={"message": "I'm a research lead with a budget of $9000",
                                                    "conversation_id": "acme-pg-secret"})
        assert made.status_code == 200, made.text
        a_sources = {src["id"] for src in made.json()["dossier"]["sources"]}
        assert a_sources, "A's turn grounded on A's documents"
        read = c.get("/api/chat/acme-pg-secret", headers=b)
        assert read.status_code == 404 and "research lead" not in read.text
        assert c.delete("/api/chat/acme-pg-secret", headers=b).status_code == 404
        assert _rows(dsn, "acme-pg-secret")["turns"] == [("acme", 1)]  # the failed delete removed nothing
        hijack = c.post("/api/chat", headers=b, json={"message": "what did we say before?",
                                                      "conversation_id": "acme-pg-secret"})
        assert hijack.status_code == 200
        assert hijack.json()["turn"] == 1 and hijack.json()["dossier"]["qualification_signals"] == []
        assert "9000" not in hijack.text and "research lead" not in hijack.text
        assert not a_sources & {src["id"] for src in hijack.json()["dossier"]["sources"]}
        # B's message opened B's own conversation under the same id; A's is untouched
        assert _rows(dsn, "acme-pg-secret") == {"conversations": [("acme",), ("globex",)],
                                                 "turns": [("acme", 1), ("globex", 1)]}
        own = c.get("/api/chat/acme-pg-secret", headers=a).json()
        assert [t["user"] for t in own["turns"]] == ["I'm a research lead with a budget of $9000"]
        assert {s["signal"] for s in own["state"]["signals"]} == {"role", "budget"}
        assert c.delete("/api/chat/acme-pg-secret", headers=b).status_code == 204  # B may delete its own
        assert _rows(dsn, "acme-pg-secret")["turns"] == [("acme", 1)]
