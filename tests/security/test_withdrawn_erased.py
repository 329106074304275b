"""Attacks on what a deleted item leaves in the stored conversations that quoted it, read from the raw store rows
(not the API), on SQLite and on the real Postgres the suite starts.

``GET /api/chat/{id}`` redacts a withdrawn source when it is read (test_chat_withdrawn.py), but the rows kept its
passage, its title and the reply's sentences word for word: a backup, a replica, an operator's ``SELECT`` or the
next bug in the read path handed them out. Deleting an item now erases what every turn citing it quoted, in the
delete's own transaction (a per-turn index of cited item ids finds the turns), so a crash between the two cannot
leave the item gone and its text kept.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import Server, backend_server, chat, upload

SECRET = "zephyrine coolant valve leaks at 41 bar"
TITLE = "Zephyrine valve"
KEPT = "The borealis pump runs at 12 bar."


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"erased-{request.param}")) as server:
        yield server


def _dsn(server: Server) -> str | None:
    return server.engine.settings.database_url or None


def raw_turns(server: Server, tenant: str) -> str:
    """Every stored turn row of ``tenant`` and its conversations' state, as one text, read past the API."""
    dsn = _dsn(server)
    sql_turns = ("SELECT user_text, reply, dossier, audit, tools FROM conversation_turns WHERE tenant = {m} "
                 "ORDER BY conversation_id, seq")
    sql_state = "SELECT state FROM conversations WHERE tenant = {m}"
    if dsn:
        import psycopg

        with psycopg.connect(dsn) as conn:
            rows = conn.execute(sql_turns.format(m="%s"), (tenant,)).fetchall()
            rows += conn.execute(sql_state.format(m="%s"), (tenant,)).fetchall()
        return "\n".join(json.dumps(list(r), default=str) for r in rows)
    conn = sqlite3.connect(str(server.engine.settings.data_dir / "store" / "store.sqlite3"))
    try:
        rows = conn.execute(sql_turns.format(m="?"), (tenant,)).fetchall()
        rows += conn.execute(sql_state.format(m="?"), (tenant,)).fetchall()
    finally:
        conn.close()
    return "\n".join(json.dumps(list(r)) for r in rows)


def _quote_x(server: Server, tenant: str) -> tuple[str, str, str, str]:
    """An editor publishes X (the secret) and Y; a viewer's conversation quotes both in two turns.
    Returns (editor key, viewer key, conversation id, X's id)."""
    editor, viewer = server.key("editor", tenant), server.key("viewer", tenant)
    ed = server.client(editor)
    assert upload(ed, "valve.md", f"# {TITLE}\n\nThe {SECRET} in the test rig.\n").status_code == 200
    assert upload(ed, "pump.md", f"# Borealis pump\n\n{KEPT} The zephyrine rig uses it.\n").status_code == 200
    made = chat(server.client(viewer), "what leaks in the zephyrine coolant valve rig?")
    x = next(s["item_id"] for s in made["dossier"]["sources"] if SECRET in s["text"])
    assert SECRET in made["reply"], made["reply"]
    chat(server.client(viewer), "and the borealis pump?", conversation_id=made["conversation_id"])
    raw = raw_turns(server, tenant)
    assert SECRET in raw and TITLE in raw  # the rows hold X's passage while X is published
    return editor, viewer, made["conversation_id"], x


def test_attack_a_deleted_items_passage_stays_in_the_stored_turns(server: Server) -> None:
    tenant = "erase-rows"
    editor, viewer, cid, x = _quote_x(server, tenant)
    assert server.client(editor).delete(f"/api/items/{x}").status_code == 204

    raw = raw_turns(server, tenant)
    assert SECRET not in raw, "the store's rows still hold the deleted item's passage"
    assert TITLE not in raw, "the store's rows still hold the deleted item's title"
    assert KEPT in raw  # what the other source grounds stays
    # the conversation still reads: X's source kept its number, marked withdrawn, and the gap is visible
    got = server.client(viewer).get(f"/api/chat/{cid}")
    assert got.status_code == 200
    first = got.json()["turns"][0]
    gone = [s for s in first["dossier"]["sources"] if s["item_id"] == x]
    assert gone and all(s["withdrawn"] and s["text"] == "source withdrawn" for s in gone)
    assert "[a sentence quoting a withdrawn source was removed.]" in first["reply"].lower()


def test_attack_a_delete_below_the_api_leaves_the_passage_in_the_stored_turns(server: Server) -> None:
    """Deletes that do not come through DELETE /api/items (an ingest's prune, ``groundsearch delete``) call the
    store's delete: it erases the same way."""
    tenant = "erase-store"
    _, _, _, x = _quote_x(server, tenant)
    assert server.engine.store.delete([x]) == 1
    assert SECRET not in raw_turns(server, tenant)


def _crash_delete(server: Server, item_id: str) -> int:
    """Delete ``item_id`` in a child process that dies (``os._exit``) after the item's rows are deleted and while
    the turns are being scrubbed, inside the delete; returns the child's exit code."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    dsn = _dsn(server)
    code = textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        import groundsearch.store.chat_citations as cc
        def die(*a, **k):
            os._exit(17)
        cc.redact_for_delete = die
        dsn = {dsn!r}
        if dsn:
            from groundsearch.store.postgres import PostgresStore
            store = PostgresStore.open(dsn, dim={server.engine.embedder.dim}, migrate=False)
        else:
            from groundsearch.store.sqlite import SQLiteStore
            store = SQLiteStore.open(Path({str(server.engine.settings.data_dir / "store")!r}),
                                     dim={server.engine.embedder.dim}, shared=True)
        store.delete([{item_id!r}])
        os._exit(0)
    """)
    env = {**os.environ, "PYTHONPATH": src}
    return subprocess.run([sys.executable, "-c", code], env=env, timeout=120).returncode


def test_attack_a_crash_between_the_delete_and_the_scrub_leaves_no_half(server: Server) -> None:
    """One transaction: a process killed while scrubbing leaves the item and its quotes both, never the item
    gone and its text kept in the turns; the next delete then erases both."""
    tenant = "erase-crash"
    editor, _, _, x = _quote_x(server, tenant)
    assert _crash_delete(server, x) == 17, "the child never reached the scrub"
    ed = server.client(editor)
    assert ed.get(f"/api/items/{x}").status_code == 200, "the item went without its quotes"
    assert SECRET in raw_turns(server, tenant)
    assert ed.delete(f"/api/items/{x}").status_code == 204
    assert SECRET not in raw_turns(server, tenant)


def test_attack_a_passage_an_editor_rewrote_out_stays_readable_in_the_conversation(server: Server) -> None:
    """An editor re-uploads X without the passage (a leak corrected in place, the same file and so the same id).
    Search, the item and its chunks no longer hold it; the conversations that quoted the old version did, to every
    viewer through ``GET /api/chat/{id}``, since X is still a visible item. A passage a new version no longer
    holds is erased like a deleted item's; a passage the new version keeps stays."""
    tenant = "erase-rewrite"
    editor, viewer, cid, x = _quote_x(server, tenant)
    ed = server.client(editor)
    fixed = f"# {TITLE}\n\nThe valve was serviced in the test rig.\n"
    assert upload(ed, "valve.md", fixed).status_code == 200
    assert SECRET not in ed.get(f"/api/items/{x}").text

    got = server.client(viewer).get(f"/api/chat/{cid}")
    assert got.status_code == 200
    assert SECRET not in got.text, "the conversation still shows the passage its item no longer holds"
    assert SECRET not in raw_turns(server, tenant), "the store's rows still hold the rewritten-out passage"
    assert KEPT in got.text


def test_a_passage_the_new_version_keeps_is_not_erased(server: Server) -> None:
    tenant = "erase-keep"
    editor, viewer, cid, x = _quote_x(server, tenant)
    ed = server.client(editor)
    assert upload(ed, "valve.md", f"# {TITLE}\n\nThe {SECRET} in the test rig.\n\nServiced since.\n").status_code == 200
    got = server.client(viewer).get(f"/api/chat/{cid}")
    assert SECRET in got.text and SECRET in raw_turns(server, tenant)
