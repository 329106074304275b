"""The per-turn index of cited items (store/chat_citations.py) on SQLite and Postgres: a delete erases what the
stored turns quoted of the item, in its own transaction — also for turns stored before the index existed (the
migration builds it), and for a turn written just after the delete (its dossier made while the item was there).

Each test reads the raw rows, never the API, which redacts on read anyway.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from groundsearch.store.chat_base import StoredTurn
from groundsearch.types import Chunk, Item, ItemWrite

SECRET = "the quasar gasket fails at ninety kelvin"
KEPT = "the nebula hinge holds at forty kelvin"


@dataclass
class Pair:
    """An item store and the conversation store beside it (one SQLite file, or one Postgres database)."""

    store: object
    chats: object
    raw: Callable[[], str]  # every turn row and citation row, as text
    citations: Callable[[], int]
    forget_index: Callable[[], None]  # put the database back to before the index (old data)
    reopen: Callable[[], "Pair"]
    old_insert: Callable[[int, dict], None]  # a turn (seq, dossier) written as a version before the index wrote it
    forget_trigger: Callable[[], None]  # put the database back to the index without its indexing trigger


def _item(iid: str, text: str) -> ItemWrite:
    return ItemWrite(Item(id=iid, collection="docs", title=f"Title of {iid}", text=text, tenant="t1",
                          status="published", content_hash=iid + text), (Chunk(f"{iid}#0", iid, 0, text),), None)


def _turn() -> StoredTurn:
    sources = [{"n": 1, "id": "x#0", "item_id": "x", "title": "Title of x", "text": SECRET, "url": None},
               {"n": 2, "id": "y#0", "item_id": "y", "title": "Title of y", "text": KEPT, "url": None}]
    reply = f"{SECRET.capitalize()} [1]. {KEPT.capitalize()} [2]."
    return StoredTurn(seq=0, user="what fails?", reply=reply, assistant="default",
                      dossier={"sources": sources, "answer": [{"text": SECRET, "citations": [1]},
                                                              {"text": KEPT, "citations": [2]}]},
                      audit={"text": reply}, tools=({"name": "prepare_dossier", "arguments": {"query": "what fails?"}, "by": "policy"},
                             {"name": "render_evidence_card", "arguments": {"source": 1, "quote": SECRET},
                              "by": "model"}))


@pytest.fixture(params=["sqlite", "postgres"])
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Pair]]:
    opened: list[Pair] = []

    if request.param == "sqlite":
        from groundsearch.store.sqlite import SQLiteStore
        from groundsearch.store.sqlite_chat import SQLiteConversationStore

        db = tmp_path / "store" / "store.sqlite3"

        def rows(sql: str) -> list[tuple]:
            conn = sqlite3.connect(str(db))
            try:
                return conn.execute(sql).fetchall()
            finally:
                conn.close()

        def forget() -> None:
            conn = sqlite3.connect(str(db), isolation_level=None)
            conn.execute("DROP TRIGGER conversation_turns_uncite")
            conn.execute("DROP TRIGGER conversation_turns_cite")
            conn.execute("DROP TABLE conversation_citations")
            conn.close()

        def make() -> Pair:
            for p in opened:
                p.store.close()
                p.chats.close()
            opened.clear()
            store = SQLiteStore.open(tmp_path / "store", dim=8)
            opened.append(Pair(store, SQLiteConversationStore.open(db), lambda: str(rows(
                "SELECT reply, dossier, audit, tools FROM conversation_turns")),
                lambda: len(rows("SELECT * FROM conversation_citations")), forget, make, old_insert, forget_trigger))
            return opened[-1]

        def old_insert(seq: int, dossier: dict) -> None:
            conn = sqlite3.connect(str(db), isolation_level=None)
            conn.execute("INSERT INTO conversation_turns(tenant, owner, conversation_id, seq, user_text, reply, "
                         "assistant, dossier, audit, tools, created_at) VALUES ('t1', 'k1', 'c1', ?, 'q', ?, "
                         "'default', ?, '{}', '[]', '2026-12-01T00:00:00+00:00')",
                         (seq, f"{SECRET.capitalize()} [1].", json.dumps(dossier)))
            conn.close()

        def forget_trigger() -> None:
            conn = sqlite3.connect(str(db), isolation_level=None)
            conn.execute("DROP TRIGGER conversation_turns_cite")
            conn.close()
    else:
        import psycopg
        from psycopg.types.json import Jsonb

        from groundsearch.store.pg_chat import PgConversationStore
        from groundsearch.store.postgres import PostgresStore

        dsn = request.getfixturevalue("postgres_database")()

        def prows(sql: str) -> list[tuple]:
            with psycopg.connect(dsn) as conn:
                return conn.execute(sql).fetchall()

        def forget() -> None:
            with psycopg.connect(dsn) as conn:
                conn.execute("DROP TABLE conversation_citations")
                conn.execute("DELETE FROM schema_version WHERE name = '0010_conversation_citations.sql'")

        def old_insert(seq: int, dossier: dict) -> None:
            with psycopg.connect(dsn) as conn:
                conn.execute("INSERT INTO conversations (tenant, owner, id, assistant) VALUES ('t1', 'k1', 'c1', "
                             "'default') ON CONFLICT DO NOTHING")
                conn.execute("INSERT INTO conversation_turns (tenant, owner, conversation_id, seq, user_text, reply, "
                             "assistant, dossier) VALUES ('t1', 'k1', 'c1', %s, 'q', %s, 'default', %s)",
                             (seq, f"{SECRET.capitalize()} [1].", Jsonb(dossier)))

        def forget_trigger() -> None:
            with psycopg.connect(dsn) as conn:
                conn.execute("DROP TRIGGER conversation_turns_cite ON conversation_turns")
                conn.execute("DELETE FROM schema_version WHERE name = '0011_citations_trigger.sql'")

        def make() -> Pair:
            for p in opened:
                p.store.close()
                p.chats.close()
            opened.clear()
            store = PostgresStore.open(dsn, dim=8)
            opened.append(Pair(store, PgConversationStore.open(dsn), lambda: json.dumps(prows(
                "SELECT reply, dossier, audit, tools FROM conversation_turns"), default=str),
                lambda: len(prows("SELECT * FROM conversation_citations")), forget, make, old_insert, forget_trigger))
            return opened[-1]

    yield make
    for p in opened:
        p.store.close()
        p.chats.close()


def _quote(p: Pair) -> None:
    p.store.upsert([_item("x", SECRET), _item("y", KEPT)])
    p.chats.append_turn("t1", "c1", "default", {}, _turn(), keep_turns=10, owner="k1")
    assert SECRET in p.raw()


def test_a_delete_erases_the_quotes_and_the_index_rows(pair: Callable[[], Pair]) -> None:
    p = pair()
    _quote(p)
    assert p.citations() == 2
    assert p.store.delete(["x"]) == 1
    raw = p.raw()
    assert SECRET not in raw and "Title of x" not in raw
    assert KEPT in raw and "source withdrawn" in raw
    assert p.citations() == 1  # y's row stays; x's went with the scrub
    assert p.chats.delete("t1", "c1", owner="k1")
    assert p.citations() == 0  # a turn's index rows go with it


def test_the_migration_indexes_turns_stored_before_the_index(pair: Callable[[], Pair]) -> None:
    p = pair()
    _quote(p)
    p.forget_index()  # a database from before the index, holding a turn that quotes x
    p = p.reopen()  # opening builds the index from the stored turns
    assert p.citations() == 2
    assert p.store.delete(["x"]) == 1
    assert SECRET not in p.raw()


def test_a_turn_written_after_its_item_was_deleted_keeps_no_copy(pair: Callable[[], Pair]) -> None:
    """The dossier is made while x is there; the delete commits before the turn is stored."""
    p = pair()
    p.store.upsert([_item("x", SECRET), _item("y", KEPT)])
    assert p.store.delete(["x"]) == 1
    p.chats.append_turn("t1", "c1", "default", {}, _turn(), keep_turns=10, owner="k1")
    raw = p.raw()
    assert SECRET not in raw and KEPT in raw
    assert p.citations() == 1


def test_trimmed_turns_take_their_index_rows(pair: Callable[[], Pair]) -> None:
    p = pair()
    _quote(p)
    for _ in range(3):
        p.chats.append_turn("t1", "c1", "default", {}, _turn(), keep_turns=1, owner="k1")
    assert p.citations() == 2


def test_a_delete_on_old_data_builds_the_index_itself(pair: Callable[[], Pair], request: pytest.FixtureRequest) -> None:
    """SQLite: the item store may delete before any conversation store opened the file since the upgrade (a CLI
    delete): the delete builds the index in its transaction. (Postgres refuses to open an unmigrated schema.)"""
    if request.node.callspec.params["pair"] != "sqlite":
        pytest.skip("Postgres applies migration 0010 before a store opens")
    p = pair()
    _quote(p)
    p.forget_index()
    assert p.store.delete(["x"]) == 1
    assert SECRET not in p.raw()


def test_a_rewrite_erases_only_the_passages_the_new_version_lost(pair: Callable[[], Pair]) -> None:
    p = pair()
    _quote(p)
    p.store.upsert([_item("y", f"{KEPT}, and has since been oiled")])  # y keeps its passage
    assert KEPT in p.raw() and SECRET in p.raw()
    p.store.upsert([_item("x", "the quasar gasket was replaced")])  # x loses it
    raw = p.raw()
    assert SECRET not in raw and KEPT in raw
    assert p.citations() == 1  # x's passage is gone from the turn: the turn cites y only
    p.store.upsert([_item("x", SECRET)])  # the passage coming back later does not bring the quote back
    assert SECRET not in p.raw()


def test_attack_a_turn_an_older_version_wrote_is_erased_by_a_delete(pair: Callable[[], Pair]) -> None:
    """A worker of a version before the index (still serving during a rolling upgrade, or an old CLI on the same
    file) inserts turns without index rows: the database indexes them itself, so the delete finds and erases
    them. Failed before the indexing trigger (seen: the secret stayed in the row after the delete)."""
    p = pair()
    p.store.upsert([_item("x", SECRET), _item("y", KEPT)])
    p.old_insert(1, dict(_turn().dossier))
    assert p.store.delete(["x"]) == 1
    raw = p.raw()
    assert SECRET not in raw and "Title of x" not in raw and KEPT in raw


def test_turns_an_older_version_wrote_before_the_trigger_are_indexed_on_upgrade(pair: Callable[[], Pair]) -> None:
    """A database at the index's first version holding turns an older worker wrote without rows: this version's
    upgrade (SQLite at open, Postgres migration 0011) indexes them."""
    p = pair()
    p.store.upsert([_item("x", SECRET), _item("y", KEPT)])
    p.forget_trigger()
    p.old_insert(1, dict(_turn().dossier))
    assert p.citations() == 0
    p = p.reopen()
    assert p.citations() == 2
    assert p.store.delete(["x"]) == 1
    assert SECRET not in p.raw()


_SHAPES = [
    [{"n": 1, "id": "a#0", "item_id": "a"}],
    [{"n": 1, "id": "b#c#3"}],  # no item_id: the chunk id up to its last '#'
    [{"n": 1, "id": "d#1", "item_id": ""}],
    [{"n": 1, "id": "e#0", "item_id": "e", "withdrawn": True}, {"n": 2, "id": "f#0", "withdrawn": False}],
    [{"n": 1, "id": "nohash"}, {"n": 2, "id": "#0"}, "text", 7, None, [1]],
    [{"n": 1, "id": "g#0", "item_id": "g"}, {"n": 2, "id": "g#1", "item_id": "g"}, {"n": 3, "id": "ü:ß%#9"}],
]


def test_the_trigger_indexes_exactly_what_cited_item_ids_reads(pair: Callable[[], Pair]) -> None:
    """The database's derivation (SQL) and the store's (``cited_item_ids``, used when a scrub re-indexes a
    rewritten turn) agree on every shape of source, and on dossiers without a sources array."""
    from groundsearch.store.chat_citations import cited_item_ids

    p = pair()
    seq = 0
    for sources in [*_SHAPES, None]:
        seq += 1
        before = p.citations()
        dossier = {"sources": sources} if sources is not None else {"sources": {"a": 1}}
        p.old_insert(seq, dossier)
        assert p.citations() - before == len(cited_item_ids(dossier)), sources
    assert p.citations() == sum(len(cited_item_ids({"sources": s})) for s in _SHAPES)


def test_attack_a_short_title_leaves_the_free_text_with_its_item(pair: Callable[[], Pair]) -> None:
    """A title under 12 characters ("Title of x" is 10; a codename like "Zephyrine" 9) was erased from the dossier
    entry but kept in a sentence that also cites a visible source, in the audit trace and in a model's tool
    arguments, on disk and in ``GET /api/chat/{id}`` (the same redaction). Failed before (seen: 'Title of x' in
    the rows after the delete); now a withdrawn source's title of 4+ characters goes as a whole word, any case."""
    p = pair()
    p.store.upsert([_item("x", SECRET), _item("y", KEPT)])
    turn = _turn()
    reply = "Both title of x [1] and the hinge [2] were checked."
    turn = StoredTurn(seq=0, user="what fails?", reply=reply, assistant="default", dossier=turn.dossier,
                      audit={"text": reply, "notes": ["entity 'Title of x' is supported by [1]"]},
                      tools=({"name": "render_plan", "arguments": {"step": "replace the Title of x part"},
                              "by": "model"},))
    p.chats.append_turn("t1", "c1", "default", {}, turn, keep_turns=10, owner="k1")
    assert p.store.delete(["x"]) == 1
    raw = p.raw()
    assert "title of x" not in raw.lower()
    assert "the hinge [2] were checked" in raw and KEPT in raw  # the visible source's words stay
