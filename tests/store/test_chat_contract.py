"""The ConversationStore contract, unchanged on SQLite and on the Postgres the suite starts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from groundsearch.store.chat_base import ConversationStore, StoredTurn

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def chat_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Callable[[], ConversationStore],
                                                                                     Callable[[], ConversationStore]]]:
    """``(make, reopen)``: a fresh store, and the same database opened again (a restart)."""
    opened: list[ConversationStore] = []
    if request.param == "sqlite":
        from groundsearch.store.sqlite_chat import SQLiteConversationStore

        path = tmp_path / "store" / "store.sqlite3"

        def make() -> ConversationStore:
            opened.append(SQLiteConversationStore.open(path))
            return opened[-1]
    else:
        from groundsearch.store.pg_chat import PgConversationStore
        from groundsearch.store.pg_migrations import apply_migrations

        dsn = request.getfixturevalue("postgres_database")()
        apply_migrations(dsn)

        def make() -> ConversationStore:
            opened.append(PgConversationStore.open(dsn))
            return opened[-1]
    yield make, make
    for s in opened:
        try:
            s.close()
        except Exception:
            pass


def turn(user: str, reply: str = "ok", **kw) -> StoredTurn:
    return StoredTurn(seq=0, user=user, reply=reply, assistant="default", **kw)


def test_round_trip_and_survives_reopen(chat_backend) -> None:
    make, reopen = chat_backend
    store = make()
    state = {"signals": [{"signal": "budget", "value": "$5k"}], "retrieval_entities": [{"field": "product", "value": "x"}]}
    dossier = {"source_urls": ["https://a.example/1"], "supported_entities": ["Alpha"]}
    store.append_turn("t1", "c1", "default", state, turn("hello", "hi", dossier=dossier, audit={"marked": 0},
                                                           tools=({"name": "prepare_dossier"},)), keep_turns=10)
    store.append_turn("t1", "c1", "papers-expert", state, turn("more"), keep_turns=10)
    store.close()
    again = reopen()
    conv = again.load("t1", "c1")
    assert conv is not None and conv.assistant == "papers-expert" and conv.state == state
    turns = again.turns("t1", "c1")
    assert [t.seq for t in turns] == [1, 2]
    assert turns[0].user == "hello" and turns[0].reply == "hi"
    assert turns[0].dossier == dossier and turns[0].audit == {"marked": 0}
    assert turns[0].tools == ({"name": "prepare_dossier"},)


def test_history_is_bounded_keeping_the_newest(chat_backend) -> None:
    store = chat_backend[0]()
    for i in range(7):
        store.append_turn("", "c", "default", {}, turn(f"u{i}"), keep_turns=3)
    assert [t.user for t in store.turns("", "c")] == ["u4", "u5", "u6"]
    assert [t.user for t in store.turns("", "c", limit=2)] == ["u5", "u6"]


def test_other_tenant_reads_nothing_and_cannot_delete(chat_backend) -> None:
    store = chat_backend[0]()
    store.append_turn("acme", "shared-id", "default", {"signals": []}, turn("secret plan"), keep_turns=10)
    assert store.load("globex", "shared-id") is None
    assert store.turns("globex", "shared-id") == []
    assert store.delete("globex", "shared-id") is False
    assert store.load("acme", "shared-id") is not None  # untouched by the other tenant's delete
    # the same id in another tenant is another conversation
    store.append_turn("globex", "shared-id", "default", {}, turn("mine"), keep_turns=10)
    assert [t.user for t in store.turns("acme", "shared-id")] == ["secret plan"]


def test_delete_removes_every_trace(chat_backend) -> None:
    make, reopen = chat_backend
    store = make()
    store.append_turn("", "gone", "default", {"signals": [1]}, turn("a", dossier={"x": 1}), keep_turns=10)
    store.append_turn("", "gone", "default", {}, turn("b", audit={"y": 2}), keep_turns=10)
    assert store.delete("", "gone") is True
    assert store.load("", "gone") is None and store.turns("", "gone") == []
    assert store.delete("", "gone") is False
    store.close()
    again = reopen()
    assert again.load("", "gone") is None and again.turns("", "gone") == []
    # a new conversation under the same id starts from seq 1 with no old state
    again.append_turn("", "gone", "default", {}, turn("new"), keep_turns=10)
    assert [t.seq for t in again.turns("", "gone")] == [1]


def test_a_conversation_belongs_to_its_owner(chat_backend) -> None:
    """Keyed by (tenant, owner, id): another owner of the same tenant sees no conversation, cannot delete it,
    and a turn it appends under the same id starts its own instead of overwriting the author's state."""
    make, _ = chat_backend
    store = make()
    store.append_turn("t1", "shared-id", "default", {"turns": 1}, turn("author's question"), keep_turns=10,
                      owner="key-a")
    assert store.load("t1", "shared-id", owner="key-b") is None
    assert store.turns("t1", "shared-id", owner="key-b") == []
    assert store.delete("t1", "shared-id", owner="key-b") is False
    store.append_turn("t1", "shared-id", "default", {"turns": 99}, turn("intruder"), keep_turns=1, owner="key-b")
    assert store.load("t1", "shared-id", owner="key-a").state == {"turns": 1}
    assert [t.user for t in store.turns("t1", "shared-id", owner="key-a")] == ["author's question"]
    assert store.delete("t1", "shared-id", owner="key-b") is True
    assert store.load("t1", "shared-id", owner="key-a") is not None


def test_owners_are_counted_and_one_owner_is_deleted_whole(chat_backend) -> None:
    make, _ = chat_backend
    store = make()
    for tenant, owner, cid in (("t1", "k1", "a"), ("t1", "k1", "b"), ("t1", "k2", "a"), ("t2", "k1", "a")):
        store.append_turn(tenant, cid, "default", {}, turn(f"{tenant}/{owner}/{cid}"), keep_turns=5, owner=owner)
    assert store.owners() == [("t1", "k1", 2), ("t1", "k2", 1), ("t2", "k1", 1)]
    assert store.delete_owner("t1", "k1") == 2
    assert store.owners() == [("t1", "k2", 1), ("t2", "k1", 1)]
    assert store.load("t1", "a", owner="k1") is None and store.turns("t1", "a", owner="k1") == []
    assert store.turns("t1", "a", owner="k2")[0].user == "t1/k2/a"  # same id, other owner: untouched
    assert store.turns("t2", "a", owner="k1")[0].user == "t2/k1/a"  # same owner id, other tenant: untouched
    assert store.delete_owner("t1", "nobody") == 0


def test_an_owner_keeps_its_newest_conversations_and_no_one_elses_go(chat_backend) -> None:
    """``keep_conversations`` bounds one owner: the least recently updated go, turns and all, in the same
    transaction as the turn that overflowed; the same ids under another owner or tenant are untouched."""
    make, _ = chat_backend
    store = make()
    for tenant, owner in (("t1", "k2"), ("t2", "k1")):
        store.append_turn(tenant, "c0", "default", {}, turn("bystander"), keep_turns=5, owner=owner)
    for i in range(5):
        store.append_turn("t1", f"c{i}", "default", {}, turn(f"q{i}"), keep_turns=5, owner="k1", keep_conversations=3)
        if i == 2:  # continued: newest again
            store.append_turn("t1", "c0", "default", {}, turn("back"), keep_turns=5, owner="k1", keep_conversations=3)
    assert [cid for cid in ("c0", "c1", "c2", "c3", "c4") if store.load("t1", cid, owner="k1")] == ["c0", "c3", "c4"]
    assert store.turns("t1", "c1", owner="k1") == [] and store.turns("t1", "c2", owner="k1") == []
    assert [t.user for t in store.turns("t1", "c0", owner="k1")] == ["q0", "back"]
    assert store.owners() == [("t1", "k1", 3), ("t1", "k2", 1), ("t2", "k1", 1)]  # no stray turn left
    store.append_turn("t1", "c3", "default", {}, turn("again"), keep_turns=5, owner="k1", keep_conversations=3)
    assert [t.user for t in store.turns("t1", "c3", owner="k1")] == ["q3", "again"]  # continuing drops nothing
    assert store.load("t1", "c0", owner="k1") and store.load("t1", "c4", owner="k1")
